import { describe, expect, it } from 'vitest';
import { isPowerOfTwo } from '../../../src/classify/fft.js';
import { chooseGrid, resampleUniform } from '../../../src/classify/resample.js';

describe('chooseGrid', () => {
  it('gives a power-of-two grid at least 8 points per RTT', () => {
    const g = chooseGrid(37.3, 0.23, 8, 1 << 18);
    expect(isPowerOfTwo(g.n)).toBe(true);
    expect(g.dt).toBeLessThanOrEqual(0.23 / 8);
    expect((g.n - 1) * g.dt).toBeCloseTo(37.3, 9);
  });

  it('caps the grid length for very long flows', () => {
    const g = chooseGrid(3600, 0.001, 8, 1 << 12);
    expect(g.n).toBe(1 << 12);
  });
});

describe('resampleUniform', () => {
  it('averages the BiF step function over each cell (time-weighted)', () => {
    // BiF is 0 on [0, 1) and 10 on [1, 2]; the cell centred on t=1 sees half of each.
    const t = Float64Array.from([0, 1, 2]);
    const v = Float64Array.from([0, 10, 10]);
    const g = resampleUniform(t, v, undefined, { n: 5, dt: 0.5 });
    expect(Array.from(g.y)).toEqual([0, 0, 5, 10, 10]);
  });

  it('carries application-limited flags and time since the last sample', () => {
    const t = Float64Array.from([0, 0.1, 5, 5.1]);
    const v = Float64Array.from([1, 1, 1, 1]);
    const al = Uint8Array.from([0, 1, 0, 0]);
    const g = resampleUniform(t, v, al, { n: 52, dt: 0.1 });
    expect(g.appLimited[10]).toBe(1); // t=1.0 inside the flagged stretch
    expect(g.appLimited[51]).toBe(0);
    expect(g.gap[30]).toBeCloseTo(2.9, 6); // no packet between 0.1 s and 5 s
    expect(g.gap[0]).toBe(0);
  });
});
