/**
 * Shape readers for a sender's own tcp_info trace (ccb-bulk samples) beyond back-offs and
 * growth (tcpinfo.ts): the level it holds, the period it oscillates with, and window cuts
 * made without a loss. Pure functions; used to validate the lab's delay-based controllers
 * (FAST, Copa, LP...).
 */
import { median, type TcpInfoSample } from './tcpinfo.js';

/** Path facts read from the trace itself: base RTT (tcp_info min_rtt) and the BDP. */
export interface PathEstimate {
  minRttUs: number;
  /** Delivered bytes/s between `fromUs` and the end. */
  rateBytesPerSec: number;
  bdpPackets: number;
}

export function pathEstimate(samples: readonly TcpInfoSample[], fromUs = 1_000_000): PathEstimate {
  const s = samples.filter((x) => x.tUs >= fromUs);
  // tcp_info min_rtt is the kernel's windowed minimum: its median ignores a stray sample.
  const minRttUs = median(s.map((x) => x.minRttUs).filter((x) => x > 0));
  const a = s[0];
  const b = s[s.length - 1];
  const rate = a && b && b.tUs > a.tUs ? (b.bytesAcked - a.bytesAcked) / ((b.tUs - a.tUs) / 1e6) : 0;
  const mss = a?.mss || 1448;
  return { minRttUs, rateBytesPerSec: rate, bdpPackets: (rate * (minRttUs / 1e6)) / mss };
}

/** Median and relative spread (interquartile range / median) of a numeric field. */
export function level(samples: readonly TcpInfoSample[], field: 'unacked' | 'cwnd' | 'srttUs', fromUs = 0): { median: number; spread: number } {
  const xs = samples.filter((s) => s.tUs >= fromUs).map((s) => s[field]).sort((a, b) => a - b);
  if (xs.length === 0) return { median: NaN, spread: NaN };
  const q = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * (xs.length - 1)))];
  const m = median(xs);
  return { median: m, spread: (q(0.75) - q(0.25)) / m };
}

/**
 * The lag (us) in [minLagUs, maxLagUs] where the autocorrelation of a field (resampled on
 * the trace's own sampling grid, mean removed) peaks, and how strong that peak is (-1..1).
 * null when the trace is too short for the lags asked.
 */
export function dominantPeriod(
  samples: readonly TcpInfoSample[], field: 'unacked' | 'cwnd',
  opts: { fromUs?: number; minLagUs: number; maxLagUs: number },
): { lagUs: number; strength: number } | null {
  const s = samples.filter((x) => x.tUs >= (opts.fromUs ?? 0));
  if (s.length < 10) return null;
  const dt = (s[s.length - 1].tUs - s[0].tUs) / (s.length - 1);
  const xs = s.map((x) => x[field]);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const ys = xs.map((x) => x - mean);
  const var0 = ys.reduce((a, y) => a + y * y, 0);
  if (var0 === 0) return null;
  const lo = Math.max(1, Math.round(opts.minLagUs / dt));
  const hi = Math.min(ys.length - 2, Math.round(opts.maxLagUs / dt));
  if (hi < lo) return null;
  let best = { lagUs: NaN, strength: -Infinity };
  for (let k = lo; k <= hi; k++) {
    let acc = 0;
    for (let i = 0; i + k < ys.length; i++) acc += ys[i] * ys[i + k];
    const r = (acc / (ys.length - k)) / (var0 / ys.length);
    if (r > best.strength) best = { lagUs: k * dt, strength: r };
  }
  return best;
}

/** A window cut made without a loss: cwnd fell by at least `minCut` between two samples
 * in the Open state while the retransmission count stayed the same. */
export interface LosslessCut { tUs: number; cwndBefore: number; cwndAfter: number }

export function losslessCuts(samples: readonly TcpInfoSample[], minCut = 0.4): LosslessCut[] {
  const out: LosslessCut[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (a.caState !== 0 || b.caState !== 0 || b.totalRetrans !== a.totalRetrans) continue;
    if (b.cwnd <= a.cwnd * (1 - minCut)) out.push({ tUs: b.tUs, cwndBefore: a.cwnd, cwndAfter: b.cwnd });
  }
  return out;
}
