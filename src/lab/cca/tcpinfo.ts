/**
 * Server-side ground truth for the lab's congestion controllers: parsing the output of
 * `ccb-bulk send` (tcp_info sampled every ~10 ms on the sending socket) and reading
 * the controller's signature out of it. Pure functions: arrays in, numbers out.
 *
 * Why tcp_info and not `ss -ti`: BPF controllers implement no get_info, so ss shows
 * only their name; cwnd, ssthresh, unacked, srtt, bytes_acked and ca_state come from
 * the socket itself, and a 10 ms `ss` loop would cost a process per sample.
 */

/** Linux's tcp_ca_state values (include/uapi/linux/tcp.h). */
export const CaState = { open: 0, disorder: 1, cwr: 2, recovery: 3, loss: 4 } as const;
/** ssthresh before the first congestion event. */
export const INFINITE_SSTHRESH = 0x7fffffff;

export interface TcpInfoSample {
  /** Microseconds since the transfer started. */
  tUs: number;
  cwnd: number;
  ssthresh: number;
  /** Packets sent and not yet acknowledged (tcpi_unacked). */
  unacked: number;
  srttUs: number;
  minRttUs: number;
  totalRetrans: number;
  bytesAcked: number;
  caState: number;
  mss: number;
  deliveryRateBps: number;
  lost: number;
  /** sk_pacing_rate in bytes/s as the controller set it (0 in outputs that predate it). */
  pacingRateBps: number;
}

export interface BulkRun {
  /** getsockopt(TCP_CONGESTION) on the accepted socket, at accept and at the end. */
  ccAtStart: string;
  ccAtEnd: string;
  samples: TcpInfoSample[];
  sentBytes: number;
}

/** Parses `ccb-bulk send` stdout; throws on a truncated or foreign output. */
export function parseBulkOutput(text: string): BulkRun {
  let ccAtStart: string | undefined;
  let ccAtEnd: string | undefined;
  let sentBytes: number | undefined;
  const samples: TcpInfoSample[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    if (line.startsWith('#')) {
      const parts = line.slice(1).trim().split(/\s+/);
      if (parts[0] === 'cc') [ccAtStart, ccAtEnd] = [parts[1], parts[2]];
      if (parts[0] === 'sent') sentBytes = Number(parts[1]);
      continue;
    }
    const f = line.trim().split(/\s+/).map(Number);
    if (f.length < 12 || f.some((x) => !Number.isFinite(x))) throw new Error(`bad sample line: ${line}`);
    samples.push({
      tUs: f[0], cwnd: f[1], ssthresh: f[2], unacked: f[3], srttUs: f[4], minRttUs: f[5],
      totalRetrans: f[6], bytesAcked: f[7], caState: f[8], mss: f[9], deliveryRateBps: f[10], lost: f[11],
      pacingRateBps: f[12] ?? 0,
    });
  }
  if (ccAtStart === undefined || ccAtEnd === undefined || sentBytes === undefined) {
    throw new Error('ccb-bulk output is incomplete (no "# cc" or "# sent" line): the sender did not finish');
  }
  return { ccAtStart, ccAtEnd, samples, sentBytes };
}

/** A reduction of cwnd: a loss episode (recovery/timeout) or a reduction without loss. */
export interface Backoff {
  kind: 'recovery' | 'timeout' | 'no-loss';
  /** Time of the last sample before the reduction. */
  tUs: number;
  /** Time of the first sample in congestion avoidance again. */
  endUs: number;
  /** Largest cwnd in the 50 ms before the reduction (the window that overflowed). */
  cwndBefore: number;
  /** ssthresh once the episode is over (what the controller chose). */
  ssthreshAfter: number;
  cwndAfter: number;
  /** ssthreshAfter / cwndBefore: 0.5 for Reno, 0.875 for Scalable... */
  ratio: number;
}

function isRecoveryState(s: TcpInfoSample): boolean {
  return s.caState >= CaState.cwr;
}

/**
 * Finds the back-offs in a trace. An episode is a run of samples in CWR/Recovery/Loss,
 * or (when the whole episode fell between two samples) an ssthresh change across which
 * retransmissions grew. `no-loss` reductions are ssthresh decreases in Open state with
 * no retransmission and cwnd cut by at least `minNoLossCut` (YeAH's decongestion).
 */
export function findBackoffs(samples: readonly TcpInfoSample[], minNoLossCut = 0.2): Backoff[] {
  const out: Backoff[] = [];
  const cwndBefore = (i: number): number => {
    let m = 0;
    const t0 = samples[i].tUs - 50_000;
    for (let j = i; j >= 0 && samples[j].tUs >= t0; j--) if (!isRecoveryState(samples[j])) m = Math.max(m, samples[j].cwnd);
    return m || samples[i].cwnd;
  };
  let i = 1;
  while (i < samples.length) {
    const prev = samples[i - 1];
    const cur = samples[i];
    if (isRecoveryState(cur) && !isRecoveryState(prev)) {
      let j = i;
      let timeout = false;
      while (j < samples.length && isRecoveryState(samples[j])) {
        if (samples[j].caState === CaState.loss) timeout = true;
        j++;
      }
      if (j >= samples.length) break; // trace ended inside the episode
      const end = samples[j];
      const before = cwndBefore(i - 1);
      out.push({
        kind: timeout ? 'timeout' : 'recovery', tUs: prev.tUs, endUs: end.tUs, cwndBefore: before,
        ssthreshAfter: end.ssthresh, cwndAfter: end.cwnd, ratio: end.ssthresh / before,
      });
      i = j + 1;
      continue;
    }
    if (!isRecoveryState(cur) && !isRecoveryState(prev) && cur.ssthresh < prev.ssthresh) {
      const before = cwndBefore(i - 1);
      if (cur.totalRetrans > prev.totalRetrans) {
        out.push({ kind: 'recovery', tUs: prev.tUs, endUs: cur.tUs, cwndBefore: before, ssthreshAfter: cur.ssthresh, cwndAfter: cur.cwnd, ratio: cur.ssthresh / before });
      } else if (cur.cwnd <= before * (1 - minNoLossCut)) {
        out.push({ kind: 'no-loss', tUs: prev.tUs, endUs: cur.tUs, cwndBefore: before, ssthreshAfter: cur.ssthresh, cwndAfter: cur.cwnd, ratio: cur.ssthresh / before });
      }
    }
    i++;
  }
  return out;
}

/** cwnd growth over one window of congestion avoidance. */
export interface GrowthWindow {
  tStartUs: number;
  tEndUs: number;
  cwndStart: number;
  cwndEnd: number;
  cwndMean: number;
  /** Segments cumulatively acknowledged in the window. */
  ackedSegs: number;
  /** Δcwnd per segment acked: 1/cwnd for Reno, 1/100 for Scalable above 100. */
  incPerAck: number;
  /**
   * Δcwnd × mean cwnd / acked: the increase per round trip (a cwnd-limited sender gets
   * about cwnd segments acked per RTT), 1.0 for Reno, whatever the RTT.
   */
  incPerRtt: number;
  srttMeanUs: number;
  /** Time since the end of the previous back-off (Infinity before the first). */
  sinceBackoffUs: number;
}

/**
 * Splits the congestion-avoidance phases (Open, finite ssthresh, cwnd >= ssthresh, no
 * cwnd decrease) into windows of `windowUs` and measures the growth in each.
 */
export function growthWindows(samples: readonly TcpInfoSample[], windowUs = 300_000): GrowthWindow[] {
  const out: GrowthWindow[] = [];
  const backoffEnds = findBackoffs(samples).map((b) => b.endUs);
  const inCa = (s: TcpInfoSample) => s.caState === CaState.open && s.ssthresh < INFINITE_SSTHRESH && s.cwnd >= s.ssthresh;
  let start = -1;
  const flush = (a: number, b: number) => {
    if (a < 0 || b <= a) return;
    const s0 = samples[a];
    const s1 = samples[b];
    const mss = s1.mss || 1448;
    const acked = (s1.bytesAcked - s0.bytesAcked) / mss;
    if (acked <= 0) return;
    let sumCwnd = 0;
    let sumRtt = 0;
    for (let k = a; k <= b; k++) {
      sumCwnd += samples[k].cwnd;
      sumRtt += samples[k].srttUs;
    }
    const n = b - a + 1;
    const d = s1.cwnd - s0.cwnd;
    const lastEnd = [...backoffEnds].reverse().find((e) => e <= s0.tUs);
    out.push({
      tStartUs: s0.tUs, tEndUs: s1.tUs, cwndStart: s0.cwnd, cwndEnd: s1.cwnd, cwndMean: sumCwnd / n,
      ackedSegs: acked, incPerAck: d / acked, incPerRtt: (d * (sumCwnd / n)) / acked, srttMeanUs: sumRtt / n,
      sinceBackoffUs: lastEnd === undefined ? Infinity : s0.tUs - lastEnd,
    });
  };
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const ok = inCa(s) && (start < 0 || s.cwnd >= samples[i - 1].cwnd);
    if (!ok) {
      if (start >= 0) flush(start, i - 1);
      start = inCa(s) ? i : -1;
      continue;
    }
    if (start < 0) start = i;
    else if (s.tUs - samples[start].tUs >= windowUs) {
      flush(start, i);
      start = i;
    }
  }
  return out;
}

export { median } from '../../util/stats.js';

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Goodput in bits/s between two times (bytes acked / time). */
export function goodputBps(samples: readonly TcpInfoSample[], fromUs = 0, toUs = Infinity): number {
  const inside = samples.filter((s) => s.tUs >= fromUs && s.tUs <= toUs);
  if (inside.length < 2) return 0;
  const a = inside[0];
  const b = inside[inside.length - 1];
  return ((b.bytesAcked - a.bytesAcked) * 8) / ((b.tUs - a.tUs) / 1e6);
}
