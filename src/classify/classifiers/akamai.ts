/**
 * AkamaiCC-like classifier (thesis section 6.3.3): BiF held at one constant level for
 * seconds at a time, with back-offs every 10-20 s that are not loss-driven sawteeth.
 * Whether the level ignores the BDP can only be seen across two network profiles; that
 * check lives in fuseProfiles, which compares the levels of both profiles' verdicts.
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

const paramsSchema = z.object({
  rate: rateOptionsSchema,
  intervalSeconds: z.object({ min: z.number(), max: z.number() }),
  /** Relative slack on the interval window. */
  intervalTolerance: z.number().nonnegative(),
  maxPlateauSpread: z.number().positive(),
  /** Largest relative difference between the levels held between back-offs. */
  maxLevelDrift: z.number().nonnegative(),
  minPlateauShare: z.number().min(0).max(1),
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
  return { rate, intervals, intervalsOk, levels, drift, flat, levelOk, match: intervalsOk && flat && levelOk };
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
  }),
  fit: (_examples, params) => params,
  predict(f, p): Claim[] {
    const a = analyse(f, p);
    if (!a.match) return [];
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
      decision: a.match ? AKAMAI : null,
    };
  },
});
