/**
 * Media and calls in the page: sample every <video>/<audio> (attached or not), get the main
 * one playing, wait for it to advance, read WebRTC byte counters. Never throws for what
 * the page lacks; returns what it saw.
 */
import type { Locator, Page } from 'playwright-core';
import type { MediaSample } from './progress.js';
import { clickFirstVisible, sleep, visibleNow } from './page-util.js';

interface RawMedia {
  i: number;
  tag: 'video' | 'audio';
  currentTime: number;
  paused: boolean;
  ended: boolean;
  readyState: number;
  area: number;
}

/** Every media element of a frame: attached ones and detached ones that were played. */
const MEDIA_LIST = `(() => {
  const els = new Set(document.querySelectorAll('video, audio'));
  if (window.__ccbMedia) for (const m of window.__ccbMedia) els.add(m);
  return [...els];
})()`;

const SAMPLE_SCRIPT = `${MEDIA_LIST}.map((m, i) => ({
  i, tag: m.tagName === 'AUDIO' ? 'audio' : 'video', currentTime: Number(m.currentTime) || 0, paused: m.paused,
  ended: m.ended, readyState: m.readyState, area: m.tagName === 'VIDEO' ? m.clientWidth * m.clientHeight : 0,
}))`;

/** Media elements of every frame of the page, keyed "frame:element". Never throws. */
export async function sampleMedia(page: Page): Promise<MediaSample[]> {
  if (page.isClosed()) return [];
  const frames = page.frames();
  const perFrame = await Promise.all(
    frames.map((f) => (f.isDetached() ? Promise.resolve([]) : (f.evaluate(SAMPLE_SCRIPT) as Promise<RawMedia[]>).catch(() => []))),
  );
  return perFrame.flatMap((list, fi) =>
    list.map((m) => ({ key: `${fi}:${m.i}`, tag: m.tag, currentTime: m.currentTime, paused: m.paused, ended: m.ended, readyState: m.readyState })),
  );
}

/** Muted play() on the main element (largest video, else an audio), with a time limit. */
const PLAY_SCRIPT = `(async () => {
  const all = ${MEDIA_LIST}.filter((m) => !m.ended);
  const videos = all.filter((m) => m.tagName === 'VIDEO').sort((a, b) => b.clientWidth * b.clientHeight - a.clientWidth * a.clientHeight);
  const m = videos[0] || all[0];
  if (!m) return 'none';
  if (!m.paused) return 'playing';
  m.muted = true; // autoplay policy: muted playback never needs a gesture
  try {
    await Promise.race([m.play(), new Promise((_, rej) => setTimeout(() => rej(new Error('play() timed out')), 3000))]);
    return 'playing';
  } catch (e) {
    return 'rejected: ' + (e && e.message ? e.message : e);
  }
})()`;

/** Play buttons of common players, and by accessible name. */
const PLAY_SELECTORS = [
  '.ytp-large-play-button', 'button.ytp-play-button[data-title-no-tooltip="Play"]', '[data-a-target="player-play-pause-button"][aria-label*="Play" i]',
  '.vjs-big-play-button', '.jw-icon-display[aria-label*="Play" i]', '.plyr__control--overlaid', '.shaka-play-button',
  'button[aria-label="Play" i]', 'button[title="Play" i]',
].join(', ');
const PLAY_NAMES = /^\s*(play|play video|play stream|listen|listen live|listen now|start|abspielen|wiedergabe|anhören|lire|écouter|reproducir|escuchar|riproduci|ascolta|afspelen|luister|reproduzir|ouvir|odtwórz|spela|spill|toista|přehrát|oynat|воспроизвести|слушать|再生|재생|播放)\b/i;

export interface EnsurePlayingOptions {
  /** Extra play buttons of the site, tried first. */
  playButtons?: Locator[];
  log?: (msg: string) => void;
}

/**
 * Gets the page's main media element playing: muted play() first, then a play button
 * (site's, common players', by name), then a click on the video itself. Returns whether
 * something is playing (not paused) afterwards. Never throws.
 */
export async function ensurePlaying(page: Page, opts: EnsurePlayingOptions = {}): Promise<boolean> {
  const isPlaying = async () => (await sampleMedia(page)).some((m) => !m.paused && !m.ended);
  try {
    if (page.isClosed()) return false;
    for (const f of page.frames()) {
      if (f.isDetached()) continue;
      const r = (await f.evaluate(PLAY_SCRIPT).catch(() => 'none')) as string;
      if (r.startsWith('rejected')) opts.log?.(`play(): ${r}`);
    }
    if (await isPlaying()) return true;
    const clicked = await clickFirstVisible(
      [...(opts.playButtons ?? []), page.locator(PLAY_SELECTORS), page.getByRole('button', { name: PLAY_NAMES })],
      { timeoutMs: 0 },
    );
    if (clicked >= 0) {
      opts.log?.('clicked a play button');
      await sleep(1_000);
      if (await isPlaying()) return true;
    }
    // Last resort: many players start on a click anywhere on the video.
    const video = page.locator('video').first();
    if (await visibleNow(video)) {
      await video.click({ timeout: 2_000, force: true }).catch(() => undefined);
      await sleep(1_000);
    }
    return await isPlaying();
  } catch {
    return false;
  }
}

export interface WaitForPlaybackOptions {
  /** Seconds currentTime must advance (default 1). */
  minSeconds?: number;
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Only count this kind of element. */
  tag?: 'video' | 'audio';
  /** Call ensurePlaying() when nothing moves for this long (default 5 s; 0 = never). */
  retryPlayMs?: number;
  playButtons?: Locator[];
  log?: (msg: string) => void;
  signal?: AbortSignal;
}

export interface PlaybackWait {
  playing: boolean;
  /** How far the most-advanced element moved while we watched. */
  advancedSeconds: number;
  waitedMs: number;
  /** How many media elements were seen. */
  elements: number;
}

/**
 * Waits until some media element's currentTime has advanced by `minSeconds`, nudging it
 * with ensurePlaying() when stuck. Returns what it saw; the caller decides whether no
 * playback is fatal (scenarios usually log it: the run's outcome records it anyway).
 */
export async function waitForPlayback(page: Page, opts: WaitForPlaybackOptions = {}): Promise<PlaybackWait> {
  const start = Date.now();
  const minSeconds = opts.minSeconds ?? 1;
  const retryMs = opts.retryPlayMs ?? 5_000;
  const first = new Map<string, number>();
  let advanced = 0;
  let elements = 0;
  let lastProgressAt = start;
  let lastRetryAt = start;
  while (!opts.signal?.aborted && !page.isClosed()) {
    const samples = (await sampleMedia(page)).filter((m) => !opts.tag || m.tag === opts.tag);
    elements = Math.max(elements, samples.length);
    for (const s of samples) {
      const base = first.get(s.key);
      if (base === undefined || s.currentTime < base) first.set(s.key, s.currentTime); // new element, or looped/seeked back
      else if (s.currentTime - base > advanced) {
        advanced = s.currentTime - base;
        lastProgressAt = Date.now();
      }
    }
    if (advanced >= minSeconds) break;
    const now = Date.now();
    if (now - start >= (opts.timeoutMs ?? 30_000)) break;
    if (retryMs > 0 && now - lastProgressAt >= retryMs && now - lastRetryAt >= retryMs) {
      lastRetryAt = now;
      await ensurePlaying(page, { playButtons: opts.playButtons, log: opts.log });
    }
    await sleep(500, opts.signal);
  }
  return { playing: advanced >= minSeconds, advancedSeconds: advanced, waitedMs: Date.now() - start, elements };
}

// ---------------------------------------------------------------------------------------
// WebRTC

export interface WebRtcCounters {
  /** Peer connections created on the page (needs installPageHooks before navigation). */
  connections: number;
  connected: number;
  bytesSent: number;
  bytesReceived: number;
}

const WEBRTC_SCRIPT = `(async () => {
  const pcs = window.__ccbPeerConnections || [];
  const out = { connections: pcs.length, connected: 0, bytesSent: 0, bytesReceived: 0 };
  for (const pc of pcs) {
    if (pc.connectionState === 'connected') out.connected++;
    if (pc.connectionState === 'closed') continue;
    try {
      const stats = await pc.getStats();
      stats.forEach((s) => {
        if (s.type === 'transport') { out.bytesSent += s.bytesSent || 0; out.bytesReceived += s.bytesReceived || 0; }
      });
    } catch (e) { /* closing */ }
  }
  return out;
})()`;

/** Byte counters of the page's WebRTC connections (all frames). Never throws. */
export async function webrtcCounters(page: Page): Promise<WebRtcCounters> {
  const total: WebRtcCounters = { connections: 0, connected: 0, bytesSent: 0, bytesReceived: 0 };
  if (page.isClosed()) return total;
  for (const f of page.frames()) {
    if (f.isDetached()) continue;
    const c = (await f.evaluate(WEBRTC_SCRIPT).catch(() => null)) as WebRtcCounters | null;
    if (!c) continue;
    total.connections += c.connections;
    total.connected += c.connected;
    total.bytesSent += c.bytesSent;
    total.bytesReceived += c.bytesReceived;
  }
  return total;
}
