/**
 * Stage 3a: one descriptor vector per flow for the loss-based classifier. Nebby judges each
 * segment on its own polynomial; at 200 kbit/s a 30 s trace holds 1-9 segments, too few
 * for "some match X, none match another" to be decisive. This vector pools every segment
 * of the flow and adds what the polynomial cannot see, in packets and RTTs so one class
 * looks alike under both profiles:
 *  - beta: level after a back-off / level before it (Reno 0.5, CUBIC 0.7, BIC 0.8, ...);
 *  - growthPerRtt: additive increase in packets per RTT (Reno 1, HSTCP ~2, Veno ~0.5);
 *  - curvature: how the growth rate changes within a segment (HTCP accelerates, BIC and
 *    Illinois slow down near the old maximum, Reno is straight);
 *  - the polynomial coefficients (medians over segments, Nebby's features);
 *  - how often it backs off, how flat it holds (Vegas, BIC plateaus), and the start-up:
 *    how many back-offs the first 12 RTTs after slow start hold (BIC, Scalable, YeAH and
 *    Illinois oscillate there; Reno, CUBIC and HSTCP recover once);
 *  - ProbeRTT-like dips per 10 s, so the learned model knows lab BBR too;
 *  - the share of sent bytes the sender lost (describeLoss), when the trace counted losses;
 *  - for QUIC flows, the packets regained per loss cycle (describeCycleRise), which a flow
 *    whose window is too small for any usable segment still shows.
 * Missing values are NaN (e.g. no back-off at all): the naive Bayes skips them.
 */
import { lossShareOf } from '../trace/loss-timeline.js';
import type { SenderLoss } from '../trace/types.js';
import type { Backoff } from './backoffs.js';
import { anyExcluded } from './exclusion.js';
import { defaultRateOptions } from './classifiers/rateOptions.js';
import type { FlowFeatures } from './features.js';
import { analyseRate } from './rate.js';
import type { SegmentShape } from './segmentFeatures.js';
import { median } from './stats.js';

export const FLOW_SHAPE_NAMES = [
  'beta',
  'growthPerRtt',
  'curvature',
  'c1',
  'c2',
  'c3',
  'backoffsPer100Rtt',
  'startupBackoffs',
  'flatShare',
  'meanOverMax',
  'levelCv',
  'segmentRtts',
  'dipsPer10s',
  'logLossShare',
  'cycleRisePkts',
] as const;

/** The first RTTs after slow start count as start-up (oscillations there are telling). */
const STARTUP_RTTS = 12;
/** A fall ending this close to the end of the trace is the transfer draining, not a back-off. */
const DRAIN_RTTS = 2;
/** A segment must rise by this many packets for its curve to say anything. */
const MIN_RISE_PKTS = 3;
/** Below this many packets per RTT of change a stretch is 'flat'. */
const FLAT_PKTS_PER_RTT = 0.25;

export interface FlowShapeInput {
  y: Float64Array;
  mask: Uint8Array;
  t0: number;
  dt: number;
  rttSeconds: number;
  slowStartEnd: number;
  backoffs: Backoff[];
  segments: SegmentShape[];
  /** Typical data segment size in bytes (converts BiF to packets). */
  segmentBytes: number;
}

/** Least-squares slope of y[a..b] against the grid index. */
function slope(y: Float64Array, a: number, b: number): number {
  const n = b - a + 1;
  if (n < 2) return NaN;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = a; i <= b; i++) {
    const x = i - a;
    sx += x;
    sy += y[i];
    sxx += x * x;
    sxy += x * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

const medianOrNaN = (xs: number[]): number => (xs.length ? median(xs) : NaN);

/** Grid index where start-up ends: STARTUP_RTTS after slow start. */
export const startupEndIndex = (n: number, slowStartEnd: number, perRtt: number): number => Math.min(n, slowStartEnd + Math.round(STARTUP_RTTS * perRtt));

/** The back-offs that are not the transfer draining at the end of an n-point grid. */
const beforeDrain = (backoffs: Backoff[], n: number, perRtt: number): Backoff[] => {
  const drainFrom = n - 1 - Math.round(DRAIN_RTTS * perRtt);
  return backoffs.filter((b) => b.iTrough < drainFrom);
};

/**
 * The back-offs after start-up that are not the transfer draining: the ones beta is measured on
 * (the one ending slow start and the start-up ones are counted apart).
 */
export function steadyBackoffs(f: Pick<FlowShapeInput, 'y' | 't0' | 'dt' | 'rttSeconds' | 'slowStartEnd' | 'backoffs'>): { steady: Backoff[]; startup: number } {
  const n = f.y.length;
  const perRtt = f.rttSeconds / f.dt;
  const tStartupEnd = f.t0 + startupEndIndex(n, f.slowStartEnd, perRtt) * f.dt;
  const backoffs = beforeDrain(f.backoffs, n, perRtt);
  const steady = backoffs.filter((b) => b.tPeak >= tStartupEnd);
  return { steady, startup: backoffs.length - steady.length };
}

export function describeFlowShape(f: FlowShapeInput): number[] {
  const { y, mask, dt, rttSeconds: rtt } = f;
  const n = y.length;
  const mss = f.segmentBytes > 0 ? f.segmentBytes : 1;
  const perRtt = rtt / dt;
  const startupEnd = startupEndIndex(n, f.slowStartEnd, perRtt);

  const { steady, startup: startupBackoffs } = steadyBackoffs(f);
  const beta = medianOrNaN(steady.map((b) => b.trough / b.peak));

  const steadyPoints: number[] = [];
  let flat = 0;
  let judged = 0;
  const half = Math.max(1, Math.round(perRtt));
  for (let i = startupEnd; i < n; i++) {
    if (mask[i] !== 0) continue;
    steadyPoints.push(y[i] / mss);
    if (i - half >= 0 && i + half < n) {
      judged++;
      const d = (y[i + half] - y[i - half]) / mss / 2; // packets per RTT
      if (Math.abs(d) < FLAT_PKTS_PER_RTT) flat++;
    }
  }
  const steadyRtts = ((n - startupEnd) * dt) / rtt;
  let mean = NaN;
  let cv = NaN;
  let meanOverMax = NaN;
  if (steadyPoints.length > 1) {
    mean = steadyPoints.reduce((a, b) => a + b, 0) / steadyPoints.length;
    const sd = Math.sqrt(steadyPoints.reduce((a, b) => a + (b - mean) ** 2, 0) / steadyPoints.length);
    cv = mean > 0 ? sd / mean : NaN;
    const max = Math.max(...steadyPoints);
    meanOverMax = max > 0 ? mean / max : NaN;
  }

  // Per usable segment after start-up: growth (middle 80%) and its change (last vs first third).
  const growth: number[] = [];
  const curvature: number[] = [];
  const durations: number[] = [];
  const c1: number[] = [];
  const c2: number[] = [];
  const c3: number[] = [];
  for (const s of f.segments) {
    const g = s.segment;
    if (!g.usable || !s.fit || (g.iStart + g.iEnd) / 2 < startupEnd) continue;
    const len = g.iEnd - g.iStart;
    const a = g.iStart + Math.floor(0.1 * len);
    const b = g.iEnd - Math.floor(0.1 * len);
    const whole = (slope(y, a, b) * perRtt) / mss;
    const third = Math.floor((b - a) / 3);
    const first = (slope(y, a, a + third) * perRtt) / mss;
    const last = (slope(y, b - third, b) * perRtt) / mss;
    growth.push(whole);
    durations.push(g.durationRtts);
    // The shape of a segment that hardly rises is the shape of noise: no shape features.
    const rise = (whole * (b - a)) / perRtt;
    if (rise < MIN_RISE_PKTS) continue;
    curvature.push((last - first) / (Math.abs(whole) + 0.1));
    c1.push(s.fit.coefficients[1] ?? 0);
    c2.push(s.fit.coefficients[2] ?? 0);
    c3.push(s.fit.coefficients[3] ?? 0);
  }
  return [
    beta,
    medianOrNaN(growth),
    medianOrNaN(curvature),
    medianOrNaN(c1),
    medianOrNaN(c2),
    medianOrNaN(c3),
    steadyRtts > 0 ? (100 * steady.length) / steadyRtts : NaN,
    startupBackoffs,
    judged ? flat / judged : NaN,
    meanOverMax,
    cv,
    medianOrNaN(durations),
  ];
}

/**
 * Typical data segment size: BiF grows by one segment per packet sent, so the most common
 * positive step of the raw series is the segment size (88 bytes at MSS 100 with timestamps).
 */
export function typicalSegmentBytes(bif: Float64Array): number {
  const counts = new Map<number, number>();
  for (let i = 1; i < bif.length; i++) {
    const d = bif[i] - bif[i - 1];
    if (d > 0 && d <= 65535) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = 0;
  for (const [d, c] of counts) if (c > bestCount || (c === bestCount && d < best)) [best, bestCount] = [d, c];
  return best;
}

/**
 * The rate-based part of the descriptor: short deep dips per 10 s (BBR's ProbeRTT).
 * WHY not the ProbeBW pulse strength or the plateau skew too: both were tried; they are so
 * steady in lab probes that browser flows of the same server (several requests, pauses) fell
 * outside their class, and leaving them out raised cross-validated accuracy (93% -> 96%).
 */
export function describeRateTexture(f: FlowFeatures): number[] {
  const r = analyseRate(f, defaultRateOptions);
  return [r.activeSeconds > 0 ? (10 * r.dips.length) / r.activeSeconds : NaN];
}

/** Shares below this read as this (a flow that lost nothing is not infinitely far from one that lost one segment). */
const MIN_LOSS_SHARE = 1e-3;

/**
 * The loss part of the descriptor: log10 of the share of sent bytes the sender lost (NaN
 * when the trace could not count losses). WHY: at one bottleneck the loss share is set by how
 * hard a controller pushes after each loss, and it is steady per controller where the shapes
 * overlap: lab TCP near, nebby-100: kernel BBR 1.3-2.0%, the AIMD controllers 2.2%, Scalable
 * and YeAH 4.3-6.1% (held out of training, YeAH had come out as BBRv1, Scalable as Illinois).
 */
export function describeLoss(loss: SenderLoss | null): number {
  const share = lossShareOf(loss);
  return share === null ? NaN : Math.log10(Math.max(MIN_LOSS_SHARE, share));
}

/**
 * The packets regained per loss cycle after start-up: the median, over back-offs, of the rise
 * from one back-off's trough to the next one's peak (half the window for Reno, 0.3 of it for
 * CUBIC). WHY: a QUIC flow at the nebby profiles holds 4-12 packets of 1200-1450 bytes, so no
 * stretch between back-offs reaches the 8 RTTs of a usable segment and every growth and curve
 * feature is missing; the rise still tells the controllers apart. Lab QUIC (10th-90th percentile
 * of 48 flows each): NewReno 4.8-7.2 packets under nebby-100 and 3.3-3.6 under nebby-50, CUBIC
 * 2.8-4.2 and 2.2-3.2 (held out of training, QUIC NewReno had come out as CUBIC). A cycle that
 * crosses excluded (idle or application-limited) time is not a cycle.
 * Not the cycle's length in RTTs as well: a shallow fall inside a cycle splits it in two, and the
 * length then put fresh NewReno flows outside their own class (fresh QUIC 107 of 110 right with
 * it, 109 without; docs/benchmarks/classifier.md).
 */
export function describeCycleRise(f: Pick<FlowFeatures, 'backoffs' | 'mask' | 'slowStartEnd' | 't0' | 'dt' | 'rttSeconds' | 'segmentBytes'>): number {
  const n = f.mask.length;
  const perRtt = f.rttSeconds / f.dt;
  const mss = f.segmentBytes > 0 ? f.segmentBytes : 1;
  const tStartupEnd = f.t0 + startupEndIndex(n, f.slowStartEnd, perRtt) * f.dt;
  const steady = beforeDrain(f.backoffs, n, perRtt).filter((b) => b.tPeak >= tStartupEnd);
  const rise: number[] = [];
  for (let k = 0; k + 1 < steady.length; k++) {
    const [from, to] = [steady[k], steady[k + 1]];
    if (to.iPeak > from.iTrough && !anyExcluded(f.mask, from.iTrough, to.iPeak)) rise.push((to.peak - from.trough) / mss);
  }
  return medianOrNaN(rise);
}
