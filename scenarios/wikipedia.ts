import { clickFirstVisible, defineScenario, dismissPopups, scrollThrough } from 'ccbrowse';

// A reference page: one English Wikipedia article with figures, read top to bottom so
// lazy-loaded images load as they would for a reader.
export default defineScenario({
  name: 'wikipedia',
  description: 'Static: an English Wikipedia article (HTML, styles, scripts, figures from upload.wikimedia.org), scrolled through',
  kind: 'static',
  startUrl: 'https://en.wikipedia.org/wiki/TCP_congestion_control',
  activitySeconds: 20,
  browser: { locale: 'en-US', viewport: { width: 1280, height: 900 } },
  consent: { timeoutMs: 1_000 }, // Wikipedia shows no consent dialog: don't wait long for one
  assetRules: [
    { match: /\/w\/load\.php\?.*\bonly=styles/i, type: 'style' },
    { match: /\/w\/load\.php\?.*\bonly=scripts/i, type: 'script' },
    { match: /\/api\/rest_v1\//i, type: 'xhr' },
  ],
  steps: async ({ page, log, signal }) => {
    const heading = await page.locator('#firstHeading, h1').first().waitFor({ timeout: 30_000 }).then(() => true, () => false);
    log(heading ? 'article loaded' : 'no article heading after 30 s');
    // Fundraising and survey banners.
    await clickFirstVisible(
      [page.locator('#centralNotice .frb-close, #centralNotice .cn-closeButton, .cn-closeButton, button[aria-label="Close" i]')],
      { timeoutMs: 2_000, signal },
    );
    await dismissPopups(page, { log });
    await page.waitForLoadState('load', { timeout: 30_000 }).catch(() => undefined);
    await scrollThrough(page, { steps: 12, pauseMs: 700, signal });
  },
});
