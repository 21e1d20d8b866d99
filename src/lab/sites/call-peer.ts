/**
 * The lab's call peer: a second headless Chromium (fake camera and microphone) that opens
 * the call page as role=peer and answers whoever joins the room. Driven by playwright-core
 * with the system Chromium; never downloads a browser.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { CcbError } from '../../util/errors.js';
import { CHROMIUM_PATH, SIGNALS_ARE_OURS } from '../../browser/chromium.js';

export interface CallPeerOptions {
  /** URL of the call page, e.g. https://www.lab.ccb.test/call/ (query parameters kept). */
  callPageUrl: string;
  room?: string;
  /** Flags from labChromiumArgs({ ..., fakeMedia: true }). */
  chromiumArgs: string[];
  executablePath?: string;
  /** How long to wait for the page to join the signalling room (default 20 s). */
  joinTimeoutMs?: number;
}

export interface CallStatus {
  state: string;
  signaling: string;
  connection: string;
  bytesSent: number;
  bytesReceived: number;
  framesDecoded: number;
  /** The selected ICE candidate pair, "local:port udp -> remote:port". */
  path?: string;
  errors: string[];
}

export interface CallPeer {
  page: Page;
  status(): Promise<CallStatus>;
  stop(): Promise<void>;
}

export async function startCallPeer(opts: CallPeerOptions): Promise<CallPeer> {
  const url = new URL(opts.callPageUrl);
  url.searchParams.set('role', 'peer');
  url.searchParams.set('room', opts.room ?? 'lab');
  const args = [...opts.chromiumArgs];
  for (const flag of ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']) {
    if (!args.includes(flag)) args.push(flag);
  }
  const browser: Browser = await chromium.launch({ ...SIGNALS_ARE_OURS, executablePath: opts.executablePath ?? CHROMIUM_PATH, headless: true, args });
  try {
    const page = await browser.newPage();
    // A namespace whose links just came up may still be settling its IPv6 link-local
    // addresses: Chromium then aborts with ERR_NETWORK_CHANGED. One retry covers it.
    await page.goto(url.href).catch(async (err: Error) => {
      if (!/ERR_NETWORK_CHANGED/.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 1500));
      await page.goto(url.href);
    });
    await page.waitForFunction(() => (window as unknown as { __ccb?: { signaling?: string } }).__ccb?.signaling === 'open', undefined, {
      timeout: opts.joinTimeoutMs ?? 20_000,
    });
    return {
      page,
      status: () => page.evaluate(() => (window as unknown as { __ccb: CallStatus }).__ccb),
      stop: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw new CcbError(`lab call peer could not join ${url.href}: ${(err as Error).message}`);
  }
}
