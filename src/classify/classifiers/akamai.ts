/**
 * AkamaiCC-like classifier (thesis section 6.3.3): BiF held at one constant level for
 * seconds at a time, with back-offs every 10-20 s that are not loss-driven sawteeth.
 * Whether the level ignores the BDP can only be seen across two network profiles; that
 * check lives in fuseProfiles, which compares the levels of both profiles' verdicts.
 *
 * Issue 17: a FAST TCP sender (Wei, Jin, Low & Hegde 2006; the lab's `ccb_fast`, the
 * AkamaiCC-like origin) steers its window to a fixed number of its own packets queued
 * (alpha) and only reacts to loss, so behind the Nebby bottleneck it shows the flat level
 * but no back-off at all after start-up: it never met the 10-20 s window. A level held
 * flat (p95-p5 <= `held.maxSpread` of it) for >= `held.minSeconds` without a back-off is
 * the same signature without the periodic back-off. Measured on the lab's FAST (30 s
 * traces, both profiles): spread 0.015-0.034, 27-28 s between the start-up and the
 * transfer's end; the flattest other lab controllers are far wider (Vegas 1.4-1.6, kernel
 * BBR 0.5, CUBIC 0.35; docs/lab-cca.md).
 *
 * Vegas holds a flat level too where its window settles (the `video` profile: spread 0.04 over
 * 30 s, once named AkamaiCC-like at 0.94). What sets it apart is the queue it keeps: Vegas
 * steers to alpha-beta = 2-4 packets queued (Linux's constants; 2.6-5.8 measured above the BDP),
 * FAST to its alpha (the lab's 20: 18.5-20.5 measured, both Nebby profiles, 84 traces). A held
 * level with fewer than `held.minQueuedPackets` queued is not FAST's signature.
 */
import { z } from 'zod';
import type { JsonObject } from '../json.js';
import { jsonNumber } from '../json.js';
import { analyseRate } from '../rate.js';
import { median, pick } from '../stats.js';
import { defineClassifier, type Claim } from '../types.js';
import type { FlowFeatures } from '../features.js';
import { defaultRateOptions, rateOptionsSchema } from './rateOptions.js';

export const AKAMAI = 'AkamaiCC-like';
/** Packets a held level must keep queued above the BDP to be FAST's: twice Vegas's beta (4). */
export const MIN_QUEUED_PACKETS = 8;
/**
 * Packets a held level may keep queued above the BDP and still be FAST's: twice its alpha (20).
 * FAST steers the queue to alpha whatever the buffer; a level held flat with far more queued and
 * nothing lost is capped by a window (the receiver's, or the sender's buffer), not steered. WHY
 * (session 59): held-out round AL, 1.5 Mbit/s behind nebby-100, where every kernel loss-based
 * sender held 60 kB (438 packets queued, none lost) for 29 s and read AkamaiCC-like at 0.85-1.00
 * (7 of 17 flows; FAST there kept 16.5-18.1).
 */
export const MAX_QUEUED_PACKETS = 40;
/** The held-level signature's defaults: a fresh model's, and those of model files written before it existed. */
const HELD_DEFAULTS = { maxSpread: 0.08, minSeconds: 20, minPlateauShare: 0.85, minQueuedPackets: MIN_QUEUED_PACKETS, maxQueuedPackets: MAX_QUEUED_PACKETS };

const paramsSchema = z.object({
  rate: rateOptionsSchema,
  intervalSeconds: z.object({ min: z.number(), max: z.number() }),
  /** Relative slack on the interval window. */
  intervalTolerance: z.number().nonnegative(),
  maxPlateauSpread: z.number().positive(),
  /** Largest relative difference between the levels held between back-offs. */
  maxLevelDrift: z.number().nonnegative(),
  minPlateauShare: z.number().min(0).max(1),
  /**
   * Issue 17: FAST's signature without the periodic back-off: held this flat for this long
   * with no back-off in between, on this share of the active time. Defaults apply to model
   * files written before it existed.
   */
  held: z.object({
    maxSpread: z.number().nonnegative(),
    minSeconds: z.number().positive(),
    minPlateauShare: z.number().min(0).max(1),
    /** Packets queued above the BDP the held level must show (when the capture measured the BDP): twice Vegas's beta. */
    minQueuedPackets: z.number().nonnegative().default(MIN_QUEUED_PACKETS),
    /** Packets queued above the BDP the held level may show at most: twice FAST's alpha (MAX_QUEUED_PACKETS). */
    maxQueuedPackets: z.number().nonnegative().default(MAX_QUEUED_PACKETS),
  }).default(HELD_DEFAULTS),
});
export type AkamaiParams = z.infer<typeof paramsSchema>;

function analyse(f: FlowFeatures, p: AkamaiParams) {
  const rate = analyseRate(f, p.rate);
  const times = f.backoffs.map((b) => b.tPeak);
  const intervals: number[] = [];
  for (let k = 1; k < times.length; k++) intervals.push(times[k] - times[k - 1]);
  const lo = p.intervalSeconds.min * (1 - p.intervalTolerance);
  const hi = p.intervalSeconds.max * (1 + p.intervalTolerance);
  const intervalsOk = intervals.length >= 1 && intervals.every((x) => x >= lo && x <= hi);
  // Level held in each stretch between consecutive back-offs (upper half, past the recovery).
  const levels: number[] = [];
  for (let k = 0; k + 1 < f.backoffs.length; k++) {
    const a = f.backoffs[k].iTrough;
    const b = f.backoffs[k + 1].iPeak;
    const vals = pick(f.y, (i) => i >= a && i <= b && f.mask[i] === 0 && f.y[i] >= 0.9 * rate.level);
    if (vals.length) levels.push(median(vals));
  }
  const drift = levels.length ? Math.max(...levels) / Math.min(...levels) - 1 : NaN;
  const flat = rate.plateauSpread <= p.maxPlateauSpread && rate.plateauShare >= p.minPlateauShare;
  const levelOk = levels.length > 0 && drift <= p.maxLevelDrift;
  // Longest stretch with no back-off in it: from slow start's end, between back-offs, to the end.
  const start = f.t0 + f.slowStartEnd * f.dt;
  const end = f.t0 + (f.y.length - 1) * f.dt;
  const edges = [start, ...times.filter((x) => x > start && x < end), end];
  let heldSeconds = 0;
  for (let k = 1; k < edges.length; k++) heldSeconds = Math.max(heldSeconds, edges[k] - edges[k - 1]);
  // Packets the held level keeps queued above the BDP (NaN when the capture did not measure the
  // pipe). The pipe's own segment size, the unit its BDP is in (not f.segmentBytes, read from the series).
  const queuedPackets = f.pipe ? rate.level / f.pipe.segmentBytes - f.pipe.bdpPackets : NaN;
  const queueOk = !(queuedPackets < p.held.minQueuedPackets) && !(queuedPackets > p.held.maxQueuedPackets);
  const held = rate.plateauSpread <= p.held.maxSpread && rate.plateauShare >= p.held.minPlateauShare && heldSeconds >= p.held.minSeconds && queueOk;
  const periodic = intervalsOk && flat && levelOk;
  return { rate, intervals, intervalsOk, levels, drift, flat, levelOk, heldSeconds, queuedPackets, held, periodic, match: periodic || held };
}

export const akamaiClassifier = defineClassifier<AkamaiParams>({
  name: 'akamai',
  description: 'Constant in-flight level with back-offs every 10-20 s (AkamaiCC-like)',
  labels: [AKAMAI],
  paramsSchema,
  defaultParams: () => ({
    rate: { ...defaultRateOptions },
    intervalSeconds: { min: 10, max: 20 },
    intervalTolerance: 0.1,
    maxPlateauSpread: 0.15,
    maxLevelDrift: 0.1,
    minPlateauShare: 0.6,
    held: { ...HELD_DEFAULTS },
  }),
  fit: (_examples, params) => params,
  predict(f, p): Claim[] {
    const a = analyse(f, p);
    if (!a.match) return [];
    if (!a.periodic) {
      const confidence = Math.max(0.5, 0.9 - a.rate.plateauSpread);
      return [{ classifier: 'akamai', label: AKAMAI, scope: 'flow', confidence, note: `level held flat (spread ${a.rate.plateauSpread.toFixed(3)}) for ${a.heldSeconds.toFixed(1)} s without a back-off` }];
    }
    const confidence = Math.max(0.5, 0.9 - a.rate.plateauSpread - a.drift);
    return [{ classifier: 'akamai', label: AKAMAI, scope: 'flow', confidence, note: `level held between back-offs every ${a.intervals.map((x) => x.toFixed(1)).join(', ')} s` }];
  },
  explain(f, p): JsonObject {
    const a = analyse(f, p);
    return {
      levelBytes: jsonNumber(a.rate.level, 1),
      plateauSpread: jsonNumber(a.rate.plateauSpread),
      plateauShare: jsonNumber(a.rate.plateauShare),
      backoffIntervalsSeconds: a.intervals.map((x) => jsonNumber(x, 3)),
      levelsBetweenBackoffs: a.levels.map((x) => jsonNumber(x, 1)),
      levelDrift: jsonNumber(a.drift),
      intervalsOk: a.intervalsOk,
      flat: a.flat,
      levelOk: a.levelOk,
      heldSeconds: jsonNumber(a.heldSeconds, 2),
      queuedPackets: jsonNumber(a.queuedPackets, 1),
      held: a.held,
      decision: a.match ? AKAMAI : null,
    };
  },
});
