/**
 * The nearest-kernel out-of-distribution gate (gnb.ts oodNearest): a vector is inside a class
 * when it lies within the chi-square bound of at least one training vector's kernel, not of
 * the class mean. A class seen in two conditions is two tight clusters; the space between
 * them, where a controller never trained on can land, must be outside.
 */
import { describe, expect, it } from 'vitest';
import { fitGnb, gnbModelSchema, kernelBandwidth, nearestKernelZSquared, predictGnb, type GnbModel } from '../../../src/classify/gnb.js';
import { lossBasedClassifier, predictLoss, type LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';
import { FLOW_SHAPE_NAMES } from '../../../src/classify/flowShape.js';
import type { FlowFeatures } from '../../../src/classify/features.js';
import { createRng } from '../../../src/classify/prng.js';

const rng = createRng(7);
const xs: number[][] = [];
const labels: string[] = [];
const around = (v: number): number[] => [0, 1, 2, 3].map(() => v + rng.normal() * 0.05);
// Class A: two tight clusters in four features (10 vectors at 0, 2 at 4: two training
// conditions); class B: one cluster far away.
for (let i = 0; i < 10; i++) xs.push(around(0)), labels.push('A');
for (let i = 0; i < 2; i++) xs.push(around(4)), labels.push('A');
for (let i = 0; i < 6; i++) xs.push(around(-6)), labels.push('B');
const opts = { featureNames: ['a', 'b', 'c', 'd'], varSmoothing: 0.01, priors: 'uniform' as const, oodQuantile: 0.01, oodSlackNats: 2, shrinkCount: 3 };
const meanGate: GnbModel = { ...fitGnb(xs, labels, opts), oodChiK: 4, oodMaxZ: 4 };
const kernelGate: GnbModel = { ...fitGnb(xs, labels, { ...opts, keepExamples: true }), oodChiK: 4, oodMaxZ: 4, oodNearest: true };
const between = [2, 2, 2, 2];

describe('nearest-kernel gate', () => {
  it('keeps each class\'s training vectors only when asked, with unmeasured features as null', () => {
    expect(meanGate.classes[0].examples).toBeUndefined();
    expect(kernelGate.classes.find((c) => c.label === 'A')!.examples).toHaveLength(12);
    const m = fitGnb([[1, NaN], [2, 3], [5, 5]], ['A', 'A', 'B'], { ...opts, keepExamples: true });
    expect(m.classes[0].examples).toEqual([[1, null], [2, 3]]);
  });

  it('uses Silverman\'s bandwidth: 1.06 n^(-1/5) class SDs', () => {
    expect(kernelBandwidth(1)).toBeCloseTo(1.06, 12);
    expect(kernelBandwidth(10)).toBeCloseTo(1.06 / Math.pow(10, 0.2), 12);
    expect(kernelBandwidth(32)).toBeCloseTo(0.53, 12);
  });

  it('puts the space between two clusters of one class outside it, where the mean gate let it in', () => {
    expect(predictGnb(meanGate, between).inDistribution).toContain('A');
    expect(predictGnb(kernelGate, between).inDistribution).toEqual([]);
  });

  it('keeps vectors near either cluster inside, and the training vectors themselves', () => {
    expect(predictGnb(kernelGate, [0.3, 0.2, -0.1, 0]).inDistribution).toEqual(['A']);
    expect(predictGnb(kernelGate, [3.9, 4.2, 4, 3.8]).inDistribution).toEqual(['A']);
    let inside = 0;
    xs.forEach((x, i) => {
      if (predictGnb(kernelGate, x).inDistribution.includes(labels[i])) inside++;
    });
    expect(inside).toBe(xs.length);
  });

  it('changes only the gate: posteriors are those of the same Gaussians', () => {
    const p1 = predictGnb(meanGate, [1, 0, 1, 0]);
    const p2 = predictGnb(kernelGate, [1, 0, 1, 0]);
    expect(p2.posterior).toEqual(p1.posterior);
    expect(p2.logLikelihood).toEqual(p1.logLikelihood);
  });

  it('compares a feature a training vector did not measure with the class mean', () => {
    const c = { mean: [0, 10], variance: [1, 1], examples: [[0, null]] };
    const h2 = kernelBandwidth(1) ** 2;
    const r = nearestKernelZSquared(c, [1, 12]);
    expect(r.d).toBe(2);
    expect(r.z2).toBeCloseTo((1 + 4) / h2, 12);
    // NaN features of the vector are not compared at all.
    expect(nearestKernelZSquared(c, [1, NaN]).d).toBe(1);
  });

  it('skips kernels with one feature beyond the max-z bound', () => {
    const c = { mean: [0, 0], variance: [1, 1], examples: [[0, 0], [10, 0]] };
    const h2 = kernelBandwidth(2) ** 2;
    expect(nearestKernelZSquared(c, [9, 0]).z2).toBeCloseTo(1 / h2, 12);
    expect(nearestKernelZSquared(c, [5, 0], 16).z2).toBe(Infinity);
  });

  it('survives the model file: JSON round trip and schema', () => {
    const back = gnbModelSchema.parse(JSON.parse(JSON.stringify(kernelGate)));
    expect(back).toEqual(kernelGate);
    expect(predictGnb(back, between).inDistribution).toEqual([]);
  });
});

describe('loss-based classifier with the nearest-kernel gate', () => {
  const d = FLOW_SHAPE_NAMES.length;
  const feats = (shape: number[]): FlowFeatures => ({ shape, backoffs: [] }) as unknown as FlowFeatures;
  // Descriptors: X in two conditions (10 flows around 1, 2 around 5 in every feature), Y elsewhere.
  const r = createRng(3);
  const vec = (v: number, noise = 0.02): number[] => Array.from({ length: d }, () => v + r.normal() * noise);
  const examples = [
    ...Array.from({ length: 10 }, () => ({ label: 'X', group: 'g', features: feats(vec(1)) })),
    ...Array.from({ length: 2 }, () => ({ label: 'X', group: 'g', features: feats(vec(5)) })),
    ...Array.from({ length: 6 }, () => ({ label: 'Y', group: 'g', features: feats(vec(-4)) })),
  ];
  const params = lossBasedClassifier.fit(examples, lossBasedClassifier.defaultParams()) as { gnb: GnbModel };

  it('is the default and keeps the training descriptors in the model', () => {
    expect(params.gnb.oodNearest).toBe(true);
    expect(params.gnb.classes.find((c) => c.label === 'X@g')!.examples).toHaveLength(12);
  });

  it('says Unknown for a flow between the two clusters of X, and X near one of them', () => {
    const mid = lossBasedClassifier.predict(feats(vec(3, 0)), params);
    expect(mid[0].label).toBe('Unknown');
    expect(mid[0].posterior?.X).toBeGreaterThan(0.99);
    // The same flow with the mean gate: a confident X.
    const meanGated = { ...params, gnb: { ...params.gnb, oodNearest: false } };
    expect(lossBasedClassifier.predict(feats(vec(3, 0)), meanGated)[0].label).toBe('X');
    expect(lossBasedClassifier.predict(feats(vec(5.05, 0)), params)[0].label).toBe('X');
    expect(lossBasedClassifier.predict(feats(vec(0.95, 0)), params)[0].label).toBe('X');
  });

  it('is deterministic', () => {
    const again = lossBasedClassifier.fit(examples, lossBasedClassifier.defaultParams());
    expect(again).toEqual(params);
  });
});

describe('loss-based classifier: a class whose trained flows lie clearly nearer (nearerClassFactor)', () => {
  // One measured feature. A: narrow Gaussian at 0 whose one training flow sits at 1; B: wide
  // Gaussian at 5 with one training flow. At 0.2 the Gaussians favour A (~0.89) whichever B is.
  const d = FLOW_SHAPE_NAMES.length;
  const fill = <T>(first: T, rest: T): T[] => [first, ...Array.from({ length: d - 1 }, () => rest)];
  const cls = (label: string, mean: number, variance: number, example: number) => ({
    label, prior: 0.5, count: 1, mean: fill(mean, 0), variance: fill(variance, 1), logLikelihoodThreshold: -1e9, examples: [fill<number | null>(example, null)],
  });
  const base = lossBasedClassifier.defaultParams() as LossBasedParams;
  const withB = (bExample: number): LossBasedParams => ({
    ...base, gnb: { featureNames: [...FLOW_SHAPE_NAMES], classes: [cls('A@g', 0, 1, 1), cls('B@g', 5, 25, bExample)], oodChiK: 4, oodMaxZ: 4, oodNearest: true },
  });
  const at = (x: number) => ({ shape: fill(x, NaN), backoffs: [] }) as unknown as FlowFeatures;

  it('is 1.5 for new models', () => {
    expect(base.nearerClassFactor).toBe(1.5);
  });

  it('says Unknown, naming the nearer class, where the Gaussians favour a class whose trained flows lie far farther', () => {
    // B's flow at 0.1: B's gate ratio ~0.0001 against A's ~0.09.
    const [c] = lossBasedClassifier.predict(at(0.2), withB(0.1));
    expect(c.inDistribution).toEqual(['A', 'B']);
    expect(c.posterior!.A).toBeGreaterThan(0.8);
    expect(c.nearer).toBe('B');
    expect(c.label).toBe('Unknown');
    expect(c.note).toMatch(/likeliest A \(0\.\d\d\) but B's trained flows lie clearly nearer the shape \(gate ratio 0\.00 vs 0\.09\)/);
  });

  it('applies with the nearest-kernel gate only', () => {
    const meanGated = withB(0.1);
    const [c] = lossBasedClassifier.predict(at(0.2), { ...meanGated, gnb: { ...meanGated.gnb, oodNearest: false } });
    expect(c.nearer).toBeUndefined();
  });

  it('names the likeliest class at a near tie (B nearer by less than the factor), and judges as before without the factor', () => {
    // B's flow at 3.78: its gate ratio is 0.8x A's.
    const ratios = predictLoss(withB(3.78), at(0.2))!.gateRatio;
    expect(ratios.B / ratios.A).toBeGreaterThan(1 / 1.5);
    expect(ratios.B / ratios.A).toBeLessThan(1);
    const [tie] = lossBasedClassifier.predict(at(0.2), withB(3.78));
    expect(tie.nearer).toBeUndefined();
    expect(tie.label).toBe('A');
    const [old] = lossBasedClassifier.predict(at(0.2), { ...withB(0.1), nearerClassFactor: undefined });
    expect(old.label).toBe('A');
    expect(old.nearer).toBeUndefined();
  });
});
