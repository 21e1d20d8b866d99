/**
 * Gaussian naive Bayes with per-class priors and an out-of-distribution gate: a vector
 * whose log-likelihood is below every class's calibrated threshold belongs to no class.
 * WHY the gate: GNB's posterior always sums to 1, so without it any shape at all (noise,
 * a square wave) would be forced into the least-bad class.
 *
 * The gate can be measured from the class mean (one Gaussian per class) or from the class's
 * training vectors (oodNearest: a kernel around each one). WHY the kernels: a class trained in
 * several conditions (near and far regions share one training group) is several tight clusters;
 * a Gaussian around their mean, widened to hold them all, also holds the empty space between
 * them, and a controller never trained on lands there (hold one out: 71 of 130 held-out
 * measurements got a confident wrong label with the mean gate).
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
  /**
   * The training vectors (null = feature not measured), kept for the nearest-kernel gate
   * (oodNearest). Absent in models trained without it.
   */
  examples: z.array(z.array(z.number().nullable())).optional(),
});

export const gnbModelSchema = z.object({
  featureNames: z.array(z.string()),
  classes: z.array(gnbClassSchema),
  /**
   * When set, the out-of-distribution gate is a chi-square test instead of the threshold:
   * inside a class when sum(z^2) over the measured features <= d + k x sqrt(2d).
   * WHY: with a handful of training traces per class the quantile threshold is as tight as
   * the sample, and a fresh trace of the same class falls outside it.
   */
  oodChiK: z.number().positive().optional(),
  /** With oodChiK: also outside when any single measured feature is further than this many SDs (kernel bandwidths with oodNearest). */
  oodMaxZ: z.number().positive().optional(),
  /**
   * With oodChiK: the chi-square and max-z tests are taken against the nearest training vector
   * of the class (classes must keep their examples) instead of the class mean, in units of a
   * kernel bandwidth of h = 1.06 n^(-1/5) class SDs (Silverman's rule of thumb, n = the class's
   * training vectors): inside when at least one kernel holds the vector.
   */
  oodNearest: z.boolean().optional(),
  /**
   * Features the out-of-distribution gate holds against a flow only when they lie above the
   * training flow's value (they weigh both ways in the posterior). For the loss share: a flow
   * that paused or sent less lost less than the lab's bulk flows did, while one that lost more
   * than a class ever did pushes harder than that controller.
   */
  oodUpperOnly: z.array(z.string()).optional(),
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
  /** Pseudo-count of the pooled within-class variance mixed into each class's (0 = none). */
  shrinkCount?: number;
  /** Keep each class's training vectors (for the nearest-kernel gate, oodNearest). */
  keepExamples?: boolean;
  /** Per feature name: no class's standard deviation below this (features the lab measures more steadily than the world does). */
  minSd?: Readonly<Record<string, number>>;
}

const LOG_2PI = Math.log(2 * Math.PI);

export function fitGnb(xs: number[][], labels: string[], opts: GnbFitOptions): GnbModel {
  const d = opts.featureNames.length;
  const classes = [...new Set(labels)].sort();
  const floor: number[] = [];
  // NaN entries (a feature the trace could not measure) are left out of every statistic.
  const finite = (col: number[]) => col.filter((v) => Number.isFinite(v));
  for (let j = 0; j < d; j++) {
    const col = finite(xs.map((x) => x[j]));
    floor.push(opts.varSmoothing * (col.length > 1 ? variance(col) : 1) + 1e-9);
  }
  const model: GnbModel = { featureNames: [...opts.featureNames], classes: [] };
  // Within-class variance pooled over classes: each class's own variance is shrunk towards
  // it (weight shrinkCount), because a class seen in 3-5 traces under-reports its spread.
  const shrink = opts.shrinkCount ?? 0;
  const pooled: number[] = [];
  for (let j = 0; j < d; j++) {
    let ss = 0;
    let dof = 0;
    for (const label of classes) {
      const col = finite(xs.filter((_, i) => labels[i] === label).map((x) => x[j]));
      if (col.length < 2) continue;
      ss += variance(col) * (col.length - 1);
      dof += col.length - 1;
    }
    pooled.push(dof > 0 ? ss / dof : floor[j]);
  }
  for (const label of classes) {
    const rows = xs.filter((_, i) => labels[i] === label);
    const mu: number[] = [];
    const va: number[] = [];
    for (let j = 0; j < d; j++) {
      const col = finite(rows.map((r) => r[j]));
      // A feature a class never shows gets a neutral, wide Gaussian (no evidence either way).
      mu.push(col.length ? mean(col) : 0);
      const own = col.length > 1 ? variance(col) : 0;
      const shrunk = col.length + shrink > 0 ? (col.length * own + shrink * pooled[j]) / (col.length + shrink) : 0;
      const minVariance = (opts.minSd?.[opts.featureNames[j]] ?? 0) ** 2;
      va.push(Math.max(minVariance, shrunk + floor[j] * (col.length ? 1 : 1e6)));
    }
    const prior = opts.priors === 'uniform' ? 1 / classes.length : rows.length / xs.length;
    const examples = opts.keepExamples ? { examples: rows.map((r) => r.map((v) => (Number.isFinite(v) ? v : null))) } : {};
    model.classes.push({ label, prior, count: rows.length, mean: mu, variance: va, logLikelihoodThreshold: 0, ...examples });
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
  /**
   * Per class, how far inside its gate x lies: the gate's statistic over its bound (<= 1 inside;
   * 0.2 deep inside, 0.95 at the edge), with the chi-square gate only.
   */
  gateRatio: Record<string, number>;
}

/** sum of squared z-scores over the measured features, and how many there were. */
export function zSquared(c: Pick<GnbModel['classes'][number], 'mean' | 'variance'>, x: readonly number[], upperOnly?: readonly boolean[]): { z2: number; d: number; maxZ2: number } {
  let z2 = 0;
  let d = 0;
  let maxZ2 = 0;
  for (let j = 0; j < x.length; j++) {
    if (!Number.isFinite(x[j])) continue;
    const e = upperOnly?.[j] && x[j] < c.mean[j] ? 0 : (x[j] - c.mean[j]) ** 2 / c.variance[j];
    z2 += e;
    maxZ2 = Math.max(maxZ2, e);
    d++;
  }
  return { z2, d, maxZ2 };
}

/** Silverman's rule-of-thumb kernel bandwidth, in class SDs, for n training vectors. */
export function kernelBandwidth(n: number): number {
  return 1.06 * Math.pow(Math.max(n, 1), -0.2);
}

/**
 * The nearest-kernel distance: sum of squared z-scores of x from the training vector of the
 * class closest to it, in units of h class SDs (h = kernelBandwidth); a feature the training
 * vector did not measure is compared with the class mean. Among the vectors whose largest
 * single z^2 stays within maxZ2 (all when omitted); z2 = Infinity when there is none.
 */
export function nearestKernelZSquared(
  c: Pick<GnbModel['classes'][number], 'mean' | 'variance' | 'examples'>,
  x: readonly number[],
  maxZ2 = Infinity,
  upperOnly?: readonly boolean[],
): { z2: number; d: number; maxZ2: number } {
  const examples = c.examples ?? [];
  const h2 = kernelBandwidth(examples.length) ** 2;
  let best = { z2: Infinity, d: 0, maxZ2: Infinity };
  for (const e of examples) {
    let z2 = 0;
    let d = 0;
    let worst = 0;
    for (let j = 0; j < x.length; j++) {
      if (!Number.isFinite(x[j])) continue;
      const ref = e[j] ?? c.mean[j];
      const q = upperOnly?.[j] && x[j] < ref ? 0 : (x[j] - ref) ** 2 / (c.variance[j] * h2);
      z2 += q;
      worst = Math.max(worst, q);
      d++;
    }
    if (worst <= maxZ2 && z2 < best.z2) best = { z2, d, maxZ2: worst };
  }
  return best;
}

export function predictGnb(model: GnbModel, x: readonly number[]): GnbPrediction {
  const lls = model.classes.map((c) => logLikelihood(c, x));
  const upperOnly = new Set(model.oodUpperOnly ?? []);
  const oneSided = upperOnly.size ? model.featureNames.map((n) => upperOnly.has(n)) : undefined;
  /** The gate's statistic over its bound (<= 1: inside); NaN without the chi-square gate. */
  const gate = (c: GnbModel['classes'][number]): number => {
    if (model.oodChiK === undefined) return NaN;
    const maxZ2 = model.oodMaxZ !== undefined ? model.oodMaxZ ** 2 : Infinity;
    const bound = (d: number) => d + (model.oodChiK as number) * Math.sqrt(2 * d);
    if (model.oodNearest && c.examples?.length) {
      const { z2, d } = nearestKernelZSquared(c, x, maxZ2, oneSided);
      return d > 0 ? z2 / bound(d) : Infinity;
    }
    const { z2, d, maxZ2: worst } = zSquared(c, x, oneSided);
    if (worst > maxZ2) return Infinity;
    return d > 0 ? z2 / bound(d) : Infinity;
  };
  const gateRatio: Record<string, number> = {};
  const inside = (c: GnbModel['classes'][number], ll: number): boolean => {
    if (model.oodChiK === undefined) return ll >= c.logLikelihoodThreshold;
    const r = gate(c);
    gateRatio[c.label] = r;
    return r <= 1;
  };
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
    if (inside(c, lls[i])) inDistribution.push(c.label);
  });
  return { posterior, logLikelihood: llByClass, inDistribution, gateRatio };
}
