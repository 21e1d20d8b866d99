import { defineScenario, dismissPopups, scrollThrough } from 'ccbrowse';

// A news front page: The Guardian's international edition (many images from its image
// CDN, scripts, fonts; a Sourcepoint consent dialog in an iframe for EU visitors).
export default defineScenario({
  name: 'guardian',
  description: "Static: The Guardian's international front page, consent accepted, scrolled through",
  kind: 'static',
  startUrl: 'https://www.theguardian.com/international',
  activitySeconds: 20,
  browser: { locale: 'en-GB', viewport: { width: 1280, height: 900 } },
  consent: {
    // Sourcepoint's buttons on this site ("Yes, I'm happy"), in its sp_message_iframe.
    buttons: [/^\s*yes,? i.?m happy\s*$/i, /^\s*accept all\s*$/i],
    selectors: ['button.sp_choice_type_11', 'button[title="Yes, I’m happy"]', "button[title=\"Yes, I'm happy\"]"],
    timeoutMs: 10_000,
  },
  assetRules: [
    { match: /i\.guim\.co\.uk\//i, type: 'image' },
    { match: /assets\.guim\.co\.uk\/.*\.woff2?(\?|$)/i, type: 'font' },
  ],
  steps: async ({ page, log, signal }) => {
    const main = await page.locator('main, #maincontent').first().waitFor({ timeout: 30_000 }).then(() => true, () => false);
    log(main ? 'front page loaded' : 'no main content after 30 s');
    await dismissPopups(page, { log });
    await page.waitForLoadState('load', { timeout: 30_000 }).catch(() => undefined);
    await scrollThrough(page, { steps: 15, pauseMs: 600, signal });
  },
});
