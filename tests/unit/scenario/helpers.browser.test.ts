/**
 * The step helpers and runScenario against real (system) Chromium and pages served on
 * loopback: consent dialogs in frames, media that must be started, stalls, outcomes.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acceptConsent, ensurePlaying, installPageHooks, keepActivity, sampleMedia, waitForPlayback, webrtcCounters } from '../../../src/scenario/helpers.js';
import { runScenario } from '../../../src/scenario/run.js';
import { parseScenario } from '../../../src/scenario/load.js';
import type { ScenarioSteps } from '../../../src/scenario/define.js';

const CHROMIUM = '/usr/lib/chromium/chromium';

// A canvas stream: a <video> whose currentTime advances without any media file.
const CANVAS_VIDEO = `<canvas id="c" width="64" height="48"></canvas><video id="v" muted playsinline width="320" height="240"></video>
<script>
const c = document.getElementById('c'); const g = c.getContext('2d'); let n = 0;
setInterval(() => { g.fillStyle = 'hsl(' + (n++ * 7) % 360 + ' 60% 50%)'; g.fillRect(0, 0, 64, 48); }, 40);
document.getElementById('v').srcObject = c.captureStream(25);
</script>`;

const PAGES: Record<string, string> = {
  '/consent': `<main><h1>News</h1><p>Do you accept all of this?</p><button onclick="document.body.dataset.wrong=1">OK</button>
    <button onclick="document.body.dataset.wrong=1">Do not accept all</button>
    <iframe src="/cmp-frame" width="400" height="200"></iframe></main>`,
  '/cmp-frame': `<div class="message"><p>We use cookies.</p>
    <button onclick="document.body.dataset.accepted='frame'; this.parentNode.remove()">Alle akzeptieren</button></div>`,
  '/consent-plain': `<div id="cookie-banner"><p>Cookies?</p><button onclick="document.body.dataset.accepted='plain'; this.parentNode.hidden = true">Accept</button></div>`,
  // Its URL says "consent", which must not make every "OK" on it a consent button.
  '/no-consent': `<main><p>Nothing to accept.</p><button onclick="document.body.dataset.wrong=1">OK</button></main>`,
  // A consent page in a CMP-looking frame where a plain "OK" is the accept button.
  '/privacy-mgmt/frame': `<p>Your privacy</p><button onclick="document.body.dataset.accepted='ok'; this.remove()">OK</button>`,
  '/site-button': `<p>Welcome</p><button onclick="document.body.dataset.accepted='site'; this.remove()">Sure (all of it)</button>`,
  '/with-cmp-frame': `<p>Article</p><iframe src="/privacy-mgmt/frame"></iframe>`,
  '/video-paused': CANVAS_VIDEO,
  '/video-autoplay': CANVAS_VIDEO.replace('muted playsinline', 'muted autoplay playsinline'),
  '/detached-audio': `<script>
    const ac = new AudioContext(); const o = ac.createOscillator(); const d = ac.createMediaStreamDestination(); o.connect(d); o.start();
    window.radio = new Audio(); window.radio.srcObject = d.stream; window.radio.muted = true; window.radio.play().catch(() => {});
  </script><p>radio</p>`,
  '/pausing-video': `${CANVAS_VIDEO}<script>const v = document.getElementById('v'); v.play(); setTimeout(() => v.pause(), 700);</script>`,
  '/empty': '<p>no media here</p>',
  '/webrtc': `<script>
    (async () => {
      const a = new RTCPeerConnection(); const b = new RTCPeerConnection();
      a.onicecandidate = (e) => e.candidate && b.addIceCandidate(e.candidate);
      b.onicecandidate = (e) => e.candidate && a.addIceCandidate(e.candidate);
      const ch = a.createDataChannel('x');
      ch.onopen = () => setInterval(() => ch.send('x'.repeat(1000)), 50);
      await a.setLocalDescription(); await b.setRemoteDescription(a.localDescription);
      await b.setLocalDescription(); await a.setRemoteDescription(b.localDescription);
    })();
  </script>`,
};

const haveChromium = existsSync(CHROMIUM);
let browser: Browser;
let server: Server;
let base = '';
let context: BrowserContext | undefined;

beforeAll(async () => {
  if (!haveChromium) return;
  server = createServer((req, res) => {
    const body = PAGES[(req.url ?? '/').split('?')[0]];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ? `<!doctype html><html lang="en"><body>${body}</body></html>` : 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const args = ['--autoplay-policy=no-user-gesture-required', '--allow-loopback-in-peer-connection'];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
});

async function open(path: string, hooks = true): Promise<Page> {
  context = await browser.newContext();
  if (hooks) await installPageHooks(context);
  const page = await context.newPage();
  await page.goto(base + path);
  return page;
}

const d = haveChromium ? describe : describe.skip;

d('consent', () => {
  it('clicks "accept all" in another language inside an iframe, and nothing else', async () => {
    const page = await open('/consent');
    const r = await acceptConsent(page, { timeoutMs: 5_000 });
    expect(r.clicked).toBe(1);
    expect(r.via[0]).toMatch(/cmp-frame/);
    const frame = page.frames().find((f) => f.url().endsWith('/cmp-frame'))!;
    expect(await frame.evaluate(() => document.body.dataset.accepted)).toBe('frame');
    expect(await page.evaluate(() => document.body.dataset.wrong)).toBeUndefined();
  });

  it('clicks a plain "Accept" only inside a cookie banner', async () => {
    const page = await open('/consent-plain');
    expect((await acceptConsent(page, { timeoutMs: 2_000 })).clicked).toBe(1);
    expect(await page.evaluate(() => document.body.dataset.accepted)).toBe('plain');
  });

  it('clicks a site\'s own button by its literal name (regex characters escaped)', async () => {
    const page = await open('/site-button');
    expect((await acceptConsent(page, { timeoutMs: 0 })).clicked).toBe(0);
    const r = await acceptConsent(page, { timeoutMs: 2_000, buttons: ['Sure (all of it)'] });
    expect(r.via[0]).toMatch(/Sure \(all of it\)/);
    expect(await page.evaluate(() => document.body.dataset.accepted)).toBe('site');
  });

  it('clicks a plain "OK" inside a CMP frame', async () => {
    const page = await open('/with-cmp-frame');
    const r = await acceptConsent(page, { timeoutMs: 3_000 });
    expect(r.clicked).toBe(1);
    const frame = page.frames().find((f) => f.url().includes('privacy-mgmt'))!;
    expect(await frame.evaluate(() => document.body.dataset.accepted)).toBe('ok');
  });

  it('returns quietly, within its time limit, when there is no dialog', async () => {
    const page = await open('/no-consent');
    const t0 = Date.now();
    const r = await acceptConsent(page, { timeoutMs: 1_500 });
    expect(r).toEqual({ clicked: 0, via: [] });
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(await page.evaluate(() => document.body.dataset.wrong)).toBeUndefined();
  });
});

d('media', () => {
  it('starts a paused video and sees it advance', async () => {
    const page = await open('/video-paused');
    expect((await sampleMedia(page))[0]).toMatchObject({ tag: 'video', paused: true });
    expect(await ensurePlaying(page)).toBe(true);
    const w = await waitForPlayback(page, { minSeconds: 1, timeoutMs: 10_000 });
    expect(w.playing).toBe(true);
    expect(w.advancedSeconds).toBeGreaterThanOrEqual(1);
  });

  it('reports no playback (without throwing) on a page without media', async () => {
    const page = await open('/empty');
    const w = await waitForPlayback(page, { timeoutMs: 1_500, retryPlayMs: 0 });
    expect(w).toMatchObject({ playing: false, elements: 0 });
  });

  it('sees media elements that were never attached to the document', async () => {
    const page = await open('/detached-audio');
    await page.waitForTimeout(300);
    const media = await sampleMedia(page);
    expect(media.some((m) => m.tag === 'audio')).toBe(true);
    // Without the hooks, querySelectorAll cannot see it.
    const bare = await open('/detached-audio', false);
    expect((await sampleMedia(bare)).length).toBe(0);
  });

  it('keeps playback going, resumes a pause, and counts played seconds', async () => {
    const page = await open('/pausing-video');
    const a = await keepActivity(page, 4, { intervalMs: 500 });
    expect(a.resumes).toBeGreaterThanOrEqual(1);
    expect(a.playedSeconds).toBeGreaterThan(1.5);
    expect(a.seconds).toBeGreaterThanOrEqual(4);
    expect(a.seconds).toBeLessThan(10);
    const withoutResume = await open('/pausing-video');
    const b = await keepActivity(withoutResume, 3, { intervalMs: 500, resume: false });
    expect(b.resumes).toBe(0);
    expect(b.pausedSeconds).toBeGreaterThan(1);
  });

  it('reads WebRTC byte counters', async () => {
    const page = await open('/webrtc');
    let c = await webrtcCounters(page);
    for (let i = 0; i < 20 && c.bytesReceived === 0; i++) {
      await page.waitForTimeout(250);
      c = await webrtcCounters(page);
    }
    expect(c.connections).toBe(2);
    expect(c.bytesSent).toBeGreaterThan(0);
    expect(c.bytesReceived).toBeGreaterThan(0);
  });
});

d('runScenario outcomes', () => {
  const make = (path: string, steps: ScenarioSteps, extra: Record<string, unknown> = {}) =>
    parseScenario({ name: 't', kind: 'vod', startUrl: base + path, steps, activitySeconds: 3, consent: { auto: false }, ...extra }, 't.ts');
  async function fresh(): Promise<{ page: Page; context: BrowserContext }> {
    context = await browser.newContext();
    return { page: await context.newPage(), context };
  }

  it('ok when the video plays through the activity period', async () => {
    const logs: string[] = [];
    const o = await runScenario(make('/video-autoplay', async ({ page }) => {
      await waitForPlayback(page, { timeoutMs: 10_000 });
    }), await fresh(), { log: (m) => logs.push(m) });
    expect(o.status).toBe('ok');
    expect(o.activity!.playedSeconds).toBeGreaterThan(1.5);
    expect(logs.some((l) => l.startsWith('opening '))).toBe(true);
  });

  it('no-activity when a media scenario never plays', async () => {
    const o = await runScenario(make('/empty', async () => {}), await fresh());
    expect(o.status).toBe('no-activity');
    expect(o.detail).toMatch(/no media element/);
  });

  it('steps-failed with the error when the steps throw', async () => {
    const o = await runScenario(make('/empty', async () => {
      throw new Error('play button not found');
    }), await fresh());
    expect(o).toMatchObject({ status: 'steps-failed', error: 'play button not found' });
    expect(o.activity).toBeUndefined();
  });

  it('steps-timeout when the steps hang, and aborts their signal', async () => {
    let aborted = false;
    const o = await runScenario(make('/empty', ({ signal }) => new Promise<void>(() => {
      signal?.addEventListener('abort', () => (aborted = true));
    }), { timeouts: { stepsMs: 1_000 } }), await fresh());
    expect(o.status).toBe('steps-timeout');
    expect(aborted).toBe(true);
  });

  it('navigation-failed when the site never answers', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const s = parseScenario({ name: 't', kind: 'static', startUrl: `http://127.0.0.1:${port}/`, steps: async () => {}, consent: { auto: false } }, 't.ts');
    const o = await runScenario(s, await fresh());
    expect(o.status).toBe('navigation-failed');
    expect(o.error).toMatch(/ERR_CONNECTION_REFUSED/);
  });
});
