/**
 * Small page utilities the step helpers share, and the page hooks they rely on. In-page
 * code is passed as strings: tsx compiles scenario files (and these modules, when a
 * scenario imports them) with esbuild's keepNames, which wraps inner functions in
 * __name(), a helper that does not exist inside the page.
 */
import type { BrowserContext, Locator } from 'playwright-core';

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0] : String(err);
}

/** Visible right now (no waiting); false on any error (detached frame, bad selector). */
export async function visibleNow(loc: Locator): Promise<boolean> {
  try {
    return await loc.isVisible();
  } catch {
    return false;
  }
}

/**
 * Clicks the first candidate that is visible, trying them in order, until one is or
 * `timeoutMs` passes. Returns the index clicked, or -1. Never throws.
 */
export async function clickFirstVisible(candidates: Locator[], opts: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal } = {}): Promise<number> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  for (;;) {
    for (let i = 0; i < candidates.length; i++) {
      const loc = candidates[i].first();
      if (!(await visibleNow(loc))) continue;
      try {
        await loc.click({ timeout: 3_000 });
        return i;
      } catch {
        // covered by an overlay, detached, ...: try the next one
      }
    }
    if (Date.now() >= deadline || opts.signal?.aborted) return -1;
    await sleep(opts.pollMs ?? 400, opts.signal);
  }
}

/** A script that runs in the page and in every frame at document start (strings: see top). */
const PAGE_HOOKS = `(() => {
  if (window.__ccbHooks) return;
  window.__ccbHooks = true;
  // tsx/esbuild keepNames: functions handed to page.evaluate() from scenario files call __name().
  if (typeof globalThis.__name !== 'function') globalThis.__name = (f) => f;
  // Media elements never attached to the document (new Audio(url)) are invisible to
  // querySelectorAll: remember every element that is asked to play.
  const media = (window.__ccbMedia = new Set());
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () { media.add(this); return play.apply(this, arguments); };
  // WebRTC: keep every peer connection so the session can read its byte counters.
  const Orig = window.RTCPeerConnection;
  if (Orig) {
    const pcs = (window.__ccbPeerConnections = []);
    const Wrapped = class extends Orig { constructor(...a) { super(...a); pcs.push(this); } };
    window.RTCPeerConnection = Wrapped;
    if (window.webkitRTCPeerConnection) window.webkitRTCPeerConnection = Wrapped;
  }
})();`;

/**
 * Installs the page hooks the helpers rely on (detached media elements, WebRTC counters,
 * a __name shim for tsx-compiled evaluate callbacks). Call before the first navigation;
 * runScenario does.
 */
export async function installPageHooks(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: PAGE_HOOKS });
}
