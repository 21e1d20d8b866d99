/**
 * Loss-based (AIMD/MIMD) classifier, Nebby step 3-4: each usable segment's feature vector
 * (polynomial shape + back-off descriptors) goes through Gaussian naive Bayes trained on
 * labelled traces. A segment matches a class only when it is in that class's distribution
 * and the posterior is decisive; otherwise it is an 'Unknown' segment.
 */
import { z } from 'zod';
import { fitGnb, gnbModelSchema, predictGnb } from '../gnb.js';
import type { Json, JsonObject } from '../json.js';
import { jsonNumber } from '../json.js';
import { SEGMENT_FEATURE_NAMES } from '../segmentFeatures.js';
import { defineClassifier, UNKNOWN, type Claim } from '../types.js';

const paramsSchema = z.object({
  varSmoothing: z.number().nonnegative(),
  priors: z.enum(['uniform', 'empirical']),
  oodQuantile: z.number().min(0).max(1),
  oodSlackNats: z.number().nonnegative(),
  /** Below this posterior the segment is ambiguous between classes -> Unknown. */
  minPosterior: z.number().min(0).max(1),
  gnb: gnbModelSchema,
});
export type LossBasedParams = z.infer<typeof paramsSchema>;

const round = (r: Record<string, number>): { [k: string]: Json } =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonNumber(v)]));

export const lossBasedClassifier = defineClassifier<LossBasedParams>({
  name: 'loss-based',
  description: 'Polynomial shape of the segments between back-offs, Gaussian naive Bayes over the coefficients',
  labels: 'learned',
  paramsSchema,
  defaultParams: () => ({
    varSmoothing: 0.05,
    priors: 'uniform',
    oodQuantile: 0.01,
    oodSlackNats: 3,
    minPosterior: 0.8,
    gnb: { featureNames: [...SEGMENT_FEATURE_NAMES], classes: [] },
  }),
  fit(examples, params) {
    const xs: number[][] = [];
    const labels: string[] = [];
    for (const ex of examples) {
      for (const s of ex.features.segments) {
        if (!s.vector) continue;
        xs.push(s.vector);
        labels.push(ex.label);
      }
    }
    if (xs.length === 0) return params;
    const gnb = fitGnb(xs, labels, {
      featureNames: SEGMENT_FEATURE_NAMES,
      varSmoothing: params.varSmoothing,
      priors: params.priors,
      oodQuantile: params.oodQuantile,
      oodSlackNats: params.oodSlackNats,
    });
    return { ...params, gnb };
  },
  predict(features, params) {
    const claims: Claim[] = [];
    if (params.gnb.classes.length === 0) return claims;
    for (const s of features.segments) {
      if (!s.vector) continue;
      const p = predictGnb(params.gnb, s.vector);
      const best = Object.entries(p.posterior).reduce((a, b) => (b[1] > a[1] ? b : a));
      const base = { classifier: 'loss-based', scope: 'segment' as const, segmentIndex: s.segment.index, posterior: p.posterior };
      if (p.inDistribution.length === 0) {
        claims.push({ ...base, label: UNKNOWN, confidence: 0, note: 'out of distribution for every class' });
      } else if (!p.inDistribution.includes(best[0]) || best[1] < params.minPosterior) {
        claims.push({ ...base, label: UNKNOWN, confidence: 0, note: `ambiguous (best ${best[0]} at ${best[1].toFixed(2)})` });
      } else {
        claims.push({ ...base, label: best[0], confidence: best[1] });
      }
    }
    return claims;
  },
  explain(features, params): JsonObject {
    const segments: Json[] = [];
    for (const s of features.segments) {
      if (!s.vector) continue;
      if (params.gnb.classes.length === 0) continue;
      const p = predictGnb(params.gnb, s.vector);
      segments.push({
        index: s.segment.index,
        posterior: round(p.posterior),
        logLikelihood: round(p.logLikelihood),
        inDistribution: p.inDistribution,
      });
    }
    const thresholds: { [k: string]: Json } = {};
    for (const c of params.gnb.classes) thresholds[c.label] = jsonNumber(c.logLikelihoodThreshold);
    return { classes: params.gnb.classes.map((c) => c.label), thresholds, segments };
  },
});
