/**
 * Copa classifier: in its default mode Copa's window swings up and down around the
 * target so that the queue empties about once every 5 RTTs. Seen in BiF: a steady,
 * symmetric oscillation (not narrow pulses, not a loss sawtooth) with a ~5-RTT period.
 */
import { z } from 'zod';
import type { JsonObject } from '../json.js';
import { jsonNumber } from '../json.js';
import { analyseRate, periodInRtts } from '../rate.js';
import { defineClassifier, type Claim } from '../types.js';
import type { FlowFeatures } from '../features.js';
import { defaultRateOptions, rateOptionsSchema } from './rateOptions.js';

export const COPA = 'Copa';

const paramsSchema = z.object({
  rate: rateOptionsSchema,
  periodRtts: z.object({ min: z.number(), max: z.number() }),
  minStrength: z.number(),
  /** Symmetric swing: |skewness| of the detrended plateau below this. */
  maxAbsSkew: z.number().nonnegative(),
  amplitude: z.object({ min: z.number(), max: z.number() }),
  minPlateauShare: z.number().min(0).max(1),
  /** Copa has no ProbeRTT: more dips than this and it is not Copa. */
  maxDips: z.number().int().nonnegative(),
});
export type CopaParams = z.infer<typeof paramsSchema>;

function analyse(f: FlowFeatures, p: CopaParams) {
  const rate = analyseRate(f, p.rate);
  // Search a wider window than accepted so a stronger neighbouring period is not missed.
  const peak = periodInRtts(rate, 2, p.rate.maxLagRtts - 1);
  const inWindow = peak !== null && peak.rtts >= p.periodRtts.min && peak.rtts <= p.periodRtts.max;
  const match =
    inWindow &&
    peak.strength >= p.minStrength &&
    Math.abs(rate.residualSkew) <= p.maxAbsSkew &&
    rate.residualAmplitude >= p.amplitude.min &&
    rate.residualAmplitude <= p.amplitude.max &&
    rate.plateauShare >= p.minPlateauShare &&
    rate.dips.length <= p.maxDips;
  return { rate, peak, match };
}

export const copaClassifier = defineClassifier<CopaParams>({
  name: 'copa',
  description: 'Symmetric oscillation with a ~5-RTT period (Copa default mode)',
  labels: [COPA],
  paramsSchema,
  defaultParams: () => ({
    rate: { ...defaultRateOptions },
    periodRtts: { min: 3.5, max: 6.5 },
    minStrength: 0.4,
    maxAbsSkew: 0.5,
    amplitude: { min: 0.05, max: 0.8 },
    minPlateauShare: 0.6,
    maxDips: 0,
  }),
  fit: (_examples, params) => params,
  predict(f, p): Claim[] {
    const a = analyse(f, p);
    if (!a.match || !a.peak) return [];
    return [{ classifier: 'copa', label: COPA, scope: 'flow', confidence: Math.min(0.9, a.peak.strength), note: `oscillation every ${a.peak.rtts.toFixed(1)} RTTs` }];
  },
  explain(f, p): JsonObject {
    const a = analyse(f, p);
    return {
      periodRtts: a.peak ? jsonNumber(a.peak.rtts, 2) : null,
      strength: a.peak ? jsonNumber(a.peak.strength) : null,
      residualSkew: jsonNumber(a.rate.residualSkew),
      residualAmplitude: jsonNumber(a.rate.residualAmplitude),
      plateauShare: jsonNumber(a.rate.plateauShare),
      dips: a.rate.dips.length,
      decision: a.match ? COPA : null,
    };
  },
});
