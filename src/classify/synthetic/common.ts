/**
 * Helpers shared by the synthetic trace generators: ACK-clocked sample times with jitter,
 * multiplicative measurement noise, and the Nebby-like default path (200 kbit/s,
 * 100-byte packets as with Nebby's shrunken MTU, 2 BDP of buffer).
 */
import type { BifSeries } from '../../trace/types.js';
import { createRng, type Rng } from '../prng.js';

export interface PathOptions {
  seed: number;
  durationS: number;
  /** Bottleneck rate, bytes/s (25 000 = 200 kbit/s). */
  capacityBps: number;
  /** Base (propagation) RTT, seconds. */
  baseRttS: number;
  /** Packet size, bytes. */
  mss: number;
  /** Relative standard deviation of per-sample measurement noise. */
  noise: number;
}

export const defaultPath: PathOptions = {
  seed: 1,
  durationS: 40,
  capacityBps: 25_000,
  baseRttS: 0.1,
  mss: 100,
  noise: 0.03,
};

/** One sample per ACK: spacing mss / capacity, jittered by +-50%. */
export function ackTimes(rng: Rng, durationS: number, meanGapS: number): Float64Array {
  const out: number[] = [0];
  let t = 0;
  for (;;) {
    t += meanGapS * (0.5 + rng.next());
    if (t > durationS) break;
    out.push(t);
  }
  return Float64Array.from(out);
}

/** Evaluate a clean shape at the ACK times, add noise, and package it as a BifSeries. */
export function buildSeries(
  p: PathOptions,
  shape: (t: number) => number,
  rttSeconds: number,
  appLimited?: (t: number) => boolean,
): BifSeries {
  const rng = createRng(p.seed);
  const t = ackTimes(rng, p.durationS, p.mss / p.capacityBps);
  const bif = new Float64Array(t.length);
  for (let i = 0; i < t.length; i++) bif[i] = Math.max(0, shape(t[i]) * (1 + p.noise * rng.normal()));
  const series: BifSeries = { t, bif, rttSeconds };
  if (appLimited) series.appLimited = Uint8Array.from(t, (x) => (appLimited(x) ? 1 : 0));
  return series;
}

export function withPath(opts: Partial<PathOptions>): PathOptions {
  return { ...defaultPath, ...opts };
}

/** A piecewise-linear function through (time, value) knots, held flat outside them. */
export function piecewise(knots: Array<[number, number]>): (t: number) => number {
  return (t: number) => {
    if (t <= knots[0][0]) return knots[0][1];
    let lo = 0;
    let hi = knots.length - 1;
    if (t >= knots[hi][0]) return knots[hi][1];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (knots[mid][0] <= t) lo = mid;
      else hi = mid;
    }
    const [t0, v0] = knots[lo];
    const [t1, v1] = knots[hi];
    return t1 > t0 ? v0 + ((v1 - v0) * (t - t0)) / (t1 - t0) : v1;
  };
}
