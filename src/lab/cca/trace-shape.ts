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

/** A field with a centred moving average over `windowUs` removed (slow drift gone). */
function detrended(samples: readonly TcpInfoSample[], field: 'unacked' | 'cwnd', windowUs: number): number[] {
  const dt = (samples[samples.length - 1].tUs - samples[0].tUs) / Math.max(1, samples.length - 1);
  const half = Math.max(1, Math.round(windowUs / dt / 2));
  const xs = samples.map((x) => x[field]);
  return xs.map((x, i) => {
    const a = Math.max(0, i - half);
    const b = Math.min(xs.length - 1, i + half);
    let sum = 0;
    for (let k = a; k <= b; k++) sum += xs[k];
    return x - sum / (b - a + 1);
  });
}

/**
 * The cycles of an oscillation: with slow drift removed (centred moving average over
 * `detrendUs`), the times the field rises through its trend, counted only after it went at
 * least `hysteresis` below it (noise crossings do not count). Returns the intervals between
 * consecutive rises (us) and their median: the period, robust to the odd disturbed cycle.
 */
export function oscillationPeriod(
  samples: readonly TcpInfoSample[], field: 'unacked' | 'cwnd',
  opts: { fromUs?: number; detrendUs: number; hysteresis: number },
): { periodUs: number; cycles: number; intervalsUs: number[] } {
  const s = samples.filter((x) => x.tUs >= (opts.fromUs ?? 0));
  if (s.length < 10) return { periodUs: NaN, cycles: 0, intervalsUs: [] };
  const ys = detrended(s, field, opts.detrendUs);
  const rises: number[] = [];
  let below = false;
  for (let i = 0; i < ys.length; i++) {
    if (ys[i] <= -opts.hysteresis) below = true;
    else if (below && ys[i] >= opts.hysteresis) {
      rises.push(s[i].tUs);
      below = false;
    }
  }
  const intervalsUs = rises.slice(1).map((t, i) => t - rises[i]);
  return { periodUs: median(intervalsUs), cycles: intervalsUs.length, intervalsUs };
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
