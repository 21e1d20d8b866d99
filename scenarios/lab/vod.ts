import { defineScenario, labAssetRules, labUrl, waitForPlayback } from 'ccbrowse';

// The lab's video-on-demand page: an MSE player whose segments come from the media origin
// (its own congestion controller); around it the watch page: ~440 kB of app bundles and styles
// from the page's origin, poster, storyboards and thumbnails (~650 kB) from the images origin,
// each long enough (~30 s at 200 kbit/s) for its flow's congestion control to be read.
export default defineScenario({
  name: 'lab-vod',
  description: 'Lab VOD: MSE player, 2 s fMP4 segments from the media origin, watch-page bundles from the page origin, poster/storyboards/thumbnails from the images origin',
  kind: 'vod',
  lab: true,
  // The lab's configured host for pages; the session resolves it through ctx.lab.hosts.
  startUrl: labUrl(undefined, 'www', '/vod/'),
  activitySeconds: 40,
  assetRules: labAssetRules(),
  consent: { auto: false }, // the lab has no consent dialogs: don't wait for one
  steps: async ({ page, log, signal }) => {
    const wait = await waitForPlayback(page, { tag: 'video', minSeconds: 2, timeoutMs: 45_000, signal });
    log(wait.playing ? `video playing after ${wait.waitedMs} ms` : `video not playing after ${wait.waitedMs} ms`);
  },
});
