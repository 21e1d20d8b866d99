import { defineScenario, labUrl } from 'ccbrowse';

// The lab's WebRTC call. The page is the caller; the SESSION starts the answering peer
// (src/lab/sites/call-peer.ts, startCallPeer) in the lab's server namespace, in room
// ctx.lab.callRoom (default "lab"), so the media crosses the bottleneck. The caller makes
// its media from a canvas and an oscillator: no camera flags needed here.
export default defineScenario({
  name: 'lab-call',
  description: 'Lab video call: WebRTC with the lab peer, signalling over WebSocket on the page origin',
  kind: 'call',
  lab: true,
  startUrl: labUrl(undefined, 'www', '/call/'),
  activitySeconds: 40,
  consent: { auto: false },
  steps: async ({ page, log, lab }) => {
    const room = lab?.callRoom ?? 'lab';
    const connected = await page
      .waitForFunction("window.__ccb && window.__ccb.state === 'connected'", undefined, { timeout: 45_000 })
      .then(() => true, () => false);
    if (!connected) {
      const state = await page.evaluate('JSON.stringify(window.__ccb || null)').catch(() => 'unknown');
      throw new Error(`the lab call never connected in room "${room}" (page status ${String(state)}): ` +
        'is the call peer running (startCallPeer) and in the same room?');
    }
    log(`call connected in room "${room}"`);
  },
});
