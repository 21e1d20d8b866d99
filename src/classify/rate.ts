/**
 * Shared measurements for rate-based senders (BBR, AkamaiCC, Copa): the working level,
 * short deep dips (ProbeRTT-like), the 'plateau' (active time away from dips and
 * back-off recoveries), its flatness, the longest cruise, and the periodicity of the
 * detrended plateau. Pure; each classifier applies its own rules to these numbers.
 */
import type { FlowFeatures } from './features.js';
import { autocorrelation, detrend, fundamentalPeak, skewness } from './periodicity.js';
import { median, pick, quantile } from './stats.js';

export interface RateOptions {
  /** A dip falls at least this far below the working level (fraction of it). */
  dipMinDepth: number;
  /** A dip lasts at most dipMaxSeconds + dipMaxRtts x RTT below 80% of the level. */
  dipMaxSeconds: number;
  dipMaxRtts: number;
  /** Detrending window (RTTs) before the autocorrelation. */
  detrendRtts: number;
  /** Largest ACF lag computed (RTTs). */
  maxLagRtts: number;
  /** A cruise stays within this fraction of the level. */
  cruiseTolerance: number;
}

export interface Dip {
  tStart: number;
  tEnd: number;
  tMin: number;
  /** 1 - minimum / level. */
  depth: number;
}

export interface RateAnalysis {
  level: number;
  activeSeconds: number;
  dips: Dip[];
  /** Seconds between consecutive dips. */
  dipIntervals: number[];
  /** Seconds from the first packet to the first dip (ProbeRTT timers start with the flow). */
  firstDipAfter: number | null;
  /** Share of active time on the plateau. */
  plateauShare: number;
  /** (p95 - p5) / level over the plateau. */
  plateauSpread: number;
  longestCruiseSeconds: number;
  /** ACF of the detrended plateau, lag in grid steps. */
  acf: Float64Array;
  samplesPerRtt: number;
  /** Skewness and (p95 - p5) / level of the detrended plateau. */
  residualSkew: number;
  residualAmplitude: number;
}

export function analyseRate(f: FlowFeatures, o: RateOptions): RateAnalysis {
  const n = f.y.length;
  const perRtt = f.rttSeconds / f.dt;
  const active = new Uint8Array(n);
  for (let i = f.slowStartEnd; i < n; i++) if (f.mask[i] === 0) active[i] = 1;
  const activeVals = pick(f.y, (i) => active[i] === 1);
  const level = activeVals.length ? median(activeVals) : 0;
  const activeSeconds = activeVals.length * f.dt;

  // Dips: complete runs below 80% of the level, deep and short.
  const dips: Dip[] = [];
  const dipRuns: Array<[number, number]> = [];
  const entry = 0.8 * level;
  const maxDur = o.dipMaxSeconds + o.dipMaxRtts * f.rttSeconds;
  let a = -1;
  for (let i = f.slowStartEnd; i <= n; i++) {
    const below = i < n && active[i] === 1 && f.y[i] < entry;
    if (below && a < 0) a = i;
    if (!below && a >= 0) {
      const b = i - 1;
      const complete = a > f.slowStartEnd && i < n && active[a - 1] === 1 && active[i] === 1;
      let iMin = a;
      for (let j = a; j <= b; j++) if (f.y[j] < f.y[iMin]) iMin = j;
      const depth = level > 0 ? 1 - f.y[iMin] / level : 0;
      if (complete && depth >= o.dipMinDepth && (b - a + 1) * f.dt <= maxDur) {
        dips.push({ tStart: f.t0 + a * f.dt, tEnd: f.t0 + b * f.dt, tMin: f.t0 + iMin * f.dt, depth });
        dipRuns.push([a, b]);
      }
      a = -1;
    }
  }
  const dipIntervals: number[] = [];
  for (let k = 1; k < dips.length; k++) dipIntervals.push(dips[k].tMin - dips[k - 1].tMin);

  // Plateau: active, away from dips and from each back-off until BiF recovers to 90%.
  const plateau = Uint8Array.from(active);
  const pad = Math.max(1, Math.round(perRtt));
  const clear = (from: number, to: number): void => {
    for (let j = Math.max(0, from); j <= Math.min(n - 1, to); j++) plateau[j] = 0;
  };
  for (const [da, db] of dipRuns) clear(da - pad, db + pad);
  for (const b of f.backoffs) {
    // Shallow falls (e.g. the end of a ProbeBW pulse) stay: they are the plateau's texture.
    if (b.trough >= entry) continue;
    let r = b.iTrough;
    while (r < n - 1 && f.y[r] < 0.9 * level) r++;
    clear(b.iPeak - pad, r + pad);
  }
  const plateauVals = pick(f.y, (i) => plateau[i] === 1);
  const plateauShare = activeVals.length ? plateauVals.length / activeVals.length : 0;
  const plateauSpread = plateauVals.length && level > 0 ? (quantile(plateauVals, 0.95) - quantile(plateauVals, 0.05)) / level : NaN;

  let longest = 0;
  let run = 0;
  for (let i = 0; i < n; i++) {
    run = active[i] === 1 && Math.abs(f.y[i] / level - 1) <= o.cruiseTolerance ? run + 1 : 0;
    longest = Math.max(longest, run);
  }

  const window = Math.max(3, Math.round(o.detrendRtts * perRtt));
  const residual = detrend(f.y, plateau, window);
  if (level > 0) for (let i = 0; i < n; i++) residual[i] /= level;
  // Pairs only within one stretch of sending: across idle or application-limited gaps a
  // period is the application's request rhythm (one segment per fetch), not the sender's.
  const stretchOf = new Int32Array(n);
  let stretch = 0;
  for (let i = 0; i < n; i++) {
    if (f.mask[i] !== 0 && (i === 0 || f.mask[i - 1] === 0)) stretch++;
    stretchOf[i] = stretch;
  }
  const acf = autocorrelation(residual, plateau, Math.max(2, Math.round(o.maxLagRtts * perRtt)), stretchOf);
  const resVals = pick(residual, (i) => plateau[i] === 1);
  return {
    level,
    activeSeconds,
    dips,
    dipIntervals,
    firstDipAfter: dips.length ? dips[0].tMin - f.t0 : null,
    plateauShare,
    plateauSpread,
    longestCruiseSeconds: longest * f.dt,
    acf,
    samplesPerRtt: perRtt,
    residualSkew: skewness(residual, plateau),
    residualAmplitude: resVals.length ? quantile(resVals, 0.95) - quantile(resVals, 0.05) : 0,
  };
}

/** Fundamental ACF period with lag in [loRtts, hiRtts], reported in RTTs. */
export function periodInRtts(r: RateAnalysis, loRtts: number, hiRtts: number): { rtts: number; strength: number } | null {
  const p = fundamentalPeak(r.acf, loRtts * r.samplesPerRtt, hiRtts * r.samplesPerRtt);
  return p ? { rtts: p.lag / r.samplesPerRtt, strength: p.strength } : null;
}

/** Largest ACF value within +-halfWidthRtts of a lag given in RTTs (NaN when none is measured). */
export function acfNearRtts(r: RateAnalysis, rtts: number, halfWidthRtts = 0.5): number {
  const lo = Math.max(1, Math.floor((rtts - halfWidthRtts) * r.samplesPerRtt));
  const hi = Math.min(r.acf.length - 1, Math.ceil((rtts + halfWidthRtts) * r.samplesPerRtt));
  let best = NaN;
  for (let k = lo; k <= hi; k++) if (Number.isFinite(r.acf[k]) && !(r.acf[k] <= best)) best = r.acf[k];
  return best;
}

/** Coefficient of variation; 0 for fewer than two values. */
export function cv(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((p, q) => p + q, 0) / xs.length;
  const v = xs.reduce((p, q) => p + (q - m) ** 2, 0) / xs.length;
  return m > 0 ? Math.sqrt(v) / m : Infinity;
}
