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
import { median } from '../util/stats.js';
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


/** Collects (truth, estimate) pairs into an AccuracyResult. */
class Scorer {
  private readonly errs: number[] = [];
  skippedSmall = 0;
  skippedOutside = 0;
  private inTol = 0;
  private inSeg = 0;
  private signed = 0;
  private nOut = 0;
  private inOut = 0;
  constructor(private readonly floor: number, private readonly tol: number) {}

  /** False (and counted as skipped) when the truth is below the floor. */
  wants(gt: number): boolean {
    if (gt >= this.floor) return true;
    this.skippedSmall++;
    return false;
  }

  add(gt: number, est: number, inRecovery: boolean): void {
    const d = est - gt;
    const e = Math.abs(d) / gt;
    this.errs.push(e);
    if (e <= this.tol) this.inTol++;
    if (!inRecovery) {
      this.nOut++;
      if (e <= this.tol) this.inOut++;
    }
    if (Math.abs(d) <= this.floor) this.inSeg++;
    this.signed += d;
  }

  result(): AccuracyResult {
    const n = this.errs.length;
    return {
      samples: n,
      skippedSmall: this.skippedSmall,
      skippedOutside: this.skippedOutside,
      mape: n ? median(this.errs) * 100 : Number.NaN,
      within: n ? this.inTol / n : Number.NaN,
      withinOneSegment: n ? this.inSeg / n : Number.NaN,
      meanSignedError: n ? this.signed / n : Number.NaN,
      outsideRecovery: { samples: this.nOut, within: this.nOut ? this.inOut / this.nOut : Number.NaN },
    };
  }
}

export function compareBif(estimate: TimedSeries, truth: TimedSeries, opts: AccuracyOptions): AccuracyResult {
  const score = new Scorer(opts.floorBytes ?? 1448, opts.tolerance ?? 0.05);
  const tEnd = estimate.t.length ? estimate.t[estimate.t.length - 1] : -Infinity;
  for (let i = 0; i < truth.t.length; i++) {
    const tc = truth.t[i] + opts.shiftSeconds;
    const j = atOrBefore(estimate.t, tc);
    if (j < 0 || tc > tEnd) {
      score.skippedOutside++;
      continue;
    }
    const gt = truth.bytes[i];
    if (!score.wants(gt)) continue;
    let est = estimate.bytes[j];
    if (opts.dataSend && opts.shiftSeconds > 0) {
      const j0 = atOrBefore(estimate.t, truth.t[i] - opts.shiftSeconds);
      for (let k = Math.max(j0 + 1, 1); k <= j; k++) if (!opts.dataSend[k]) est -= estimate.bytes[k] - estimate.bytes[k - 1];
    }
    score.add(gt, est, !!opts.recovery?.[j]);
  }
  return score.result();
}

/**
 * quinn's `bytes_in_flight_at_ack` is a snapshot taken at the latest ACK the server processed,
 * so compare it with the replay's at-ACK values (QuicExactSummary.atAck): the last ACK the
 * capture saw one one-way delay (`shiftSeconds`) before the server's sample.
 */
export function compareAtAck(atAck: TimedSeries, truth: TimedSeries, opts: { shiftSeconds: number; floorBytes?: number; tolerance?: number; end: number }): AccuracyResult {
  const score = new Scorer(opts.floorBytes ?? 1448, opts.tolerance ?? 0.05);
  for (let i = 0; i < truth.t.length; i++) {
    const ta = truth.t[i] - opts.shiftSeconds;
    const j = atOrBefore(atAck.t, ta);
    if (j < 0 || truth.t[i] + opts.shiftSeconds > opts.end) {
      score.skippedOutside++;
      continue;
    }
    if (!score.wants(truth.bytes[i])) continue;
    score.add(truth.bytes[i], atAck.bytes[j], false);
  }
  return score.result();
}

/** The server's own datagram counters at each truth sample (the QUIC origins record them). */
export interface TruthCounters {
  /** UDP payload bytes the server had sent (`udp_tx_bytes`). */
  txBytes: number[];
  /** UDP payload bytes the server had received (`udp_rx_bytes`). */
  rxBytes: number[];
}

/** The connection's datagrams as the capture saw them (unix seconds, ascending). */
export interface CaptureDatagrams {
  serverT: number[];
  serverBytes: number[];
  clientT: number[];
  clientBytes: number[];
}

/** Sample flags the counter alignment reads (SampleFlag.dataSend, RecoveryFlag.lossTimer). */
const DATA_SEND = 16;
const LOSS_TIMER = 64;

function cumulative(xs: number[]): number[] {
  const out: number[] = [];
  for (const x of xs) out.push((out.length ? out[out.length - 1] : 0) + x);
  return out;
}

/**
 * A stack may leave its first datagrams out of the connection's counters (quinn counts the
 * client's first Initial at the endpoint, before the connection exists). Counters move by
 * whole datagrams, so the right offset is the one that puts the most counter values exactly on
 * the capture's running byte sums; returns it and that share.
 */
function calibrate(cum: number[], values: number[]): { offset: number; match: number } {
  const sums = new Set([0, ...cum]);
  let best = { offset: 0, match: -1 };
  for (let k = 0; k <= Math.min(4, cum.length); k++) {
    const offset = k === 0 ? 0 : cum[k - 1];
    const hits = values.filter((v) => sums.has(v + offset)).length;
    if (hits > best.match) best = { offset, match: hits };
  }
  return { offset: best.offset, match: values.length ? best.match / values.length : Number.NaN };
}

/**
 * Counter alignment (QUIC): instead of assuming fixed one-way delays, read off each truth line
 * how many bytes the server had sent and received, and take the estimate after exactly those
 * datagrams: send steps up to the server datagram that brings the capture's byte count to the
 * server's, ACK steps likewise for the client's datagrams, loss-timer steps by time (t - shift)
 * but not past the first client datagram the server had not yet received (a server behind on
 * its input is behind on its timers: the aioquic origin's event loop stalls for 100-500 ms on the
 * busy lab host, and its samples show no losses while the replay's timers, armed by ACKs it had
 * not read, already fired).
 * This removes the timing differences between capture and server (an ACK held up on the lab
 * path, a stalled origin process) and leaves only differences in accounting. `atAck`: the
 * truth is quinn's at-ACK snapshot, the estimate the replay's value after the last ACK frame
 * the server had received. `counterMatch`: share of counter values that fell exactly on a
 * datagram boundary of the capture (low = the alignment itself is off).
 */
export function compareBifByCounters(
  estimate: TimedSeries & { flags: ArrayLike<number> },
  truth: TimedSeries & { counters: TruthCounters },
  dgrams: CaptureDatagrams,
  opts: {
    shiftSeconds: number; floorBytes?: number; tolerance?: number; recovery?: ArrayLike<number>; atAck?: TimedSeries;
    /** Diagnostics: called per compared sample with the capture times the counters point at. */
    onSample?: (s: { i: number; gt: number; est: number; tSend: number; tAck: number }) => void;
  },
): AccuracyResult & { counterMatch: { tx: number; rx: number } } {
  const score = new Scorer(opts.floorBytes ?? 1448, opts.tolerance ?? 0.05);
  // Per kind of step (send, ACK, loss timer): times and running sums, so each truth sample
  // costs three binary searches.
  const kinds = [0, 1, 2].map(() => ({ t: [] as number[], sum: [] as number[] }));
  for (let k = 0; k < estimate.t.length; k++) {
    const step = estimate.bytes[k] - (k > 0 ? estimate.bytes[k - 1] : 0);
    const f = estimate.flags[k];
    const kind = kinds[f & DATA_SEND ? 0 : f & LOSS_TIMER ? 2 : 1];
    kind.t.push(estimate.t[k]);
    kind.sum.push((kind.sum.length ? kind.sum[kind.sum.length - 1] : 0) + step);
  }
  const upTo = (kind: { t: number[]; sum: number[] }, t: number) => {
    const j = atOrBefore(kind.t, t);
    return j < 0 ? 0 : kind.sum[j];
  };
  const serverCum = cumulative(dgrams.serverBytes);
  const clientCum = cumulative(dgrams.clientBytes);
  const tx = calibrate(serverCum, truth.counters.txBytes);
  const rx = calibrate(clientCum, truth.counters.rxBytes);
  const tEnd = estimate.t.length ? estimate.t[estimate.t.length - 1] : -Infinity;
  for (let i = 0; i < truth.t.length; i++) {
    const kTx = atOrBefore(serverCum, truth.counters.txBytes[i] + tx.offset); // server datagrams wholly sent
    // Before the server's first datagram or past the capture's end: nothing to compare.
    if (kTx < 0 || truth.counters.txBytes[i] + tx.offset > serverCum[serverCum.length - 1] || truth.t[i] + opts.shiftSeconds > tEnd) {
      score.skippedOutside++;
      continue;
    }
    const gt = truth.bytes[i];
    if (!score.wants(gt)) continue;
    const tSend = dgrams.serverT[kTx];
    const kRx = atOrBefore(clientCum, truth.counters.rxBytes[i] + rx.offset); // client datagrams wholly received
    const tAck = kRx < 0 ? -Infinity : dgrams.clientT[kRx];
    let est: number;
    if (opts.atAck) {
      const j = atOrBefore(opts.atAck.t, tAck);
      est = j < 0 ? 0 : opts.atAck.bytes[j];
    } else {
      // Loss-timer steps by time, but none past the first client datagram the server had not
      // yet processed: a server that is behind on its input (its connection task or event
      // loop held up on the busy host) is behind on its timers too, and a timer the replay
      // fires after that datagram may rest on ACKs the server had not read.
      const behind = kRx + 1 < dgrams.clientT.length ? dgrams.clientT[kRx + 1] : Infinity;
      est = upTo(kinds[0], tSend) + upTo(kinds[1], tAck) + upTo(kinds[2], Math.min(truth.t[i] - opts.shiftSeconds, behind));
    }
    score.add(gt, est, !!opts.recovery?.[Math.max(0, atOrBefore(estimate.t, Math.max(tSend, tAck)))]);
    opts.onSample?.({ i, gt, est, tSend, tAck });
  }
  return { ...score.result(), counterMatch: { tx: tx.match, rx: rx.match } };
}

/** tcp_info's byte counters at each truth sample (ccb-tcpinfo prints them for every connection). */
export interface TcpTruthCounters {
  /** tcpi_bytes_sent: payload bytes the server had transmitted, retransmissions included. */
  bytesSent: number[];
  /** tcpi_bytes_acked: snd_una - ISN - 1, the payload bytes cumulatively acknowledged. */
  bytesAcked: number[];
}

/** The connection's segments as the capture saw them (unix seconds, ascending, series clock). */
export interface TcpCaptureSegments {
  /** Server data segments (payload > 0, retransmissions included) and the running payload sum. */
  dataT: number[];
  dataCum: number[];
  /** Client ACKs that advanced the cumulative ACK, and its value relative to the server's ISN + 1. */
  ackT: number[];
  ackCum: number[];
}

/**
 * Counter alignment for TCP. Why (measured on build/final/t9runs, build/diag/bifw-*.ts): the
 * fixed-delay (two-sided) match assumes the server's sample at t_s describes the sender at t_s
 * and that every ACK the capture saw reaches the sender one one-way delay later. On the busy
 * 2-core lab host neither holds often enough for small windows:
 *  - ccb-tcpinfo reads CLOCK_REALTIME before its netlink dump; when it is preempted in between
 *    (SCHED_OTHER, beside the other probes and, where used, the RT delay line) the counters it prints
 *    are read up to tens of ms after the timestamp. In 3-42% of data packets per run, tcp_info's
 *    bytes_sent shows a segment in a sample stamped more than 5 ms before the capture saw it,
 *    although the segment's own TSval (the server's clock at transmit) puts it exactly one
 *    one-way delay before the capture (excess over the run's minimum: median 0.6 ms for these
 *    packets, the same as for all others), so the path was not late: the sample's time was early.
 *  - the server sometimes processes ACKs 100+ ms after the capture saw them (unacked flat in
 *    tcp_info while the capture shows a run of ACKs), an estimate that has the ACKs is then
 *    whole segments low.
 * With ~3000 B in flight (BBR's and Vegas's small queues at 200 kbit/s, MSS 88) 5% is less than
 * the two segments one delayed ACK covers, so each such slip fails the sample.
 * So, as compareBifByCounters does for QUIC, read off each sample how much the server had sent
 * (bytes_sent) and had cumulatively acknowledged (bytes_acked), and take the trace's data steps
 * up to the segment that brings the capture's payload count to bytes_sent and its ACK steps up to
 * the ACK that brings the cumulative ACK to bytes_acked. Duplicate ACKs (SACK blocks, or Reno
 * duplicate-ACK credit) move no counter, so those after that ACK are taken by time: captured
 * by t_read - shift, where t_read is the sample's time or, when its bytes_sent already counts a
 * segment the capture saw later than t_s + shift, that segment's capture time - shift (the data
 * path's delay is constant to ~1 ms: capture time - TSval, build/diag/bifw-tsval.ts); and never
 * past the next ACK that advanced beyond bytes_acked, which the server had not yet processed.
 * Only the timing comes from the counters: the SACK and duplicate-ACK accounting being
 * validated is still the trace's own (tcp_info's sacked does not steer the alignment). On the 72
 * TCP runs of build/final/t9runs: outside loss recovery 99.9-100% of samples then agree within 5%
 * (95.3-99.7% by time); the rest are duplicate ACKs the server processed late, in stalls.
 */
export function compareTcpBifByCounters(
  estimate: TimedSeries & { flags: ArrayLike<number> },
  truth: TimedSeries & { tcpCounters: TcpTruthCounters },
  segs: TcpCaptureSegments,
  opts: { shiftSeconds: number; floorBytes?: number; tolerance?: number; recovery?: ArrayLike<number> },
): AccuracyResult {
  const score = new Scorer(opts.floorBytes ?? 1448, opts.tolerance ?? 0.05);
  const send = { t: [] as number[], sum: [] as number[] };
  const ack = { t: [] as number[], sum: [] as number[] };
  for (let k = 0; k < estimate.t.length; k++) {
    const kind = estimate.flags[k] & DATA_SEND ? send : ack;
    kind.t.push(estimate.t[k]);
    kind.sum.push((kind.sum.length ? kind.sum[kind.sum.length - 1] : 0) + estimate.bytes[k] - (k > 0 ? estimate.bytes[k - 1] : 0));
  }
  const upTo = (kind: { t: number[]; sum: number[] }, t: number) => {
    const j = atOrBefore(kind.t, t);
    return j < 0 ? 0 : kind.sum[j];
  };
  /** First index whose running value reaches v (length if none). */
  const reach = (xs: number[], v: number) => {
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (xs[m] >= v) hi = m;
      else lo = m + 1;
    }
    return lo;
  };
  const tEnd = estimate.t.length ? estimate.t[estimate.t.length - 1] : -Infinity;
  const totalSent = segs.dataCum.length ? segs.dataCum[segs.dataCum.length - 1] : 0;
  const { bytesSent, bytesAcked } = truth.tcpCounters;
  for (let i = 0; i < truth.t.length; i++) {
    // Before the first data segment or beyond what the capture holds: nothing to compare.
    const totalAcked = segs.ackCum.length ? segs.ackCum[segs.ackCum.length - 1] : 0;
    if (bytesSent[i] <= 0 || bytesSent[i] > totalSent || bytesAcked[i] > totalAcked || truth.t[i] + opts.shiftSeconds > tEnd) {
      score.skippedOutside++;
      continue;
    }
    const gt = truth.bytes[i];
    if (!score.wants(gt)) continue;
    const tSend = segs.dataT[reach(segs.dataCum, bytesSent[i])];
    let tAck = -Infinity;
    if (bytesAcked[i] > 0) {
      const m = reach(segs.ackCum, bytesAcked[i]);
      const from = segs.ackT[m];
      const next = m + 1 < segs.ackT.length ? segs.ackT[m + 1] : Infinity;
      // Duplicate ACKs by time, within [the ACK reaching bytes_acked, the next advancing ACK).
      // The time is the sample's, or later when its own bytes_sent proves the read was later:
      // it counted a segment the server sent one one-way delay before the capture saw it.
      const byTime = Math.max(truth.t[i], tSend - opts.shiftSeconds) - opts.shiftSeconds;
      tAck = Math.max(from, byTime < next ? byTime : atOrBeforeStrict(ack.t, next));
    }
    const est = upTo(send, tSend) + upTo(ack, tAck);
    score.add(gt, est, !!opts.recovery?.[Math.max(0, atOrBefore(estimate.t, Math.max(tSend, tAck)))]);
  }
  return score.result();
}

/** The last element strictly below x (x itself when none): for "up to, not including". */
function atOrBeforeStrict(t: number[], x: number): number {
  const j = atOrBefore(t, x);
  let k = j;
  while (k >= 0 && t[k] >= x) k--;
  return k >= 0 ? t[k] : -Infinity;
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

/**
 * Reads ground-truth.jsonl into a series of one field; lines with the field null are skipped.
 * `counters` is set when every kept line carries the QUIC origins' datagram counters,
 * `tcpCounters` when every kept line carries tcp_info's byte counters.
 */
export function readGroundTruth(path: string, field: TruthField, remotePorts?: ReadonlySet<number>): TimedSeries & { mss: number | null; counters?: TruthCounters; tcpCounters?: TcpTruthCounters } {
  const t: number[] = [];
  const bytes: number[] = [];
  const tx: number[] = [];
  const rx: number[] = [];
  const sent: number[] = [];
  const acked: number[] = [];
  let mss: number | null = null;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a torn line (origin killed mid-write)
    }
    if (remotePorts && typeof o.remote === 'string' && !remotePorts.has(Number(o.remote.slice(o.remote.lastIndexOf(':') + 1)))) continue;
    const v = fieldValue(o, field);
    if (typeof v !== 'number' || typeof o.t !== 'number') continue;
    if (typeof o.mss === 'number') mss = o.mss;
    t.push(o.t);
    bytes.push(v);
    tx.push(typeof o.udp_tx_bytes === 'number' ? o.udp_tx_bytes : NaN);
    rx.push(typeof o.udp_rx_bytes === 'number' ? o.udp_rx_bytes : NaN);
    sent.push(typeof o.bytes_sent === 'number' ? o.bytes_sent : NaN);
    acked.push(typeof o.bytes_acked === 'number' ? o.bytes_acked : NaN);
  }
  // Ground truth is appended in time order per connection, but sort to be safe.
  const idx = t.map((_, i) => i).sort((a, b) => t[a] - t[b]);
  const out: TimedSeries & { mss: number | null; counters?: TruthCounters; tcpCounters?: TcpTruthCounters } = { t: idx.map((i) => t[i]), bytes: idx.map((i) => bytes[i]), mss };
  if (t.length > 0 && tx.every((x) => !Number.isNaN(x)) && rx.every((x) => !Number.isNaN(x))) {
    out.counters = { txBytes: idx.map((i) => tx[i]), rxBytes: idx.map((i) => rx[i]) };
  }
  if (t.length > 0 && sent.every((x) => !Number.isNaN(x)) && acked.every((x) => !Number.isNaN(x))) {
    out.tcpCounters = { bytesSent: idx.map((i) => sent[i]), bytesAcked: idx.map((i) => acked[i]) };
  }
  return out;
}
