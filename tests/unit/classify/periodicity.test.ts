import { describe, expect, it } from 'vitest';
import { autocorrelation, detrend, fundamentalPeak, skewness } from '../../../src/classify/periodicity.js';

const n = 800;
const all = new Uint8Array(n).fill(1);

describe('periodicity', () => {
  it('finds the period of a pulse train and reports positive skew', () => {
    const y = Float64Array.from({ length: n }, (_, i) => (i % 40 < 5 ? 1.25 : 1));
    const r = detrend(y, all, 160);
    const acf = autocorrelation(r, all, 120);
    const p = fundamentalPeak(acf, 10, 120);
    expect(p?.lag).toBe(40);
    expect(p!.strength).toBeGreaterThan(0.8);
    expect(skewness(r, all)).toBeGreaterThan(1.5);
  });

  it('picks the fundamental, not a harmonic of similar strength', () => {
    const y = Float64Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * i) / 25));
    const acf = autocorrelation(y, all, 120);
    expect(fundamentalPeak(acf, 5, 120)?.lag).toBe(25);
    expect(Math.abs(skewness(y, all))).toBeLessThan(0.05);
  });

  it('ignores masked points', () => {
    const y = Float64Array.from({ length: n }, (_, i) => (i < 400 ? Math.sin((2 * Math.PI * i) / 20) : 50));
    const valid = Uint8Array.from({ length: n }, (_, i) => (i < 400 ? 1 : 0));
    const acf = autocorrelation(y, valid, 60);
    expect(fundamentalPeak(acf, 5, 60)?.lag).toBe(20);
  });
});
