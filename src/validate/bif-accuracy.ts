/**
 * BiF accuracy: the trace's bytes-in-flight estimate (taken at the capture point) against the
 * server's own counter (ground-truth.jsonl, sampled every 10 ms at the server).
 *
 * Time alignment: a server sample at t_s describes the sender at t_s; the capture point sits one
 * one-way delay (half the region RTT) away from the server, so the matching capture time is
 * t_s + oneWay. We take the trace sample at or just before that time (the BiF step function's
 * value then).
 *
 * Near-zero BiF: percentage errors explode when the truth is a few bytes (handshake, the tail of
 * the transfer), so only samples whose ground truth is >= 1 MSS count; all others are reported
 * as `skippedSmall`. The comparison runs over the flow's span in the capture only.
 */
import { readFileSync } from 'node:fs';

export interface TimedSeries {
  /** Unix seconds, ascending. */
  t: Float64Array | number[];
  bytes: Float64Array | number[];
}

export interface AccuracyOptions {
  /** Seconds added to ground-truth times to reach the capture point (one-way server->capture delay). */
  shiftSeconds: number;
  /** Samples whose ground truth is below this many bytes are skipped (default 1 MSS = 1448). */
  floorBytes?: number;
  /** Within-tolerance threshold as a fraction (default 0.05). */
  tolerance?: number;
  /** Per estimate sample: 1 when the sender was in loss recovery (SampleFlag.recovery), for the split below. */
  recovery?: ArrayLike<number>;
  /**
   * Per estimate sample: 1 when it is a data packet from the sender (SampleFlag.dataSend), else
   * an ACK. When given, alignment is two-sided: the capture point sits `shiftSeconds` after the
   * sender for data but `shiftSeconds` BEFORE it for ACKs, so the sender's count at t_s is what
   * the capture saw sent by t_s + shift minus what it saw acknowledged by t_s - shift. The
   * estimate is then the value at t_s + shift with the ACK-side steps of (t_s - shift, t_s + shift]
   * undone. Without it, the one-sided match counts up to 2 x shift of extra ACKs (a systematic
   * underestimate of rate x 2 x shift bytes).
   */
  dataSend?: ArrayLike<number>;
}

export interface AccuracyResult {
  samples: number;
  skippedSmall: number;
  skippedOutside: number;
  /** Median absolute percentage error, in percent. */
  mape: number;
  /** Share of compared samples within `tolerance` (0..1). */
  within: number;
  /** Share within one MSS of absolute error (diagnostic: a one-packet timing slip). */
  withinOneSegment: number;
  /** Mean signed error in bytes (estimate - truth): shows a systematic bias. */
  meanSignedError: number;
  /**
   * Samples outside loss recovery and their share within tolerance: in recovery the kernel
   * marks segments lost by its own timers (RACK), which no capture can see, so the split shows
   * where the remaining error lives.
   */
  outsideRecovery: { samples: number; within: number };
}

/** Index of the last element <= x (binary search); -1 if none. */
export function atOrBefore(t: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = t.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid] <= x) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function compareBif(estimate: TimedSeries, truth: TimedSeries, opts: AccuracyOptions): AccuracyResult {
  const floor = opts.floorBytes ?? 1448;
  const tol = opts.tolerance ?? 0.05;
  const errs: number[] = [];
  let skippedSmall = 0;
  let skippedOutside = 0;
  let inTol = 0;
  let inSeg = 0;
  let signed = 0;
  let nOut = 0;
  let inOut = 0;
  const tEnd = estimate.t.length ? estimate.t[estimate.t.length - 1] : -Infinity;
  for (let i = 0; i < truth.t.length; i++) {
    const tc = truth.t[i] + opts.shiftSeconds;
    const j = atOrBefore(estimate.t, tc);
    if (j < 0 || tc > tEnd) {
      skippedOutside++;
      continue;
    }
    const gt = truth.bytes[i];
    if (!(gt >= floor)) {
      skippedSmall++;
      continue;
    }
    let est = estimate.bytes[j];
    if (opts.dataSend && opts.shiftSeconds > 0) {
      const j0 = atOrBefore(estimate.t, truth.t[i] - opts.shiftSeconds);
      for (let k = Math.max(j0 + 1, 1); k <= j; k++) if (!opts.dataSend[k]) est -= estimate.bytes[k] - estimate.bytes[k - 1];
    }
    const d = est - gt;
    const e = Math.abs(d) / gt;
    errs.push(e);
    if (e <= tol) inTol++;
    if (!opts.recovery?.[j]) {
      nOut++;
      if (e <= tol) inOut++;
    }
    if (Math.abs(d) <= floor) inSeg++;
    signed += d;
  }
  const n = errs.length;
  return {
    samples: n,
    skippedSmall,
    skippedOutside,
    mape: n ? median(errs) * 100 : Number.NaN,
    within: n ? inTol / n : Number.NaN,
    withinOneSegment: n ? inSeg / n : Number.NaN,
    meanSignedError: n ? signed / n : Number.NaN,
    outsideRecovery: { samples: nOut, within: nOut ? inOut / nOut : Number.NaN },
  };
}

/** Which ground-truth field is the sender's bytes in flight. */
export type TruthField = 'inflight_bytes' | 'unsacked_bytes' | 'pipe_bytes' | 'bytes_in_flight' | 'bytes_in_flight_at_ack';

/**
 * TCP has two notions of in flight. `inflight_bytes` = snd_nxt - snd_una (what Nebby's BiF
 * names). `pipe_bytes` (derived: tcp_info's packets in flight x MSS = unacked - sacked - lost
 * + retrans) is what the kernel's congestion control limits and what the trace estimates when
 * it subtracts SACKed bytes; the two differ only during loss recovery.
 */
function fieldValue(o: Record<string, unknown>, field: TruthField): unknown {
  // snd_nxt - snd_una minus what the receiver reported holding (SACK blocks, or one segment
  // per duplicate ACK without SACK: the kernel's sacked_out): exactly the quantity the
  // capture-side estimate defines, and the sender's own count, read from tcp_info.
  if (field === 'unsacked_bytes') {
    return typeof o.inflight_bytes === 'number' && typeof o.sacked === 'number' && typeof o.mss === 'number'
      ? o.inflight_bytes - o.sacked * o.mss : undefined;
  }
  if (field !== 'pipe_bytes') return o[field];
  return typeof o.inflight_pkts === 'number' && typeof o.mss === 'number' ? o.inflight_pkts * o.mss : undefined;
}

/** Reads ground-truth.jsonl into a series of one field; lines with the field null are skipped. */
export function readGroundTruth(path: string, field: TruthField, remotePort?: number): TimedSeries & { mss: number | null } {
  const t: number[] = [];
  const bytes: number[] = [];
  let mss: number | null = null;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a torn line (origin killed mid-write)
    }
    if (remotePort !== undefined && typeof o.remote === 'string' && !o.remote.endsWith(`:${remotePort}`)) continue;
    const v = fieldValue(o, field);
    if (typeof v !== 'number' || typeof o.t !== 'number') continue;
    if (typeof o.mss === 'number') mss = o.mss;
    t.push(o.t);
    bytes.push(v);
  }
  // Ground truth is appended in time order per connection, but sort to be safe.
  const idx = t.map((_, i) => i).sort((a, b) => t[a] - t[b]);
  return { t: idx.map((i) => t[i]), bytes: idx.map((i) => bytes[i]), mss };
}
