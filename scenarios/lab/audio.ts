import { defineScenario, labAssetRules, labUrl, waitForPlayback } from 'ccbrowse';

// The lab's radio-like audio stream: AAC segments from the audio origin, looping.
export default defineScenario({
  name: 'lab-audio',
  description: 'Lab audio: looping AAC stream from the audio origin, cover image from the images origin',
  kind: 'audio',
  lab: true,
  startUrl: labUrl(undefined, 'www', '/audio/'),
  activitySeconds: 40,
  assetRules: labAssetRules(),
  consent: { auto: false },
  steps: async ({ page, log, signal }) => {
    const wait = await waitForPlayback(page, { tag: 'audio', minSeconds: 2, timeoutMs: 45_000, signal });
    log(wait.playing ? `audio playing after ${wait.waitedMs} ms` : `audio not playing after ${wait.waitedMs} ms`);
  },
});
