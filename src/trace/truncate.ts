/**
 * A bytes-in-flight series cut to its first N seconds: what the trace would have been had the
 * capture stopped there (shorter-trace studies, the early-stop rule's offline replay).
 */
import { lossAt } from './loss-timeline.js';
import type { BifSeries } from './types.js';

/** How many leading samples of ascending times `t` fall within `maxSeconds`. */
export function samplesWithin(t: ArrayLike<number>, maxSeconds: number): number {
  let n = t.length;
  while (n > 0 && t[n - 1] > maxSeconds) n--;
  return n;
}

/**
 * Cuts a series to its first `maxSeconds`. Its loss counts are recounted as they stood at the
 * cut (loss-timeline.ts, to within half a second); a series without checkpoints (traced
 * before them) loses its counts when the cut removes anything, so a verdict never rests on
 * losses from after the cut.
 */
export function truncateSeries(s: BifSeries, maxSeconds: number): BifSeries {
  const n = samplesWithin(s.t, maxSeconds);
  if (n === s.t.length) return s;
  const loss = s.loss ? lossAt(s.loss, maxSeconds, s.t[s.t.length - 1]) : null;
  const { loss: _whole, ...rest } = s;
  return { ...rest, t: s.t.slice(0, n), bif: s.bif.slice(0, n), ...(s.appLimited ? { appLimited: s.appLimited.slice(0, n) } : {}), ...(loss ? { loss } : {}) };
}
