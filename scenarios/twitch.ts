import { clickFirstVisible, defineScenario, dismissPopups, ensurePlaying, waitForPlayback } from 'ccbrowse';
import type { Page } from 'playwright-core';

// Twitch live video: the live-channel directory, sorted by viewers, then the first live
// channel in it. The front page (which autoplays a featured stream) is the fallback.

/** The "mature content" and "content classification" gates in front of many streams. */
async function passGates(page: Page): Promise<void> {
  await clickFirstVisible(
    [
      page.locator('[data-a-target="content-classification-gate-overlay-start-watching-button"], [data-a-target="player-overlay-mature-accept"]'),
      page.getByRole('button', { name: /^\s*start watching\s*$/i }),
    ],
    { timeoutMs: 0 },
  );
}

export default defineScenario({
  name: 'twitch',
  description: 'Twitch live video: first live channel of the directory (most viewers), muted, in the web player',
  kind: 'live',
  startUrl: 'https://www.twitch.tv/directory/all?sort=VIEWER_COUNT',
  profiles: ['video', 'nebby-50'], // Nebby: > 500 kbit/s for video; nebby-50 for page and start-up
  activitySeconds: 60,
  browser: { locale: 'en-US', viewport: { width: 1280, height: 720 } },
  consent: { selectors: ['[data-a-target="consent-banner-accept"]'] },
  assetRules: [
    // HLS: master playlists from usher, media playlists and segments (often extension-less) from ttvnw.net.
    { match: /usher\.ttvnw\.net\//i, type: 'manifest' },
    { match: /\.ttvnw\.net\/v1\/playlist\//i, type: 'manifest' },
    { match: /\.ttvnw\.net\/v1\/segment\//i, type: 'video' },
    { match: /\.ttvnw\.net\/.*\.ts(\?|$)/i, type: 'video' },
    { match: /gql\.twitch\.tv\//i, type: 'xhr' },
  ],
  steps: async ({ page, log, signal }) => {
    const card = page
      .locator('a[data-a-target="preview-card-image-link"], a[data-test-selector="preview-card-image-link"], article a[href^="/"]:has(img)')
      .first();
    const found = await card.waitFor({ state: 'visible', timeout: 30_000 }).then(() => true, () => false);
    const href = found ? await card.getAttribute('href').catch(() => null) : null;
    if (href) {
      const channel = new URL(href, page.url()).href;
      log(`first live channel: ${channel}`);
      await page.goto(channel, { waitUntil: 'domcontentloaded', timeout: 45_000 });
    } else {
      log('no channel card in the directory after 30 s: using the front page\'s featured stream');
      await page.goto('https://www.twitch.tv/', { waitUntil: 'domcontentloaded', timeout: 45_000 });
    }
    await page.locator('video').first().waitFor({ state: 'attached', timeout: 30_000 }).catch(() => undefined);
    await dismissPopups(page, { log });
    await passGates(page);
    const playButtons = [page.locator('[data-a-target="player-play-pause-button"][aria-label*="Play" i]')];
    await ensurePlaying(page, { playButtons, log });
    const wait = await waitForPlayback(page, { tag: 'video', minSeconds: 2, timeoutMs: 60_000, playButtons, log, signal });
    log(wait.playing ? `live video playing after ${wait.waitedMs} ms` : `live video not playing after ${wait.waitedMs} ms`);
  },
  upkeep: async ({ page }) => {
    await passGates(page);
  },
});
