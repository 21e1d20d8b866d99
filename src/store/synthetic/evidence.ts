/**
 * Synthetic classifier evidence with the shapes each CCA leaves in bytes in flight (Nebby
 * 6.2): CUBIC's concave-plateau-convex cycles, NewReno's concave ramps, BBRv1's +25% ProbeBW
 * bumps every 8 RTTs and ProbeRTT dips every 10 s, BBRv2's cruise and 5 s dips, AkamaiCC's
 * flat level with back-offs every 10-20 s, Copa's 5-RTT swing. For fixtures and the report's
 * tests and benchmark only: nothing here is measured.
 */
import type { Evidence, PeriodRecord, SegmentRecord } from '../../results/schema.js';
import { polyfit } from '../../util/polyfit.js';
import type { Rng } from './prng.js';

export interface EvidenceOptions {
  rttSeconds: number;
  durationSeconds: number;
  /** Points of the smoothed series drawn by the report. */
  points: number;
  levelBytes: number;
}

const SLOW_START_S = 1.5;

interface Shape {
  /** BiF at time t (before noise and smoothing). */
  at(t: number): number;
  backoffs: number[];
  periods: PeriodRecord[];
  /** Degree of the fitted polynomial for loss-based segments, 0 = no shape fit. */
  degree: number;
}

function cycles(r: Rng, dur: number, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let t = SLOW_START_S + r() * lo; t < dur; t += lo + r() * (hi - lo)) out.push(t);
  return out;
}

function lossShape(r: Rng, o: EvidenceOptions, kind: 'cubic' | 'reno'): Shape {
  const wmax = o.levelBytes * 1.15;
  const backoffs = cycles(r, o.durationSeconds, kind === 'cubic' ? 3.5 : 4.5, kind === 'cubic' ? 6 : 8);
  // The grid is walked in increasing t: keep a cursor on the current cycle instead of searching.
  let k = -1;
  const at = (t: number): number => {
    while (k + 1 < backoffs.length && t >= backoffs[k + 1]) k++;
    const start = k < 0 ? SLOW_START_S : backoffs[k];
    const end = backoffs[k + 1] ?? start + (k >= 0 ? backoffs[k] - (backoffs[k - 1] ?? SLOW_START_S) : o.durationSeconds);
    const u = Math.min(1, (t - start) / Math.max(1e-3, end - start));
    return kind === 'cubic' ? wmax * (1 + 0.3 * ((u - 0.6) / 0.6) ** 3) : wmax * (0.5 + 0.5 * (1 - (1 - u) ** 2));
  };
  return { at, backoffs, periods: [], degree: kind === 'cubic' ? 3 : 2 };
}

function bbrShape(o: EvidenceOptions, version: 'v1' | 'v2' | 'other'): Shape {
  const rtt = o.rttSeconds;
  const L = o.levelBytes;
  const probePeriod = version === 'v2' ? 0 : 8 * rtt;
  const dipEvery = version === 'v1' ? 10 : version === 'v2' ? 5 : 0;
  const bumps: number[] = [];
  if (probePeriod) for (let t = SLOW_START_S + probePeriod / 2; t < o.durationSeconds; t += probePeriod) bumps.push(t);
  const dips: number[] = [];
  if (dipEvery) for (let t = dipEvery; t < o.durationSeconds; t += dipEvery) dips.push(t);
  const first = SLOW_START_S + probePeriod / 2;
  const at = (t: number): number => {
    if (dipEvery && t >= dipEvery && t % dipEvery < 0.2 + rtt) return L * 0.12;
    if (probePeriod && t >= first) {
      const phase = (t - first) % probePeriod;
      if (phase < rtt) return L * 1.25;
      if (phase < 2 * rtt) return L * 0.8;
    }
    return L;
  };
  const periods: PeriodRecord[] = [];
  if (probePeriod) periods.push({ kind: 'probe-bw', periodSeconds: probePeriod, periodRtts: 8, strength: 0.7, marks: bumps.map((b) => b + rtt / 2) });
  if (dipEvery) periods.push({ kind: 'probe-rtt', periodSeconds: dipEvery, marks: dips });
  return { at, backoffs: [], periods, degree: 0 };
}

function akamaiShape(r: Rng, o: EvidenceOptions): Shape {
  const backoffs = cycles(r, o.durationSeconds, 10, 20);
  let k = -1;
  const at = (t: number): number => {
    while (k + 1 < backoffs.length && t >= backoffs[k + 1]) k++;
    return k >= 0 && t < backoffs[k] + 1 ? o.levelBytes * (0.6 + 0.4 * (t - backoffs[k])) : o.levelBytes;
  };
  const mean = backoffs.length > 1 ? (backoffs[backoffs.length - 1] - backoffs[0]) / (backoffs.length - 1) : 15;
  return { at, backoffs, periods: [{ kind: 'backoff-cycle', periodSeconds: mean, marks: backoffs }], degree: 1 };
}

function copaShape(o: EvidenceOptions): Shape {
  const period = 5 * o.rttSeconds;
  return {
    at: (t) => o.levelBytes * (1 + 0.2 * Math.sin((2 * Math.PI * t) / period)),
    backoffs: [],
    periods: [{ kind: 'oscillation', periodSeconds: period, periodRtts: 5, strength: 0.6, marks: [] }],
    degree: 0,
  };
}

function noiseShape(r: Rng, o: EvidenceOptions): Shape {
  const knots = Array.from({ length: 12 }, () => o.levelBytes * (0.4 + r() * 0.9));
  return {
    at: (t) => {
      const x = (t / o.durationSeconds) * (knots.length - 1);
      const i = Math.min(knots.length - 2, Math.floor(x));
      return knots[i] + (knots[i + 1] - knots[i]) * (x - i);
    },
    backoffs: [],
    periods: [],
    degree: 0,
  };
}

function shapeFor(r: Rng, label: string, o: EvidenceOptions): Shape {
  switch (label) {
    case 'CUBIC':
      return lossShape(r, o, 'cubic');
    case 'NewReno':
      return lossShape(r, o, 'reno');
    case 'BBRv1':
      return bbrShape(o, 'v1');
    case 'BBRv2':
    case 'BBRv3':
      return bbrShape(o, 'v2');
    case 'BBR (other version)':
      return bbrShape(o, 'other');
    case 'AkamaiCC-like':
      return akamaiShape(r, o);
    case 'Copa':
      return copaShape(o);
    default:
      return noiseShape(r, o);
  }
}

/** Evidence as the classifier would report it for a flow of this label. */
export function syntheticEvidence(r: Rng, label: string, o: EvidenceOptions): Evidence {
  const shape = shapeFor(r, label, o);
  // Fine enough to resolve a one-RTT bump, no finer than the drawing needs.
  const dtFine = Math.max(o.rttSeconds / 4, o.durationSeconds / (4 * o.points));
  const n = Math.max(16, Math.floor(o.durationSeconds / dtFine));
  const fine = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = i * dtFine;
    // Slow start: doubling per RTT up to the first level, then the CCA's shape.
    const ramp = t < SLOW_START_S ? Math.min(1, 2 ** ((t - SLOW_START_S) / o.rttSeconds)) : 1;
    fine[i] = Math.max(0, shape.at(Math.max(t, SLOW_START_S)) * ramp * (1 + (r() - 0.5) * 0.08));
  }
  // Low-pass as the classifier does (here a 1-RTT moving average), then decimate for drawing.
  const win = Math.max(1, Math.round(o.rttSeconds / dtFine));
  const smooth = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += fine[i] - (i >= win ? fine[i - win] : 0);
    smooth[i] = acc / Math.min(i + 1, win);
  }
  const step = Math.max(1, Math.ceil(n / o.points));
  const bif: number[] = [];
  for (let i = 0; i < n; i += step) bif.push(Math.round(smooth[i]));
  const dt = step * dtFine;

  const bounds = [SLOW_START_S, ...shape.backoffs, o.durationSeconds];
  const segments: SegmentRecord[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const tStart = bounds[k];
    const tEnd = bounds[k + 1] - 0.05;
    const a = Math.floor(tStart / dt);
    const b = Math.min(bif.length - 1, Math.floor(tEnd / dt));
    const ys = bif.slice(a, b + 1);
    const lo = Math.min(...ys);
    const hi = Math.max(...ys);
    const closed = k + 1 < bounds.length - 1;
    const usable = shape.degree > 0 && closed && tEnd - tStart >= 8 * o.rttSeconds && ys.length >= 8;
    const seg: SegmentRecord = { index: k, tStart: round(tStart, 3), tEnd: round(tEnd, 3), usable, bifMin: lo, bifMax: hi };
    if (!usable) seg.dropReason = shape.degree === 0 ? 'rate-based shape: no back-off cycle' : closed ? 'shorter than 8 RTTs' : 'not closed by a back-off';
    if (shape.degree > 0 && ys.length >= 8 && tEnd - tStart >= 2 && hi > lo) {
      const fit = fitOnUnitInterval(ys.map((y) => (y - lo) / (hi - lo)), shape.degree);
      seg.polynomial = { degree: shape.degree, coefficients: fit.coefficients.map((c) => round(c, 5)), mse: round(fit.mse, 6) };
      if (usable) seg.match = label;
    }
    segments.push(seg);
  }
  return {
    rttSeconds: o.rttSeconds,
    smoothed: { t0: 0, dt: round(dt, 6), bif },
    segments,
    periods: shape.periods.map((p) => ({ ...p, marks: p.marks.map((m) => round(m, 3)) })),
    backoffs: shape.backoffs.map((t) => ({ tPeak: round(t - 0.05, 3), tTrough: round(t + 0.1, 3), depth: label === 'NewReno' ? 0.5 : label === 'CUBIC' ? 0.3 : 0.4 })),
    slowStartEndSeconds: SLOW_START_S,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The least-squares fit of evenly spaced samples on x in [0, 1] (util/polyfit.ts). */
function fitOnUnitInterval(ys: readonly number[], degree: number): { coefficients: number[]; mse: number } {
  const n = ys.length;
  if (n <= degree) return { coefficients: new Array<number>(degree + 1).fill(0).map((_, k) => (k === 0 ? ys[0] ?? 0 : 0)), mse: 0 };
  return polyfit(ys.map((_, i) => (n === 1 ? 0 : i / (n - 1))), ys, degree);
}
