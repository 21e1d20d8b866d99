/**
 * Marks samples where the sender was application-limited or idle, so the classifier does not
 * read a BiF drop there as a congestion back-off:
 *  - an idle gap: the sender sent no data for more than `idleRtts` RTTs and everything it had
 *    sent was acknowledged (BiF <= one segment) before it resumed: it had nothing to send.
 *    The drain before the gap and the restart packet are marked. A stall with data still
 *    outstanding (an RTO) is NOT marked: that is the congestion controller at work.
 *  - the tail: after the last data packet, BiF draining to ~0 is the transfer ending.
 */
import { SampleFlag } from './tcp-bif.js';

export interface AppLimitedOptions {
  /** Flow RTT in seconds; NaN disables gap detection (the tail is still marked). */
  rttSeconds: number;
  /** Segment size: BiF at or below this counts as drained. Infinity: judge by the gap alone. */
  drainedBytes: number;
  /** Gap length, in RTTs, that counts as idle (default 1). */
  idleRtts?: number;
}

/** Sets SampleFlag.appLimited in `flags` (in place) and returns how many samples it marked. */
export function markAppLimited(t: Float64Array, bif: Float64Array, flags: Uint8Array, o: AppLimitedOptions): number {
  const n = t.length;
  const idle = (o.idleRtts ?? 1) * o.rttSeconds;
  let marked = 0;
  const mark = (from: number, to: number) => {
    for (let k = from; k <= to; k++) {
      if (!(flags[k] & SampleFlag.appLimited)) marked++;
      flags[k] |= SampleFlag.appLimited;
    }
  };
  let prevData = -1;
  for (let i = 0; i < n; i++) {
    if (!(flags[i] & SampleFlag.dataSend)) continue;
    if (prevData >= 0 && t[i] - t[prevData] > idle) {
      const before = i > 0 ? bif[i - 1] : 0;
      if (before <= o.drainedBytes) mark(prevData + 1, i);
    }
    prevData = i;
  }
  if (prevData >= 0 && prevData < n - 1 && bif[n - 1] <= o.drainedBytes) mark(prevData + 1, n - 1);
  return marked;
}
