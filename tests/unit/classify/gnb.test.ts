import { describe, expect, it } from 'vitest';
import { fitGnb, predictGnb } from '../../../src/classify/gnb.js';
import { createRng } from '../../../src/classify/prng.js';

const rng = createRng(21);
const xs: number[][] = [];
const labels: string[] = [];
for (let i = 0; i < 200; i++) {
  xs.push([rng.normal() * 0.1, 1 + rng.normal() * 0.1]);
  labels.push('A');
  xs.push([2 + rng.normal() * 0.1, rng.normal() * 0.1]);
  labels.push('B');
}
const opts = { featureNames: ['x', 'y'], varSmoothing: 0.01, priors: 'uniform' as const, oodQuantile: 0.01, oodSlackNats: 2 };
const model = fitGnb(xs, labels, opts);

describe('Gaussian naive Bayes', () => {
  it('learns per-class means and variances', () => {
    const a = model.classes.find((c) => c.label === 'A')!;
    expect(a.mean[0]).toBeCloseTo(0, 1);
    expect(a.mean[1]).toBeCloseTo(1, 1);
    expect(Math.sqrt(a.variance[0])).toBeGreaterThan(0.08);
    expect(Math.sqrt(a.variance[0])).toBeLessThan(0.3);
    expect(a.prior).toBe(0.5);
  });

  it('assigns points near a cluster to it, with a decisive posterior summing to 1', () => {
    const p = predictGnb(model, [1.9, 0.1]);
    expect(p.posterior.B).toBeGreaterThan(0.99);
    expect(p.posterior.A + p.posterior.B).toBeCloseTo(1, 12);
    expect(p.inDistribution).toEqual(['B']);
  });

  it('flags a point far from every class as out of distribution', () => {
    const p = predictGnb(model, [10, -10]);
    expect(p.inDistribution).toEqual([]);
  });

  it('calibrates thresholds so that almost all training points are in distribution', () => {
    let inside = 0;
    xs.forEach((x, i) => {
      if (predictGnb(model, x).inDistribution.includes(labels[i])) inside++;
    });
    expect(inside / xs.length).toBeGreaterThan(0.98);
  });

  it('uses empirical priors when asked', () => {
    const m = fitGnb([...xs, [0, 1], [0, 1]], [...labels, 'A', 'A'], { ...opts, priors: 'empirical' });
    expect(m.classes.find((c) => c.label === 'A')!.prior).toBeGreaterThan(0.5);
  });
});
