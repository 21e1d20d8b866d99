import { defineScenario, labUrl, scrollThrough } from 'ccbrowse';

// The lab's news-like page (~3 MB): HTML, scripts and styles from the page origin, fonts,
// photos and thumbnails from the images origin.
export default defineScenario({
  name: 'lab-static',
  description: 'Lab static page: ~3 MB news-like page (scripts, styles, fonts, images from a second origin)',
  kind: 'static',
  lab: true,
  startUrl: labUrl(undefined, 'www', '/static/'),
  activitySeconds: 20,
  consent: { auto: false },
  // ~3 MB at Nebby's 200 kbit/s: the document alone can take a minute.
  timeouts: { navigationMs: 180_000 },
  steps: async ({ page, log, signal }) => {
    // The page sets window.__ccb.ready once its scripts ran and its fonts loaded.
    const ready = await page
      .waitForFunction('window.__ccb && window.__ccb.ready === true', undefined, { timeout: 60_000 })
      .then(() => true, () => false);
    log(ready ? 'static page ready (scripts ran, fonts loaded)' : 'static page not ready after 60 s');
    await scrollThrough(page, { steps: 8, pauseMs: 500, signal });
  },
});
