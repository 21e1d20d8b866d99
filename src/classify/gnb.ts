/**
 * Gaussian naive Bayes with per-class priors and an out-of-distribution gate: a vector
 * whose log-likelihood is below every class's calibrated threshold belongs to no class.
 * WHY the gate: GNB's posterior always sums to 1, so without it any shape at all (noise,
 * a square wave) would be forced into the least-bad class.
 */
import { z } from 'zod';
import { mean, quantile, variance } from './stats.js';

export const gnbClassSchema = z.object({
  label: z.string(),
  prior: z.number().positive(),
  count: z.number().int().nonnegative(),
  mean: z.array(z.number()),
  variance: z.array(z.number().positive()),
  /** Vectors scoring below this log-likelihood are outside this class. */
  logLikelihoodThreshold: z.number(),
});

export const gnbModelSchema = z.object({
  featureNames: z.array(z.string()),
  classes: z.array(gnbClassSchema),
});

export type GnbModel = z.infer<typeof gnbModelSchema>;

export interface GnbFitOptions {
  featureNames: readonly string[];
  /** Variance floor per feature = varSmoothing x that feature's variance over all data. */
  varSmoothing: number;
  priors: 'uniform' | 'empirical';
  /** Threshold = this quantile of a class's own training log-likelihoods ... */
  oodQuantile: number;
  /** ... minus this slack (nats). */
  oodSlackNats: number;
}

const LOG_2PI = Math.log(2 * Math.PI);

export function fitGnb(xs: number[][], labels: string[], opts: GnbFitOptions): GnbModel {
  const d = opts.featureNames.length;
  const classes = [...new Set(labels)].sort();
  const floor: number[] = [];
  for (let j = 0; j < d; j++) floor.push(opts.varSmoothing * variance(xs.map((x) => x[j])) + 1e-9);
  const model: GnbModel = { featureNames: [...opts.featureNames], classes: [] };
  for (const label of classes) {
    const rows = xs.filter((_, i) => labels[i] === label);
    const mu: number[] = [];
    const va: number[] = [];
    for (let j = 0; j < d; j++) {
      const col = rows.map((r) => r[j]);
      mu.push(mean(col));
      va.push(variance(col) + floor[j]);
    }
    const prior = opts.priors === 'uniform' ? 1 / classes.length : rows.length / xs.length;
    model.classes.push({ label, prior, count: rows.length, mean: mu, variance: va, logLikelihoodThreshold: 0 });
  }
  for (const c of model.classes) {
    const own = xs.filter((_, i) => labels[i] === c.label).map((x) => logLikelihood(c, x));
    c.logLikelihoodThreshold = quantile(own, opts.oodQuantile) - opts.oodSlackNats;
  }
  return model;
}

/** log p(x | class); NaN features are skipped (marginalised out). */
export function logLikelihood(c: Pick<GnbModel['classes'][number], 'mean' | 'variance'>, x: readonly number[]): number {
  let ll = 0;
  for (let j = 0; j < x.length; j++) {
    if (!Number.isFinite(x[j])) continue;
    ll += -0.5 * (LOG_2PI + Math.log(c.variance[j]) + (x[j] - c.mean[j]) ** 2 / c.variance[j]);
  }
  return ll;
}

export interface GnbPrediction {
  posterior: Record<string, number>;
  logLikelihood: Record<string, number>;
  /** Classes whose threshold x clears. */
  inDistribution: string[];
}

export function predictGnb(model: GnbModel, x: readonly number[]): GnbPrediction {
  const lls = model.classes.map((c) => logLikelihood(c, x));
  const logJoint = model.classes.map((c, i) => Math.log(c.prior) + lls[i]);
  const m = Math.max(...logJoint);
  const w = logJoint.map((v) => Math.exp(v - m));
  const z = w.reduce((a, b) => a + b, 0);
  const posterior: Record<string, number> = {};
  const llByClass: Record<string, number> = {};
  const inDistribution: string[] = [];
  model.classes.forEach((c, i) => {
    posterior[c.label] = w[i] / z;
    llByClass[c.label] = lls[i];
    if (lls[i] >= c.logLikelihoodThreshold) inDistribution.push(c.label);
  });
  return { posterior, logLikelihood: llByClass, inDistribution };
}
