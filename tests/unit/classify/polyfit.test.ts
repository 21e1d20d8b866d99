import { describe, expect, it } from 'vitest';
import { evalPoly, polyfit } from '../../../src/classify/polyfit.js';
import { createRng } from '../../../src/classify/prng.js';
import { fitBestPolynomial, normaliseSegment, unitGrid } from '../../../src/classify/shape.js';

describe('polyfit', () => {
  it('recovers known coefficients of degrees 1-3 exactly', () => {
    const xs = unitGrid(200);
    for (const coef of [[0.2, 0.7], [0.1, 2, -1.5], [0, 3, -5.5, 3.4]]) {
      const ys = xs.map((x) => evalPoly(coef, x));
      const f = polyfit(xs, ys, coef.length - 1);
      f.coefficients.forEach((c, k) => expect(c).toBeCloseTo(coef[k], 8));
      expect(f.mse).toBeLessThan(1e-20);
    }
  });

  it('recovers coefficients under seeded noise', () => {
    const rng = createRng(3);
    const xs = unitGrid(200);
    const ys = xs.map((x) => 1 - 2 * x + 4 * x * x + 0.01 * rng.normal());
    const f = polyfit(xs, ys, 2);
    expect(f.coefficients[0]).toBeCloseTo(1, 1);
    expect(f.coefficients[1]).toBeCloseTo(-2, 1);
    expect(f.coefficients[2]).toBeCloseTo(4, 1);
  });
});

describe('penalised degree choice', () => {
  const xs = unitGrid(200);
  it('keeps a line linear, a parabola quadratic and an S-curve cubic', () => {
    const line = Float64Array.from(xs, (x) => 0.1 + 0.8 * x);
    const concave = Float64Array.from(xs, (x) => 2 * x - x * x);
    const cubicS = Float64Array.from(xs, (x) => 3.5 * x ** 3 - 5.5 * x * x + 3 * x);
    expect(fitBestPolynomial(line, 1e-4).degree).toBe(1);
    expect(fitBestPolynomial(concave, 1e-4).degree).toBe(2);
    expect(fitBestPolynomial(cubicS, 1e-4).degree).toBe(3);
  });

  it('a large lambda pushes everything to degree 1', () => {
    const cubicS = Float64Array.from(xs, (x) => 3.5 * x ** 3 - 5.5 * x * x + 3 * x);
    expect(fitBestPolynomial(cubicS, 0.7).degree).toBe(1);
  });
});

describe('normaliseSegment', () => {
  it('maps the segment to [0, 1] and resamples it to the requested length', () => {
    const y = Float64Array.from([5, 10, 20, 30, 40, 50, 7]);
    const out = normaliseSegment(y, 1, 5, 9);
    expect(out.length).toBe(9);
    expect(out[0]).toBe(0);
    expect(out[8]).toBe(1);
    expect(out[4]).toBeCloseTo(0.5, 9);
  });
});
