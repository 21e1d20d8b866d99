import { clickFirstVisible, defineScenario, dismissPopups, ensurePlaying, waitForPlayback } from 'ccbrowse';
import type { Page } from 'playwright-core';

// YouTube video on demand. Big Buck Bunny (Blender Foundation, CC BY): public, embeddable,
// 10 minutes long and uploaded in 2014, so it outlives most test videos.
const VIDEO_ID = 'aqz-KE-bpKQ';

/** Ads: the skip button appears after ~5 s; an unskippable ad just plays (it is still video). */
async function skipAd(page: Page): Promise<void> {
  await clickFirstVisible(
    [
      page.locator('.ytp-skip-ad-button, .ytp-ad-skip-button, .ytp-ad-skip-button-modern, button[id^="skip-button"]'),
      page.getByRole('button', { name: /^\s*skip( ads?)?\s*$/i }),
    ],
    { timeoutMs: 0 },
  );
}

export default defineScenario({
  name: 'youtube',
  description: 'YouTube VOD: one public video played in the desktop player (muted autoplay), ads skipped when possible',
  kind: 'vod',
  startUrl: `https://www.youtube.com/watch?v=${VIDEO_ID}`,
  // Nebby advises > 500 kbit/s for video (players otherwise fall to their lowest bitrate
  // and pause): the video profile for steady playback, nebby-50 for the page and start-up.
  profiles: ['video', 'nebby-50'],
  activitySeconds: 60,
  browser: { locale: 'en-US', viewport: { width: 1280, height: 720 } },
  // consent.youtube.com (EU) and the in-page "Before you continue" dialog: "Accept all" is
  // built in; these are the site's own forms of it.
  consent: {
    buttons: [/^\s*accept all\s*$/i, /^\s*accept the use of cookies/i],
    selectors: ['form[action*="consent"] button[aria-label^="Accept" i]', 'ytd-consent-bump-v2-lightbox button[aria-label^="Accept" i]'],
  },
  assetRules: [
    // Media comes from *.googlevideo.com/videoplayback; the mime= parameter tells the
    // adaptive audio and video streams apart (SABR/UMP responses without it carry both).
    { match: /\.googlevideo\.com\/videoplayback\?.*\bmime=audio/i, type: 'audio' },
    { match: /\.googlevideo\.com\/videoplayback/i, type: 'video' },
    { match: /\.googlevideo\.com\/initplayback/i, type: 'video' },
    { match: /youtube\.com\/youtubei\/v1\//i, type: 'xhr' },
  ],
  steps: async ({ page, log, signal }) => {
    const player = page.locator('#movie_player video, video.html5-main-video').first();
    const attached = await player.waitFor({ state: 'attached', timeout: 30_000 }).then(() => true, () => false);
    if (!attached) {
      const blocked = await page.getByText(/confirm you.?re not a bot|sign in to confirm/i).first().isVisible().catch(() => false);
      log(blocked ? 'YouTube asks to sign in to confirm this is not a bot (blocked address?)' : 'no video player after 30 s');
    }
    await dismissPopups(page, { log });
    await skipAd(page);
    const playButtons = [page.locator('.ytp-large-play-button'), page.locator('.ytp-play-button[data-title-no-tooltip="Play"]')];
    await ensurePlaying(page, { playButtons, log });
    const wait = await waitForPlayback(page, { tag: 'video', minSeconds: 2, timeoutMs: 45_000, playButtons, log, signal });
    log(wait.playing ? `video playing after ${wait.waitedMs} ms` : `video still not playing after ${wait.waitedMs} ms`);
  },
  upkeep: async ({ page }) => {
    await skipAd(page);
    // "Video paused. Continue watching?"
    await clickFirstVisible([page.getByRole('button', { name: /^\s*(yes|continue watching)\s*$/i })], { timeoutMs: 0 });
  },
});
