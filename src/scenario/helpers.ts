/**
 * Step helpers a careful user would write once and reuse: consent dialogs, pop-ups,
 * getting media to play, keeping an activity going while watching that it really goes.
 * None of them throws because something is ABSENT (no dialog, no button): sites change,
 * and a missing banner is not a failed run. They return what they saw instead.
 * This module gathers them (consent.ts, media.ts, page-util.ts) and adds the activity loop.
 */
import type { Locator, Page } from 'playwright-core';
import { ensurePlaying, sampleMedia, webrtcCounters, type WebRtcCounters } from './media.js';
import { errText, sleep } from './page-util.js';
import { emptyTally, tallySample, type PlaybackTally } from './progress.js';

export { clickFirstVisible, installPageHooks, sleep } from './page-util.js';
export { acceptConsent, dismissPopups, CMP_ACCEPT_SELECTORS, type ConsentOptions, type ConsentResult } from './consent.js';
export {
  ensurePlaying, sampleMedia, waitForPlayback, webrtcCounters,
  type EnsurePlayingOptions, type PlaybackWait, type WaitForPlaybackOptions, type WebRtcCounters,
} from './media.js';

export interface KeepActivityOptions {
  /** Sampling period (default 1 s). */
  intervalMs?: number;
  /** Re-start playback when everything is paused for 2 samples (default true). */
  resume?: boolean;
  /** Also read WebRTC byte counters (calls). */
  webrtc?: boolean;
  /** Site upkeep every sample (skip an ad, close a "still watching?" prompt). Errors are logged, not thrown. */
  onTick?: (status: ActivityStatus) => Promise<void> | void;
  playButtons?: Locator[];
  log?: (msg: string) => void;
  signal?: AbortSignal;
  /**
   * Asked after every sample: true ends the activity there, as its end would (the page stays
   * open for the session to close). `run --stop-when-stable` ends it once its verdicts are stable.
   */
  endEarly?: (status: ActivityStatus) => boolean;
}

export interface ActivityStatus extends Omit<PlaybackTally, 'times' | 'state'> {
  /** Wall-clock seconds actually spent. */
  seconds: number;
  state: PlaybackTally['state'];
  /** Times playback was restarted after pausing. */
  resumes: number;
  webrtc?: WebRtcCounters;
  pageClosed: boolean;
  /** True when `endEarly` ended the activity before its length. */
  endedEarly?: boolean;
  /** Up to 10 distinct problems seen (hook errors, ...). */
  errors: string[];
}

/**
 * Keeps the page's activity going for `seconds`, sampling every `intervalMs`: seconds
 * of media played, stalls, pauses (and resumes them), WebRTC bytes. Ends early when the
 * page closes or `signal` aborts. Returns the tally; never throws.
 */
export async function keepActivity(page: Page, seconds: number, opts: KeepActivityOptions = {}): Promise<ActivityStatus> {
  const start = Date.now();
  const interval = Math.max(100, opts.intervalMs ?? 1_000);
  let tally = emptyTally();
  let last = Date.now();
  let pausedSamples = 0;
  let resumes = 0;
  let webrtc: WebRtcCounters | undefined;
  const errors: string[] = [];
  let endedEarly = false;
  const status = (): ActivityStatus => {
    const { times: _t, ...rest } = tally;
    return { ...rest, seconds: (Date.now() - start) / 1000, resumes, webrtc, pageClosed: page.isClosed(), ...(endedEarly ? { endedEarly } : {}), errors: [...errors] };
  };
  const noteError = (msg: string) => {
    if (errors.length < 10 && !errors.includes(msg)) errors.push(msg);
  };
  const onCrash = () => noteError('page crashed');
  page.on('crash', onCrash);
  try {
    for (;;) {
      const now = Date.now();
      tally = tallySample(tally, await sampleMedia(page), (now - last) / 1000);
      last = now;
      if (opts.webrtc) webrtc = await webrtcCounters(page);
      if (opts.onTick) {
        try {
          await opts.onTick(status());
        } catch (err) {
          noteError(`onTick: ${errText(err)}`);
        }
      }
      pausedSamples = tally.state === 'paused' ? pausedSamples + 1 : 0;
      if ((opts.resume ?? true) && pausedSamples >= 2) {
        pausedSamples = 0;
        if (await ensurePlaying(page, { playButtons: opts.playButtons, log: opts.log })) {
          resumes++;
          opts.log?.('playback was paused: resumed');
        }
      }
      const remaining = seconds * 1000 - (Date.now() - start);
      if (remaining <= 0 || page.isClosed() || opts.signal?.aborted) break;
      if (opts.endEarly?.(status())) {
        endedEarly = true;
        break;
      }
      await sleep(Math.min(interval, remaining), opts.signal);
    }
    // One last sample so the final interval counts.
    if (!page.isClosed() && Date.now() > last) tally = tallySample(tally, await sampleMedia(page), (Date.now() - last) / 1000);
  } finally {
    page.off('crash', onCrash);
  }
  return status();
}

/**
 * Scrolls down the page in `steps` wheel moves, pausing between them, so lazy-loaded
 * images and scripts load as they would for a reader. Never throws.
 */
export async function scrollThrough(page: Page, opts: { steps?: number; pauseMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const steps = opts.steps ?? 12;
  try {
    const height = (await page.evaluate('Math.max(document.body ? document.body.scrollHeight : 0, innerHeight)')) as number;
    const step = Math.max(200, Math.ceil(height / steps));
    for (let i = 0; i < steps && !page.isClosed() && !opts.signal?.aborted; i++) {
      await page.mouse.wheel(0, step);
      await sleep(opts.pauseMs ?? 600, opts.signal);
    }
  } catch {
    // closed or navigated away: scrolling was best effort
  }
}
