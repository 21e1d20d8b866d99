/**
 * BBR classifier (Nebby step 5). BBRv1: ProbeBW pulses (+25% for one RTT every 8 RTTs,
 * found as an autocorrelation peak of the detrended plateau with positive skew) and
 * ProbeRTT dips about every 10 s. BBRv2: no 8-RTT pulses, a cruise of >= 2 s, ProbeRTT
 * about every 5 s. Periodic short deep dips (ProbeRTT-like, with or without pulses) whose
 * timing fits neither are 'BBR (other version)' (e.g. an unknown BBR), not forced into v1/v2;
 * pulses without any ProbeRTT are no BBR claim (loss cycles read that way).
 * A BBRv1 that fills the buffer shows no plateau to read pulses from; its ProbeRTT still
 * drains the window to 4 packets every ~10 s, which the back-off detector sees (probeRttDrains).
 * From far away, where ProbeRTT may show as neither, its gain cycle's drain phase still backs a
 * learned BBRv1 answer (probeBwDrainCycles).
 */
import { z } from 'zod';
import type { JsonObject } from '../json.js';
import { jsonNumber } from '../json.js';
import { acfNearRtts, analyseRate, cv, periodInRtts, type RateAnalysis } from '../rate.js';
import { median } from '../stats.js';
import { EXCLUDED_APP_LIMITED, EXCLUDED_NONE, anyExcluded } from '../exclusion.js';
import type { FlowFeatures } from '../features.js';
import { startupEndIndex } from '../flowShape.js';
import { defineClassifier, type Claim } from '../types.js';
import { defaultRateOptions, rateOptionsSchema } from './rateOptions.js';

export const BBR_V1 = 'BBRv1';
export const BBR_V2 = 'BBRv2';
/** The lab's third BBR version: a learned class (since session 31), no rule names it. */
export const BBR_V3 = 'BBRv3';
export const BBR_OTHER = 'BBR (other version)';

const range = z.object({ min: z.number(), max: z.number() });
const paramsSchema = z.object({
  rate: rateOptionsSchema,
  /** ProbeBW pulse period window (in the flow's median RTTs: 8 x min RTT reads as 6-8). */
  probeBwRtts: range,
  probeBwMinStrength: z.number(),
  probeBwMinSkew: z.number(),
  probeBwMinAmplitude: z.number(),
  /**
   * A pulse train repeats: the ACF at twice the pulse period must reach this share of its
   * strength at the period. Without it, a sub-period of a longer loss cycle passed for pulses
   * (lab CUBIC page flow: back-offs alternating 9.3 and 23.6 RTTs apart, ACF 0.41 at 10 RTTs,
   * 0.01 at 20, 0.79 at the true 33-RTT cycle).
   */
  probeBwMinRepeat: z.number().min(0).default(0.5),
  v1ProbeRttSeconds: range,
  v2ProbeRttSeconds: range,
  v2MinCruiseSeconds: z.number().nonnegative(),
  /**
   * BBRv2 needs this many dips: one dip gives one interval (from the flow's start) and no
   * period. A ProbeRTT every ~5 s gives ~5 in a 30 s trace; a single dip ~5 s in named BBRv2
   * in 6 of ~700 lab traces, 3 of them loss-based (CUBIC, Veno twice) and never kernel BBR
   * alone (its learned class names it).
   */
  v2MinDips: z.number().int().min(1).default(2),
  /** Dip intervals with a larger coefficient of variation are not periodic. */
  maxIntervalCv: z.number().nonnegative(),
  /**
   * 'Other version' from dips alone (no pulses) needs this many dips: two deep dips ~12 s
   * apart are also what a loss-based flow's timeouts give in 30 s (lab: Illinois, Vegas,
   * HSTCP named BBR that way, 3 of ~600 traces; true lab BBR never). A ProbeRTT every ~5 s
   * gives 5 in 30 s; one every ~10 s gives only 2, so an unknown BBR with that timing and no
   * visible pulses now needs a trace of > 30 s (BBRv1 itself is named from pulses and dips, or
   * from its drains to 4 packets: drainMaxShare, drainMaxTroughPackets).
   */
  otherMinDips: z.number().int().min(2).default(3),
  minPlateauShare: z.number().min(0).max(1),
  maxPlateauSpread: z.number().positive(),
  /**
   * BBRv1's ProbeRTT drains in-flight to 4 packets: a back-off after slow start to at most this
   * share of its peak is a drain (BBRv2/v3 only halve the window in ProbeRTT, a loss-based cut
   * keeps >= half; a timeout drains too, but no lab loss-based flow of a >= 20-packet window
   * drained twice at ProbeRTT's spacing in ~1200 traces, the floor before session 31).
   */
  drainMaxShare: z.number().min(0).max(1).default(0.1),
  /**
   * Two drains this far apart (peak to peak) are ProbeRTT: every 10 s, plus ProbeRTT's own
   * 200 ms and round trip, and the 10 s restarting at its end. Lab kernel BBR, fresh rounds
   * 3-9 (falls below 10%, any peak): 32 of 34 intervals 10.6-13.3 s, the other two 6.2-6.4 s
   * beside a third drain.
   */
  drainSeconds: range.default({ min: 9, max: 14 }),
  /**
   * ProbeRTT holds 4 packets, so only a window well above that shows a drain; a small one
   * falling that low is a timeout (lab QUIC CUBIC at 12 packets, once in ~1100 lab traces: a
   * lone drain, and a drain counts only beside another at ProbeRTT's spacing). Lab kernel BBR
   * drains from 28-76 packets under the Nebby profiles (smoothing reads the 4-packet trough
   * lower) and from 18-30 packets of 1448 bytes under `video` (1.5 Mbit/s, ~150 ms). At 12
   * packets a TCP-LP flow (open set) falling from 13 to 1.2 packets, its back-off to the minimum,
   * counted as a drain.
   */
  drainMinPeakPackets: z.number().nonnegative().default(15),
  /**
   * ProbeRTT's floor is absolute (4 packets): a trough of at most this many packets is a drain
   * whatever its share of the peak. Under `video` kernel BBR fell from 18-30 packets to 3.0-3.4
   * (a share of 0.11-0.17, missed by the share rule: every video BBRv1 read "version not shown");
   * over 848 stored quiet-host TCP lab traces of 21 controllers (open set included) no other
   * controller's flow was backed as BBRv1 by it, nor did any of 20 stored QUIC traces change
   * (docs/benchmarks/conditions.md, "The `video` profile, shipped").
   */
  drainMaxTroughPackets: z.number().nonnegative().default(4.5),
  /**
   * A ProbeRTT drain the capture point saw as a pause: with the server far behind the capture
   * point, the 4 packets ProbeRTT keeps are mostly on the unseen part of the path, the visible
   * bytes in flight fall to nothing and the trace step marks the stop as application-limited
   * (trace/app-limited.ts). Such a pause, after start-up, from a window of at least
   * drainMinPeakPackets and no longer than this many RTTs (smoothing pads included), stands for a
   * drain when backing a BBRv1 answer, unless the flow paused otherwise too (pausedDrains). Lab
   * kernel BBR 150 ms away (labs/grid-far.ts `far-150j5`, nebby-100): each ProbeRTT read this way,
   * ~1.6 s (3.5 RTTs) long; a longer pause is a sender with nothing to send. 0: off.
   */
  pausedDrainMaxRtts: z.number().nonnegative().default(5),
  /**
   * ProbeRTT holds its 4 packets for 200 ms and a round trip, then gives the window back at once:
   * a fall whose bytes in flight stay under half the peak for longer than 200 ms and this many
   * RTTs is a timeout's slow recovery, or a delay-based controller yielding, not ProbeRTT. Over the
   * stored held-out sets, the committed fixtures and round AC (session 57), kernel BBR's 41 drains
   * stayed under half for at most 200 ms + 4.4 RTTs (1.5 s); issue 17's BBRv3 at 0.3% loss 90 ms
   * away fell to a few packets for 12-28 RTTs, two such falls 8.3 and 11.7 s apart reading BBRv1 at
   * 0.93, and Copa's long falls lasted 17-33 RTTs over 200 ms. 0: off.
   */
  drainMaxHeldRtts: z.number().nonnegative().default(8),
  /**
   * BBRv1's ProbeBW drain phase (session 53): its gain cycle spends one min RTT at 0.75 in every 8,
   * so the bytes in flight fall by about a quarter every 8 round trips of the whole path. Back-offs
   * after start-up falling this much (share of the peak; the back-off detector sees none under 20%,
   * pipeline backoff.minDrop) ...
   */
  probeBwDrainDepth: range.default({ min: 0.2, max: 0.35 }),
  /**
   * ... this many whole-path minimum RTTs apart (FlowFeatures.pathMinRttSeconds: from far away the
   * capture's own RTT is a part of it) back a BBRv1 answer when at least probeBwMinCycles such
   * intervals make up at least probeBwMinShare of the intervals between those back-offs (an
   * interval is read only between two such back-offs in a row, with no other back-off, idle or
   * application-limited time between them). Over the 2629 TCP traces on disk (rounds A-R and the
   * training grids of sessions 47-52): 41 of 149 kernel BBR traces pass, median interval 8.0-9.2
   * (mostly `video` 85-170 ms away, where ProbeRTT shows neither as a drain nor as a pause); none of
   * the others (BBRv2/v3, Copa, FAST, the loss-based controllers, the open set) does: nearest, Copa
   * through `video` with 3-5 such intervals in 9-19, BBRv3 with 2 in 3.
   */
  probeBwCycleRtts: range.default({ min: 6.5, max: 10.5 }),
  probeBwMinCycles: z.number().int().min(1).default(4),
  probeBwMinShare: z.number().min(0).max(1).default(0.6),
});
export type BbrParams = z.infer<typeof paramsSchema>;

export interface BbrFindings {
  rate: RateAnalysis;
  pulse: { rtts: number; strength: number } | null;
  /** ACF near twice the pulse period (NaN when not measured). */
  pulseRepeat: number;
  pulsesFound: boolean;
  intervals: number[];
  dipPeriod: number | null;
  dipsPeriodic: boolean;
  /** Seconds between consecutive ProbeRTT-like drains seen by the back-off detector. */
  drainIntervals: number[];
  /** Those between two drains ProbeRTT could have made (quickDrain): the only ones read at BBRv1's spacing. */
  quickDrainIntervals: number[];
  /** Times (s) of short pauses standing for ProbeRTT drains seen from far away (pausedDrains). */
  pauses: number[];
  /** ProbeBW's drain phase: intervals at its cycle (probeBwDrainCycles; null without the whole path's RTT). */
  probeBwCycles: ReturnType<typeof probeBwDrainCycles>;
  /** `repeated`: the decision rests on ProbeRTT seen at least twice (drains and pauses together). */
  decision: { label: string; confidence: number; note: string; repeated?: boolean } | null;
}

const within = (x: number | null, r: { min: number; max: number }): boolean => x !== null && x >= r.min && x <= r.max;

type DrainInput = Pick<FlowFeatures, 'backoffs' | 'segmentBytes' | 'mask' | 'slowStartEnd' | 'dt' | 'rttSeconds' | 'y'>;
type DrainParams = Pick<BbrParams, 'drainMaxShare' | 'drainMinPeakPackets' | 'drainMaxTroughPackets' | 'drainMaxHeldRtts'>;
type PausedDrainInput = DrainInput & Pick<FlowFeatures, 'y' | 't0'>;
type PausedDrainParams = Pick<BbrParams, 'drainMinPeakPackets' | 'pausedDrainMaxRtts'>;

const probeBwWords = (p: Pick<BbrParams, 'probeBwDrainDepth' | 'probeBwCycleRtts'>): string =>
  `${Math.round(100 * p.probeBwDrainDepth.min)}-${Math.round(100 * p.probeBwDrainDepth.max)}% at ${p.probeBwCycleRtts.min}-${p.probeBwCycleRtts.max} round trips of the whole path`;

const drainWords = (p: DrainParams): string =>
  `to <= ${Math.round(100 * p.drainMaxShare)}% of the window${p.drainMaxTroughPackets ? ` or <= ${p.drainMaxTroughPackets} packets` : ''}`;

/**
 * BBRv1's ProbeBW gain cycle seen in its drain phase (params probeBwDrainDepth ...): how many
 * intervals between consecutive back-offs of about a quarter lie at ~8 whole-path round trips, out
 * of how many were read, and their median in those round trips. An interval is read only between
 * two such back-offs with nothing between them: a deeper cut (a loss, ProbeRTT) or an idle or
 * application-limited stretch between two falls 4 round trips from it would make two cycles read
 * as one. Null without the whole path's round trip.
 */
export function probeBwDrainCycles(
  f: Pick<FlowFeatures, 'backoffs' | 'pathMinRttSeconds' | 't0' | 'dt' | 'slowStartEnd' | 'mask'>,
  p: Pick<BbrParams, 'probeBwDrainDepth' | 'probeBwCycleRtts'>,
): { atCycle: number; intervals: number; medianRtts: number } | null {
  const rtt = f.pathMinRttSeconds;
  if (rtt === null || !(rtt > 0)) return null;
  // Two whole-path round trips past slow start (f.backoffs start there): the fall that ended it is not a cycle's.
  const from = f.t0 + f.slowStartEnd * f.dt + 2 * rtt;
  const after = f.backoffs.filter((b) => b.tPeak > from);
  const apart: number[] = [];
  for (let k = 1; k < after.length; k++) {
    const [a, b] = [after[k - 1], after[k]];
    if (!within(a.depth, p.probeBwDrainDepth) || !within(b.depth, p.probeBwDrainDepth) || anyExcluded(f.mask, a.iPeak, b.iPeak)) continue;
    apart.push((b.tPeak - a.tPeak) / rtt);
  }
  return {
    atCycle: apart.filter((x) => within(x, p.probeBwCycleRtts)).length,
    intervals: apart.length,
    medianRtts: apart.length ? median(apart) : NaN,
  };
}

/** Enough of those intervals, and most of them, at ProbeBW's cycle. */
export function probeBwCycleShown(c: { atCycle: number; intervals: number }, p: Pick<BbrParams, 'probeBwMinCycles' | 'probeBwMinShare'>): boolean {
  return c.atCycle >= p.probeBwMinCycles && c.atCycle >= p.probeBwMinShare * c.intervals;
}

/** The back-offs that fall like BBRv1's ProbeRTT (see probeRttDrains). */
export function drainBackoffs(f: DrainInput, p: DrainParams): FlowFeatures['backoffs'] {
  const minPeak = p.drainMinPeakPackets * Math.max(f.segmentBytes, 1);
  const startupEnd = startupEndIndex(f.mask.length, f.slowStartEnd, f.rttSeconds / f.dt);
  const maxTrough = p.drainMaxTroughPackets * Math.max(f.segmentBytes, 1);
  return f.backoffs.filter((b) => b.iPeak >= startupEnd && b.peak >= minPeak && (b.trough / b.peak <= p.drainMaxShare || b.trough <= maxTrough));
}

/** A drain given back as fast as ProbeRTT gives it back (drainMaxHeldRtts): one ProbeRTT could have made. */
function quickDrain(f: Pick<FlowFeatures, 'y' | 'dt' | 'rttSeconds'>, b: FlowFeatures['backoffs'][number], p: Pick<BbrParams, 'drainMaxHeldRtts'>): boolean {
  return !p.drainMaxHeldRtts || heldUnderHalfSeconds(f, b) <= PROBE_RTT_HOLD_SECONDS + p.drainMaxHeldRtts * f.rttSeconds;
}

/** ProbeRTT's own minimum hold (Linux bbr_probe_rtt_mode_ms). */
const PROBE_RTT_HOLD_SECONDS = 0.2;

/** How long a fall kept the bytes in flight under half its peak (to the trace's end when they never came back). */
function heldUnderHalfSeconds(f: Pick<FlowFeatures, 'y' | 'dt'>, b: FlowFeatures['backoffs'][number]): number {
  const half = 0.5 * b.peak;
  let from = b.iTrough;
  while (from > b.iPeak && f.y[from - 1] < half) from--;
  let to = b.iTrough;
  while (to < f.y.length && f.y[to] < half) to++;
  return (to - from) * f.dt;
}

/**
 * Times (s) of short pauses after start-up that follow a window of at least drainMinPeakPackets:
 * ProbeRTT drains seen from a capture point that cannot see the 4 packets ProbeRTT keeps
 * (pausedDrainMaxRtts). A pause is a whole excluded run (application-limited, and idle inside it)
 * holding some application-limited time, closed before the trace ends; each is timed at the grid
 * point before it. None at all when the flow also paused otherwise after start-up (a longer pause,
 * or one from a small window): a player or a request/response exchange pauses too, and its pauses
 * may fall ~10 s apart.
 */
export function pausedDrains(f: PausedDrainInput, p: PausedDrainParams): number[] {
  if (!p.pausedDrainMaxRtts) return [];
  const n = f.mask.length;
  const perRtt = f.rttSeconds / f.dt;
  const startupEnd = startupEndIndex(n, f.slowStartEnd, perRtt);
  const minPeak = p.drainMinPeakPackets * Math.max(f.segmentBytes, 1);
  const out: number[] = [];
  let i = startupEnd;
  while (i < n) {
    if (f.mask[i] === EXCLUDED_NONE) {
      i++;
      continue;
    }
    let j = i;
    let appLimited = false;
    for (; j < n && f.mask[j] !== EXCLUDED_NONE; j++) if (f.mask[j] === EXCLUDED_APP_LIMITED) appLimited = true;
    // A run into the trace's end is the transfer ending; one from start-up is start-up's.
    if (j >= n || i === startupEnd) {
      i = j;
      continue;
    }
    if (!appLimited || j - i > p.pausedDrainMaxRtts * perRtt || f.y[i - 1] < minPeak) return [];
    out.push(f.t0 + (i - 1) * f.dt);
    i = j;
  }
  return out;
}

/**
 * Intervals (s, peak to peak) between consecutive ProbeRTT-like drains: back-offs falling to at
 * most drainMaxShare of a peak of at least drainMinPeakPackets, or to at most
 * drainMaxTroughPackets, after start-up (a drain right
 * after slow start may be the timeout that ended it). An interval holding excluded time (idle,
 * application-limited) is not measured: a player fetching one segment every ~10 s drains its
 * flow without any ProbeRTT.
 */
export function probeRttDrains(f: DrainInput, p: DrainParams): number[] {
  return drainIntervals(f, p).all;
}

/**
 * The intervals between consecutive drains (probeRttDrains): all of them, and those between two
 * quick drains (quickDrain), the only ones that can be ProbeRTT's spacing. A slow one still ends
 * an interval: leaving it out would join the drains on either side into one longer interval
 * (issue 17's Copa at 0.3% loss drained every ~4.4 s, held 9-10 RTTs; without the slow ones, two
 * 13 s apart named BBRv1).
 */
export function drainIntervals(f: DrainInput, p: DrainParams): { all: number[]; quick: number[] } {
  const drains = drainBackoffs(f, p);
  const all: number[] = [];
  const quick: number[] = [];
  for (let k = 1; k < drains.length; k++) {
    const [a, b] = [drains[k - 1], drains[k]];
    if (anyExcluded(f.mask, a.iPeak, b.iPeak)) continue;
    all.push(b.tPeak - a.tPeak);
    if (quickDrain(f, a, p) && quickDrain(f, b, p)) quick.push(b.tPeak - a.tPeak);
  }
  return { all, quick };
}

/**
 * Is a TCP flow's BBRv1 answer backed by BBRv1's own signature? The learned BBRv1 class also
 * takes BBRv3 (lab nebby-100: 3 of 5 flows at 1.00), Copa, Hybla and NewReno at a 300 ms RTT
 * (15 of 65 single-profile BBRv1 answers over the grid and issue 17's rounds, all without it),
 * while every TCP BBRv1 answer the rule also gave (40) was right. Backed: the rule names BBRv1
 * (pulses and ~10 s ProbeRTT, or two quick drains ~10 s apart, or drains and pauses ~10 s apart
 * from far away: pausedDecision), or the trace holds one quick drain, ~10 s in, and ends before a
 * second was due (a 20 s trace sees only the first ProbeRTT), or one such pause; or ProbeBW's
 * drain phase every ~8 whole-path round trips (probeBwDrainCycles). Not for QUIC: quinn's BBR drains differently and no other lab QUIC flow is
 * named BBRv1.
 */
export function bbrV1Backing(f: FlowFeatures, p: BbrParams, a: BbrFindings = analyse(f, p)): { backed: boolean; why: string; repeated: boolean } {
  // Repeated: ProbeRTT seen at least twice (two dips, or drains ~10 s apart), not pulses with one dip or none.
  if (a.decision?.label === BBR_V1) return { backed: true, why: a.decision.note, repeated: a.rate.dips.length >= 2 || drainDecision(a.drainIntervals, p, [], a.quickDrainIntervals) !== null || a.decision.repeated === true };
  const drains = drainBackoffs(f, p);
  const end = f.t0 + (f.y.length - 1) * f.dt;
  // The first ProbeRTT comes ~10 s after the start (the min RTT is ~10 s old by then): one drain
  // there, in a trace that ends before the second was due, is BBRv1's. A lone drain elsewhere is
  // not (lab Hybla and BBRv3 fell to near nothing once ~1 s before their transfers ended).
  const first = drains.length === 1 && quickDrain(f, drains[0], p) ? drains[0] : undefined;
  // A BBRv2/v3 rhythm in the dips rules out every BBRv1 backing below, as it does the drains' own.
  const rhythm = v2Rhythm(a.drainIntervals, a.intervals, p, a.quickDrainIntervals);
  if (first && !rhythm && within(first.tPeak, p.drainSeconds) && end - first.tPeak < p.drainSeconds.max) {
    return { backed: true, why: `its first ProbeRTT drain (${drainWords(p)}) at ${first.tPeak.toFixed(1)} s, the trace ending before the next was due`, repeated: false };
  }
  // From far away ProbeRTT reads as a short pause (pausedDrainMaxRtts): drains and such pauses
  // together at ProbeRTT's spacing back BBRv1 as drains alone do.
  const paused = a.pauses;
  if (paused.length) {
    const apart = drainsAndPauses(f, p, a);
    if (drainDecision(apart.all, p, a.intervals, apart.quick)) return { backed: true, why: pausesWords(apart.all), repeated: true };
    const times = [...drains.map((d) => d.tPeak), ...paused];
    if (times.length === 1 && !rhythm && within(times[0], p.drainSeconds) && end - times[0] < p.drainSeconds.max) {
      return { backed: true, why: `its first ProbeRTT, seen as a pause at ${times[0].toFixed(1)} s, the trace ending before the next was due`, repeated: false };
    }
  }
  // ProbeBW's drain phase, every 8 round trips: where ProbeRTT shows neither as a drain nor as a
  // pause (kernel BBR through `video` 85-170 ms away). Not after a BBRv2/v3 rhythm: their bandwidth
  // probes every 2-3 s fall at 6.5-10.5 round trips of a 0.2-0.46 s path. Not repeated in the sense
  // of ProbeRTT: a loss-based sender's regular back-offs under random loss were not measured against it.
  const cycles = a.probeBwCycles;
  if (cycles && !rhythm && probeBwCycleShown(cycles, p)) {
    return { backed: true, why: `ProbeBW's drain phase: ${cycles.atCycle} of ${cycles.intervals} intervals between falls of ${probeBwWords(p)} (median ${cycles.medianRtts.toFixed(1)} round trips)`, repeated: false };
  }
  const n = drains.length + paused.length;
  const spacing = { atV1: drainSpacing(a.quickDrainIntervals, p).atV1, atV2: drainSpacing(a.drainIntervals, p).atV2 };
  const slow = a.drainIntervals.length > a.quickDrainIntervals.length ? ' (falls held longer than ProbeRTT holds them not read at its spacing)' : '';
  const seen = n === 0 ? 'no ProbeRTT drain to 4 packets'
    : rhythm ? `${n} drain(s) or pause(s) and ProbeRTT-like dips, ${rhythm.atV2} interval(s) ~5 s (BBRv2/v3's ProbeRTT spacing) against ${rhythm.atV1} ~10 s${slow}`
    : spacing.atV2 > 0 ? `${n} drain(s) or pause(s), ${spacing.atV2} interval(s) ~5 s (BBRv2/v3's ProbeRTT spacing) against ${spacing.atV1} ~10 s${slow}`
      : `${n} drain(s) or pause(s) but none ~10 s apart${slow}`;
  const drainPhase = !cycles || cycles.intervals === 0 ? ''
    : rhythm && probeBwCycleShown(cycles, p) ? `; ProbeBW's drain phase (${cycles.atCycle} of ${cycles.intervals} intervals at its cycle) beside BBRv2/v3's ~5 s ProbeRTT rhythm (${rhythm.atV2} interval(s))`
      : `, nor ProbeBW's drain phase (${cycles.atCycle} of ${cycles.intervals} intervals at its cycle)`;
  return { backed: false, why: `${seen} and no ProbeBW pulse train in ${f.durationSeconds.toFixed(0)} s${drainPhase}`, repeated: false };
}

/**
 * The evidence the verdict keeps (classifyFlow and the profile fusion read it; null: not TCP).
 * `v1Repeated`: the signature was seen more than once (the rule's own answer, or drains/pauses
 * at ProbeRTT's spacing), not only a first drain before the trace ended.
 */
export interface V1BackingEvidence { v1Backed: boolean | null; v1Backing: string | null; v1Repeated?: boolean }

function v1BackingEvidence(f: FlowFeatures, p: BbrParams, a: BbrFindings): V1BackingEvidence {
  if (f.transport !== 'tcp') return { v1Backed: null, v1Backing: null };
  const b = bbrV1Backing(f, p, a);
  return { v1Backed: b.backed, v1Backing: b.why, v1Repeated: b.backed && b.repeated };
}

/** How many drain intervals lie at BBRv1's ProbeRTT spacing (~10 s) and how many at BBRv2/v3's (~5 s). */
function drainSpacing(intervals: number[], p: BbrParams): { atV1: number; atV2: number } {
  return {
    atV1: intervals.filter((x) => within(x, p.drainSeconds)).length,
    atV2: intervals.filter((x) => within(x, p.v2ProbeRttSeconds)).length,
  };
}

/**
 * Drains and ProbeRTT-like dips (the rate analysis's falls below a held level) at BBRv2/v3's ~5 s
 * spacing at least twice and as often as at BBRv1's ~10 s: a BBRv2/v3 rhythm, whatever the drains
 * alone say. The intervals of the two lists are counted together, not merged into one timeline:
 * a ProbeRTT that is both a drain and a dip adds to both lists' intervals, on either side.
 * WHY (session 46): lab BBRv3 135 ms away drained to a few packets once in 12.7 s and dipped 6.1
 * and 6.5 s apart, and read BBRv1 at 0.87; over every stored lab set no kernel-BBR flow the
 * drains backed (70) had more than one such interval.
 */
function v2Rhythm(drainIntervals: number[], dipIntervals: number[], p: BbrParams, quick: number[] = drainIntervals): { atV1: number; atV2: number } | null {
  // ~10 s only between quick drains, as drainDecision reads them (drainIntervals).
  const atV2 = drainSpacing([...drainIntervals, ...dipIntervals], p).atV2;
  const atV1 = drainSpacing([...quick, ...dipIntervals], p).atV1;
  return atV2 >= 2 && atV2 >= atV1 ? { atV1, atV2 } : null;
}

/**
 * BBRv1 from its drains when at least half the intervals between them lie at ProbeRTT's
 * spacing: one odd interval beside a third drain is allowed (lab kernel BBR: 2 of 34), a train
 * at another spacing is not BBRv1's, nor one with as many intervals at BBRv2/v3's ~5 s spacing
 * (counting the flow's ProbeRTT-like dips too, v2Rhythm).
 */
export function drainDecision(intervals: number[], p: BbrParams, dipIntervals: number[] = [], quick: number[] = intervals): BbrFindings['decision'] {
  // At BBRv1's spacing only between two drains ProbeRTT could have made (drainIntervals).
  const { atV2 } = drainSpacing(intervals, p);
  const { atV1 } = drainSpacing(quick, p);
  // Drains at BBRv2/v3's ProbeRTT spacing (~5 s) as often as at BBRv1's are not BBRv1's: its min
  // RTT expires only after 10 s, and the odd ~6 s interval of lab kernel BBR comes beside two
  // ~10 s ones (drainSeconds). WHY (session 45): lab BBRv2 115 ms away drained 12.6 and 5.9 s
  // apart and read BBRv1 at 0.87.
  if (atV2 >= atV1 || v2Rhythm(intervals, dipIntervals, p, quick)) return null;
  if (2 * atV1 < intervals.length) return null;
  const apart = quick.filter((x) => within(x, p.drainSeconds)).map((x) => x.toFixed(1)).join(', ');
  return { label: BBR_V1, confidence: 0.8, note: `ProbeRTT drains (${drainWords(p)}), ${apart} s apart` };
}

/** What the rate analysis finds in a flow (exported so tests can vary one finding). */
export function analyse(f: FlowFeatures, p: BbrParams): BbrFindings {
  // The ACF reaches twice the longest pulse period so a pulse train's repeat can be checked.
  const rate = analyseRate(f, { ...p.rate, maxLagRtts: Math.max(p.rate.maxLagRtts, 2 * p.probeBwRtts.max + 1) });
  // Search from 2 RTTs so a faster oscillation (e.g. Copa's) is seen as its own period,
  // not mistaken for pulses through its second harmonic.
  const pulse = periodInRtts(rate, 2, p.probeBwRtts.max);
  const pulseRepeat = pulse ? acfNearRtts(rate, 2 * pulse.rtts) : NaN;
  const pulsesFound =
    pulse !== null &&
    pulse.rtts >= p.probeBwRtts.min &&
    pulse.strength >= p.probeBwMinStrength && rate.residualSkew >= p.probeBwMinSkew && rate.residualAmplitude >= p.probeBwMinAmplitude &&
    !(pulseRepeat < p.probeBwMinRepeat * pulse.strength);
  // ProbeRTT timers start with the flow, so the time to the first dip is an interval too.
  const intervals = [...(rate.firstDipAfter !== null ? [rate.firstDipAfter] : []), ...rate.dipIntervals];
  const dipPeriod = intervals.length ? median(intervals) : null;
  const dipsPeriodic = intervals.length >= 1 && cv(intervals) <= p.maxIntervalCv;
  const drains = drainIntervals(f, p);
  const out: BbrFindings = { rate, pulse, pulseRepeat, pulsesFound, intervals, dipPeriod, dipsPeriodic, drainIntervals: drains.all, quickDrainIntervals: drains.quick, pauses: pausedDrains(f, p), probeBwCycles: probeBwDrainCycles(f, p), decision: null };
  const rateLike = rate.plateauShare >= p.minPlateauShare && rate.plateauSpread <= p.maxPlateauSpread;
  // A BBRv1 that fills the buffer holds no plateau to read; its ProbeRTT drains still show, and
  // from far away its ProbeRTT pauses (TCP only: quinn's BBR drains differently).
  out.decision = (rateLike ? rateDecision(f, p, out) : null) ?? drainDecision(drains.all, p, intervals, drains.quick)
    ?? (f.transport === 'tcp' ? pausedDecision(f, p, out) : null);
  return out;
}

/** What the rate analysis's plateau shows: ProbeBW pulses and ProbeRTT dips at BBRv1's or BBRv2's timing, or at neither. */
function rateDecision(f: FlowFeatures, p: BbrParams, a: BbrFindings): BbrFindings['decision'] {
  const { rate, pulse, pulsesFound, dipsPeriodic, dipPeriod } = a;
  const hasDips = rate.dips.length > 0;
  if (pulse && pulsesFound && hasDips && dipsPeriodic && within(dipPeriod, p.v1ProbeRttSeconds)) {
    return { label: BBR_V1, confidence: Math.min(1, 0.6 + pulse.strength * 0.5), note: 'ProbeBW pulses and ~10 s ProbeRTT' };
  }
  if (pulsesFound && !hasDips && f.durationSeconds < p.v1ProbeRttSeconds.max) {
    return { label: BBR_V1, confidence: 0.5, note: 'ProbeBW pulses; trace too short to see ProbeRTT' };
  }
  if (!pulsesFound && rate.dips.length >= p.v2MinDips && dipsPeriodic && within(dipPeriod, p.v2ProbeRttSeconds) && rate.longestCruiseSeconds >= p.v2MinCruiseSeconds) {
    return { label: BBR_V2, confidence: 0.85, note: 'cruise without probing and ~5 s ProbeRTT' };
  }
  if (rate.dips.length >= p.otherMinDips && dipsPeriodic) {
    // Pulses alone are not enough for 'other version': every BBR has a ProbeRTT. Lab grid
    // (g1, h1, h2: ~1100 traces of 12 TCP controllers) and issue 17's BBRv2/v3 rounds: pulses
    // without periodic dips named 8 loss-based flows (CUBIC in a 4-BDP buffer and at 0 ms,
    // Scalable and NewReno in video, Illinois) and no BBR at all (v2/v3 are named by their
    // learned classes); a browser's CUBIC video, back-offs alternating 3.5 and 8.3 s apart,
    // read as 7-RTT pulses the same way.
    return { label: BBR_OTHER, confidence: 0.6, note: pulsesFound ? 'ProbeBW-like pulses and periodic ProbeRTT-like dips, timing fits neither v1 nor v2' : 'periodic ProbeRTT-like dips, timing fits neither v1 nor v2' };
  }
  return null;
}

/**
 * Drains and pauses together (pausedDrains: ProbeRTT seen from a capture point that cannot see its
 * 4 packets), and the intervals between them.
 */
function drainsAndPauses(f: FlowFeatures, p: BbrParams, a: BbrFindings): { all: number[]; quick: number[] } {
  const events = [...drainBackoffs(f, p).map((d) => ({ t: d.tPeak, quick: quickDrain(f, d, p) })), ...a.pauses.map((t) => ({ t, quick: true }))]
    .sort((x, y) => x.t - y.t);
  const pairs = events.slice(1).map((e, k) => ({ apart: e.t - events[k].t, quick: e.quick && events[k].quick }));
  return { all: pairs.map((x) => x.apart), quick: pairs.filter((x) => x.quick).map((x) => x.apart) };
}

const pausesWords = (apart: number[]) => `ProbeRTT drains or pauses ${apart.map((x) => x.toFixed(1)).join(', ')} s apart (the capture point sees too little of the path to show ProbeRTT's 4 packets)`;

/**
 * BBRv1 from its drains and pauses together at ProbeRTT's spacing, as from drains alone: its own
 * claim, not only the backing of a learned BBRv1 answer. WHY (session 57): over held-out rounds
 * Y-AB, 13 kernel-BBR flows 20-160 ms away whose learned shapes named no CCA (NewReno, YeAH, HSTCP
 * likeliest but nearer BBRv1's trained flows) paused so ~11 s apart, and read Unknown; over the 27
 * stored held-out sets and the committed fixtures (940 flows, issue 17's BBRv2/v3, Copa and FAST
 * among them), drains and pauses at that spacing came from kernel BBR alone.
 */
function pausedDecision(f: FlowFeatures, p: BbrParams, a: BbrFindings): BbrFindings['decision'] {
  if (!a.pauses.length) return null;
  const apart = drainsAndPauses(f, p, a);
  const d = drainDecision(apart.all, p, a.intervals, apart.quick);
  return d && { ...d, repeated: true, note: pausesWords(apart.all) };
}

function probeBwCycleEvidence(c: ReturnType<typeof probeBwDrainCycles>): JsonObject | null {
  return c ? { atCycle: c.atCycle, intervals: c.intervals, medianRtts: jsonNumber(c.medianRtts, 2) } : null;
}

export const bbrClassifier = defineClassifier<BbrParams>({
  name: 'bbr',
  description: 'BBRv1 / BBRv2 / other BBR from ProbeBW pulses and ProbeRTT dips',
  labels: [BBR_V1, BBR_V2, BBR_OTHER],
  paramsSchema,
  defaultParams: () => ({
    rate: { ...defaultRateOptions },
    probeBwRtts: { min: 5.5, max: 10.5 },
    probeBwMinStrength: 0.15,
    probeBwMinSkew: 0.5,
    probeBwMinAmplitude: 0.08,
    probeBwMinRepeat: 0.5,
    v1ProbeRttSeconds: { min: 8, max: 12.5 },
    v2ProbeRttSeconds: { min: 3.5, max: 6.5 },
    v2MinCruiseSeconds: 2,
    v2MinDips: 2,
    maxIntervalCv: 0.25,
    otherMinDips: 3,
    minPlateauShare: 0.5,
    maxPlateauSpread: 0.6,
    drainMaxShare: 0.1,
    drainSeconds: { min: 9, max: 14 },
    drainMinPeakPackets: 15,
    drainMaxTroughPackets: 4.5,
    pausedDrainMaxRtts: 5,
    drainMaxHeldRtts: 8,
    probeBwDrainDepth: { min: 0.2, max: 0.35 },
    probeBwCycleRtts: { min: 6.5, max: 10.5 },
    probeBwMinCycles: 4,
    probeBwMinShare: 0.6,
  }),
  fit: (_examples, params) => params,
  predict(f, p): Claim[] {
    const d = analyse(f, p).decision;
    return d ? [{ classifier: 'bbr', label: d.label, scope: 'flow', confidence: d.confidence, note: d.note }] : [];
  },
  explain(f, p): JsonObject {
    const a = analyse(f, p);
    return {
      levelBytes: jsonNumber(a.rate.level, 1),
      plateauShare: jsonNumber(a.rate.plateauShare),
      plateauSpread: jsonNumber(a.rate.plateauSpread),
      probeBwPeriodRtts: a.pulse ? jsonNumber(a.pulse.rtts, 2) : null,
      probeBwStrength: a.pulse ? jsonNumber(a.pulse.strength) : null,
      probeBwRepeatStrength: a.pulse ? jsonNumber(a.pulseRepeat) : null,
      residualSkew: jsonNumber(a.rate.residualSkew),
      residualAmplitude: jsonNumber(a.rate.residualAmplitude),
      pulsesFound: a.pulsesFound,
      dips: a.rate.dips.map((d) => ({ tStart: jsonNumber(d.tStart, 3), tEnd: jsonNumber(d.tEnd, 3), depth: jsonNumber(d.depth) })),
      probeRttIntervalsSeconds: a.intervals.map((x) => jsonNumber(x, 3)),
      probeRttPeriodSeconds: a.dipPeriod === null ? null : jsonNumber(a.dipPeriod, 3),
      longestCruiseSeconds: jsonNumber(a.rate.longestCruiseSeconds, 3),
      probeRttDrainIntervalsSeconds: a.drainIntervals.map((x) => jsonNumber(x, 3)),
      // Those between two drains given back as fast as ProbeRTT gives them back (drainMaxHeldRtts).
      probeRttQuickDrainIntervalsSeconds: a.quickDrainIntervals.map((x) => jsonNumber(x, 3)),
      // Short pauses that stand for ProbeRTT drains seen from far away (pausedDrains).
      probeRttPauseTimesSeconds: a.pauses.map((x) => jsonNumber(x, 3)),
      // Intervals between ProbeBW-drain-like falls at ~8 whole-path round trips (probeBwDrainCycles).
      probeBwDrainCycles: probeBwCycleEvidence(a.probeBwCycles),
      decision: a.decision ? a.decision.label : null,
      note: a.decision ? a.decision.note : 'no BBR signature',
      // Whether a BBRv1 answer for this TCP flow is backed by BBRv1's signature (null: not TCP).
      ...v1BackingEvidence(f, p, a),
    };
  },
});
