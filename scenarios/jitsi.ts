import { clickFirstVisible, defineScenario, webrtcCounters, sleep } from 'ccbrowse';
import type { Page } from 'playwright-core';

// A video call on a public Jitsi Meet instance that allows anonymous rooms (Freifunk
// München's; meet.jit.si itself now requires a signed-in moderator to open a room).
// Two participants join a fresh random room from two tabs with Chromium's fake camera
// and microphone. Peer-to-peer mode is switched off in the URL, so both send their media
// through the instance's videobridge, across the bottleneck, instead of to each other.
const INSTANCE = 'https://meet.ffmuc.net';
const ROOM = `ccbrowse-${Math.random().toString(36).slice(2, 10)}`;

/** Jitsi reads config overrides from the URL fragment (values are JSON). */
function roomUrl(displayName: string): string {
  const overrides: Record<string, unknown> = {
    'config.prejoinConfig.enabled': false,
    'config.prejoinPageEnabled': false,
    'config.p2p.enabled': false,
    'config.startWithAudioMuted': false,
    'config.startWithVideoMuted': false,
    'config.disableDeepLinking': true,
    'userInfo.displayName': displayName,
  };
  const fragment = Object.entries(overrides).map(([k, v]) => `${k}=${encodeURIComponent(JSON.stringify(v))}`).join('&');
  return `${INSTANCE}/${ROOM}#${fragment}`;
}

/** Joins from whatever screen the instance shows: pre-join (name + button) or straight in. */
async function join(page: Page, name: string, log: (m: string) => void): Promise<void> {
  const nameInput = page.locator('#premeeting-name-input, input[placeholder*="name" i]').first();
  if (await nameInput.isVisible().catch(() => false)) {
    await nameInput.fill(name).catch(() => undefined);
    await clickFirstVisible(
      [page.locator('[data-testid="prejoin.joinMeeting"]'), page.getByRole('button', { name: /^\s*join( meeting)?\s*$/i })],
      { timeoutMs: 10_000 },
    );
  }
  const inMeeting = page.locator('[aria-label*="Leave" i], .hangup-button, #largeVideoContainer').first();
  const joined = await inMeeting.waitFor({ state: 'attached', timeout: 60_000 }).then(() => true, () => false);
  if (!joined) {
    const login = await page.getByText(/waiting for (the )?(moderator|host)|authentication required|log ?in/i).first().isVisible().catch(() => false);
    throw new Error(login
      ? `${INSTANCE} requires a signed-in moderator now: pick another public Jitsi instance in scenarios/jitsi.ts`
      : `${name} could not join ${INSTANCE}/${ROOM} within 60 s`);
  }
  log(`${name} joined ${INSTANCE}/${ROOM}`);
}

export default defineScenario({
  name: 'jitsi',
  description: 'Video call: two anonymous participants (fake camera + microphone) in a fresh Jitsi Meet room, via the videobridge',
  kind: 'call',
  startUrl: roomUrl('ccbrowse'),
  activitySeconds: 60,
  browser: {
    // Fake capture devices, and no permission prompt for them.
    args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    permissions: ['camera', 'microphone'],
    locale: 'en-US',
    viewport: { width: 1280, height: 720 },
  },
  consent: { timeoutMs: 2_000 },
  steps: async ({ page, context, log, signal }) => {
    await join(page, 'ccbrowse', log);
    // The second participant: until someone else is there, nothing is sent to the bridge.
    const guest = await context.newPage();
    await guest.goto(roomUrl('ccbrowse-guest'), { waitUntil: 'domcontentloaded', timeout: 45_000 });
    await join(guest, 'ccbrowse-guest', log);
    // Media should flow within seconds of the second join.
    const deadline = Date.now() + 30_000;
    let counters = await webrtcCounters(page);
    while (counters.bytesReceived === 0 && Date.now() < deadline && !signal?.aborted) {
      await sleep(1_000, signal);
      counters = await webrtcCounters(page);
    }
    log(`WebRTC: ${counters.connections} connection(s), ${counters.bytesSent} bytes sent, ${counters.bytesReceived} received`);
  },
});
