/**
 * The lab's sites and origins end to end: three real origins on loopback addresses, real
 * Chromium (system build, lab hostnames mapped by --host-resolver-rules, the lab leaf
 * accepted by SPKI pin) and, for the call, a second Chromium as the lab peer.
 * Assertions come from both sides: the page's window.__ccb and the origins' request logs.
 */
import { mkdir, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { connect, type IncomingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LAB_CERT_NAMES, ensureLabCerts, type LabCerts } from '../../src/lab/certs.js';
import { MAX_BULK_BYTES, readRequestLog, startOrigin, type RequestLogEntry, type RunningOrigin } from '../../src/lab/origin/index.js';
import { buildLabSites, type BuiltLabSites } from '../../src/lab/sites/build.js';
import { startCallPeer } from '../../src/lab/sites/call-peer.js';
import { CHROMIUM_PATH, labChromiumArgs, type HostMap } from '../../src/lab/sites/chromium.js';
import { VOD_IMAGES, VOD_THUMBS, WATCH_FILES } from '../../src/lab/sites/vod-page.js';

const SITES = 'build/lab/sites';
const LOGS = 'build/lab/test-logs';
const SHOTS = 'build/lab/screenshots';

let sites: BuiltLabSites;
let certs: LabCerts;
let ca: Buffer;
const origins: Record<'www' | 'media' | 'img', RunningOrigin | undefined> = { www: undefined, media: undefined, img: undefined };
let hosts: HostMap;
let browser: Browser | undefined;

const logOf = (name: string) => readRequestLog(join(LOGS, `${name}.jsonl`));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** GET over HTTP/2 with real certificate verification against the lab CA. */
function getH2(o: RunningOrigin, path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const session = connect(o.url, { ca, servername: 'www.lab.ccb.test' });
    session.on('error', reject);
    const req = session.request({ ':path': path, ...headers });
    const chunks: Buffer[] = [];
    let head: IncomingHttpHeaders = {};
    req.on('response', (h) => (head = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      session.close();
      resolve({ status: Number(head[':status']), headers: head, body: Buffer.concat(chunks) });
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET over HTTP/1.1 (TLS, ALPN http/1.1). */
function getH1(o: RunningOrigin, path: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: o.host, port: o.port, path, ca, servername: 'www.lab.ccb.test', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function ccb<T = Record<string, unknown>>(page: Page): Promise<T> {
  return page.evaluate(() => (window as unknown as { __ccb: T }).__ccb);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Opens a page and records failed requests and HTTP errors. */
async function openPage(url: string): Promise<{ page: Page; failures: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1000, height: 800 } });
  const failures: string[] = [];
  page.on('requestfailed', (r) => failures.push(`${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) failures.push(`${r.url()} HTTP ${r.status()}`);
  });
  await page.goto(url);
  return { page, failures };
}

const since = (entries: RequestLogEntry[], t: number) => entries.filter((e) => Date.parse(e.time) >= t);

beforeAll(async () => {
  sites = await buildLabSites(SITES);
  certs = await ensureLabCerts('build/lab/certs', DEFAULT_LAB_CERT_NAMES);
  ca = readFileSync(certs.caCertPath);
  await rm(LOGS, { recursive: true, force: true });
  await mkdir(LOGS, { recursive: true });
  await mkdir(SHOTS, { recursive: true });
  const start = (name: 'www' | 'media' | 'img', ip: string) =>
    startOrigin({ listen: `${ip}:0`, root: SITES, cert: certs.certPath, key: certs.keyPath, name, log: join(LOGS, `${name}.jsonl`) });
  // Three origins on three loopback addresses: pages, media (VOD, live, audio), images.
  // allSettled: whatever did start is recorded, so afterAll stops it even if one failed.
  const started = await Promise.allSettled([start('www', '127.0.0.1'), start('media', '127.0.0.2'), start('img', '127.0.0.3')]);
  [origins.www, origins.media, origins.img] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  for (const r of started) if (r.status === 'rejected') throw r.reason;
  const at = (o: RunningOrigin) => `${o.host}:${o.port}`;
  hosts = {
    'www.lab.ccb.test': at(origins.www!),
    'media.lab.ccb.test': at(origins.media!),
    'live.lab.ccb.test': at(origins.media!),
    'audio.lab.ccb.test': at(origins.media!),
    'img.lab.ccb.test': at(origins.img!),
  };
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: labChromiumArgs({ hosts, spki: [certs.spki], webrtcLoopback: true }),
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(Object.values(origins).map((o) => o?.stop()));
});

describe('lab origin', () => {
  it('/bytes/N returns exactly N bytes over HTTP/2 and HTTP/1.1, bad N gets 400', async () => {
    const o = origins.media!;
    const h2 = await getH2(o, '/bytes/1234567');
    expect(h2.status).toBe(200);
    expect(h2.body.length).toBe(1234567);
    expect(h2.headers['content-length']).toBe('1234567');
    const h1 = await getH1(o, '/bytes/70000');
    expect(h1.status).toBe(200);
    expect(h1.body.length).toBe(70000);
    expect((await getH2(o, '/bytes/0')).body.length).toBe(0);
    for (const bad of ['abc', '-5', '1e6', '12.5', String(MAX_BULK_BYTES + 1), '']) {
      expect((await getH2(o, `/bytes/${bad}`)).status, `N="${bad}"`).toBe(400);
    }
    const log = await logOf('media');
    const served = log.filter((e) => e.path === '/bytes/1234567' || e.path === '/bytes/70000');
    expect(served.map((e) => [e.protocol, e.bytes]).sort()).toEqual([['h2', 1234567], ['http/1.1', 70000]]);
    expect(served.every((e) => /^127\.0\.0\.\d+:\d+$/.test(e.remote))).toBe(true);
  });

  it('startOrigin fails clearly when the server cannot start', async () => {
    await expect(startOrigin({ listen: '127.0.0.1:0', root: SITES, cert: 'build/lab/nope.pem', key: certs.keyPath })).rejects.toThrow(/exited before it was ready/);
    await expect(startOrigin({ listen: 'nowhere:1', root: SITES, cert: certs.certPath, key: certs.keyPath })).rejects.toThrow(/IP:PORT/);
  });

  it('serves files with MIME types, Range, open CORS and no caching; /health', async () => {
    const o = origins.www!;
    const init = sites.manifest.video[0];
    const full = await getH2(o, `/media/vod/${init.segments[0]}`);
    expect(full.headers['content-type']).toBe('video/iso.segment');
    expect(full.headers['access-control-allow-origin']).toBe('*');
    expect(full.headers['cache-control']).toBe('no-store');
    const part = await getH2(o, `/media/vod/${init.segments[0]}`, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${full.body.length}`);
    expect(part.body.equals(full.body.subarray(100, 200))).toBe(true);
    expect((await getH2(o, '/media/vod/manifest.json', { range: 'bytes=99999999-' })).status).toBe(416);
    expect((await getH2(o, '/static/fonts/LabSerif.ttf')).headers['content-type']).toBe('font/ttf');
    expect((await getH2(o, '/nope.html')).status).toBe(404);
    const health = JSON.parse((await getH1(o, '/health')).body.toString()) as { ok: boolean; name: string; pid: number };
    expect(health).toMatchObject({ ok: true, name: 'www', pid: o.pid });
  });
});

describe('lab sites in Chromium', () => {
  it('static page loads >= 1 MB (fonts, scripts, images from the images origin) with no failures', async () => {
    const t0 = Date.now();
    const { page, failures } = await openPage('https://www.lab.ccb.test/static/');
    await page.waitForFunction(() => (window as unknown as { __ccb: { ready?: boolean } }).__ccb.ready === true, undefined, { timeout: 30_000 });
    const s = await ccb<{ scripts: string[]; imagesLoaded: number; images: number; fontsLoaded: number; errors: string[] }>(page);
    await shot(page, 'static');
    await page.close();
    expect(failures).toEqual([]);
    expect(s.errors).toEqual([]);
    expect(s.scripts.sort()).toEqual(['app', 'vendor-analytics', 'vendor-framework', 'widgets']);
    expect(s.images).toBeGreaterThanOrEqual(10);
    expect(s.imagesLoaded).toBe(s.images);
    expect(s.fontsLoaded).toBe(2);

    await sleep(300); // log lines are written when each response closes
    const www = since(await logOf('www'), t0).filter((e) => e.path.startsWith('/static/'));
    const img = since(await logOf('img'), t0).filter((e) => e.path.startsWith('/img/'));
    const total = [...www, ...img].reduce((n, e) => n + e.bytes, 0);
    expect(total).toBeGreaterThanOrEqual(1_000_000);
    expect(img.length).toBe(s.images);
    expect(www.every((e) => e.protocol === 'h2' && e.status === 200 && !e.aborted)).toBe(true);
  });

  it('VOD plays past 5 s with its segments from the media origin', async () => {
    const t0 = Date.now();
    const { page, failures } = await openPage('https://www.lab.ccb.test/vod/');
    await page.waitForFunction(() => (window as unknown as { __ccb: { currentTime?: number } }).__ccb.currentTime! > 5.5, undefined, { timeout: 40_000 });
    type Watch = { scripts: string[]; style: boolean; images: number; imagesLoaded: number; poster: boolean; comments: number; ready: boolean };
    await page.waitForFunction(() => {
      const w = (window as unknown as { __ccb: { watch?: Watch } }).__ccb.watch;
      return !!w && w.ready && w.style && w.poster && w.imagesLoaded === w.images;
    }, undefined, { timeout: 20_000 });
    const s = await ccb<{ currentTime: number; errors: string[]; state: string; segments: number; rendition: string; watch: Watch }>(page);
    await shot(page, 'vod');
    await page.close();
    expect(s.errors).toEqual([]);
    expect(s.state).toBe('playing');
    expect(failures).toEqual([]);
    // The watch page around the player: both bundles ran, poster, storyboards and thumbnails loaded.
    expect(s.watch.scripts).toEqual(['ui-vendor', 'watch-app']);
    expect(s.watch.comments).toBeGreaterThan(100);
    expect(s.watch.images).toBe(VOD_IMAGES.storyboards.length + VOD_THUMBS);
    await sleep(300); // log lines are written when each response closes
    // Heavy enough to classify each origin's flow, and each origin's part on one connection.
    const app = since(await logOf('www'), t0).filter((e) => e.path.startsWith('/vod/watch/') && e.path !== `/${WATCH_FILES.loader}`);
    expect(app.map((e) => e.path).sort()).toEqual([WATCH_FILES.style, ...WATCH_FILES.scripts].map((f) => `/${f}`).sort());
    expect(app.reduce((n, e) => n + e.bytes, 0)).toBeGreaterThanOrEqual(400_000);
    expect(new Set(app.map((e) => e.remote)).size).toBe(1);
    const pics = since(await logOf('img'), t0).filter((e) => e.path.startsWith('/img/'));
    expect(pics.length).toBe(1 + VOD_IMAGES.storyboards.length + VOD_THUMBS);
    expect(pics.reduce((n, e) => n + e.bytes, 0)).toBeGreaterThanOrEqual(550_000);
    expect(new Set(pics.map((e) => e.remote)).size).toBe(1);
    const media = since(await logOf('media'), t0).filter((e) => e.path.endsWith('.m4s'));
    const www = since(await logOf('www'), t0).filter((e) => e.path.endsWith('.m4s'));
    expect(media.length).toBeGreaterThanOrEqual(6); // >= 3 video + 3 audio segments
    expect(media.some((e) => sites.manifest.audio[0].segments.some((a) => e.path.endsWith(a)))).toBe(true);
    expect(www).toEqual([]);
    expect(sites.manifest.video.map((v) => v.id)).toContain(s.rendition);
  });

  it('live manifest moves with the wall clock and playback follows it', async () => {
    const first = JSON.parse((await getH2(origins.media!, '/live/manifest.json')).body.toString()) as { liveEdgeSeq: number; segmentDuration: number };
    await sleep(first.segmentDuration * 1000 + 200);
    const second = JSON.parse((await getH2(origins.media!, '/live/manifest.json')).body.toString()) as { liveEdgeSeq: number };
    expect(second.liveEdgeSeq).toBeGreaterThan(first.liveEdgeSeq);

    const { page, failures } = await openPage('https://www.lab.ccb.test/live/');
    type Live = { currentTime: number; state: string; liveEdgeSeq: number; manifestFetches: number; errors: string[] };
    await page.waitForFunction(() => (window as unknown as { __ccb: { state?: string } }).__ccb.state === 'playing', undefined, { timeout: 30_000 });
    const a = await ccb<Live>(page);
    await sleep(5000);
    const b = await ccb<Live>(page);
    await shot(page, 'live');
    await page.close();
    expect(b.errors).toEqual([]);
    expect(failures).toEqual([]);
    expect(b.currentTime - a.currentTime).toBeGreaterThan(3.5);
    expect(b.liveEdgeSeq).toBeGreaterThan(a.liveEdgeSeq);
    expect(b.manifestFetches).toBeGreaterThan(a.manifestFetches);
    // Playback time is live time: within a few segments of the wall clock's live edge.
    expect(Math.abs(b.currentTime - b.liveEdgeSeq * first.segmentDuration)).toBeLessThan(5 * first.segmentDuration);
  });

  it('audio-only page plays and fetches only audio segments', async () => {
    const t0 = Date.now();
    const { page, failures } = await openPage('https://www.lab.ccb.test/audio/');
    await page.waitForFunction(() => (window as unknown as { __ccb: { currentTime?: number } }).__ccb.currentTime! > 3, undefined, { timeout: 30_000 });
    const s = await ccb<{ errors: string[]; state: string }>(page);
    expect(await page.locator('video').count()).toBe(0);
    await shot(page, 'audio');
    await page.close();
    expect(s.errors).toEqual([]);
    expect(s.state).toBe('playing');
    expect(failures).toEqual([]);
    const segs = since(await logOf('media'), t0).filter((e) => e.path.endsWith('.m4s'));
    const audio = new Set(sites.manifest.audio[0].segments);
    expect(segs.length).toBeGreaterThan(0);
    expect(segs.every((e) => audio.has(e.path.split('/').pop()!))).toBe(true);
  });

  it('call: media flows both ways between the page and the lab peer, over loopback', async () => {
    const room = `t${process.pid}`;
    const peer = await startCallPeer({
      callPageUrl: 'https://www.lab.ccb.test/call/?ice=127.',
      room,
      chromiumArgs: labChromiumArgs({ hosts, spki: [certs.spki], webrtcLoopback: true, fakeMedia: true }),
    });
    try {
      const { page, failures } = await openPage(`https://www.lab.ccb.test/call/?room=${room}&ice=127.`);
      type Call = { state: string; bytesSent: number; bytesReceived: number; framesDecoded: number; path?: string; errors: string[] };
      await page.waitForFunction(
        () => {
          const s = (window as unknown as { __ccb: { bytesSent: number; bytesReceived: number } }).__ccb;
          return s.bytesSent > 20_000 && s.bytesReceived > 20_000;
        },
        undefined,
        { timeout: 30_000 },
      );
      const a = await ccb<Call>(page);
      const pa = await peer.status();
      await sleep(2500);
      const b = await ccb<Call>(page);
      const pb = await peer.status();
      await shot(page, 'call');
      await page.close();
      expect(failures).toEqual([]);
      expect([...b.errors, ...pb.errors]).toEqual([]);
      expect(b.state).toBe('connected');
      expect(b.bytesSent).toBeGreaterThan(a.bytesSent);
      expect(b.bytesReceived).toBeGreaterThan(a.bytesReceived);
      expect(b.framesDecoded).toBeGreaterThan(a.framesDecoded);
      expect(pb.bytesSent).toBeGreaterThan(pa.bytesSent);
      expect(pb.bytesReceived).toBeGreaterThan(pa.bytesReceived);
      expect(b.path).toMatch(/^127\.\d+\.\d+\.\d+:\d+ udp -> 127\./);
    } finally {
      await peer.stop();
    }
    await sleep(300);
    const ws = (await logOf('www')).filter((e) => e.protocol === 'websocket' && e.path.includes(room));
    expect(ws.length).toBe(2); // both peers joined through the origin's /signal, and left
    expect(ws.every((e) => e.bytes > 0)).toBe(true);
  });
});
