import { defineScenario, labAssetRules, labUrl, waitForPlayback } from 'ccbrowse';

// The lab's live stream: a manifest that moves with the wall clock, polled by the player,
// segments from the live origin.
export default defineScenario({
  name: 'lab-live',
  description: 'Lab live video: wall-clock manifest polled every segment, segments from the live origin',
  kind: 'live',
  lab: true,
  startUrl: labUrl(undefined, 'www', '/live/'),
  activitySeconds: 40,
  assetRules: labAssetRules(),
  consent: { auto: false },
  steps: async ({ page, log, signal }) => {
    const wait = await waitForPlayback(page, { tag: 'video', minSeconds: 2, timeoutMs: 45_000, signal });
    log(wait.playing ? `live video playing after ${wait.waitedMs} ms` : `live video not playing after ${wait.waitedMs} ms`);
  },
});
