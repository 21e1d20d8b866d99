import { describe, expect, it } from 'vitest';
import { calibrate, fitCalibration } from '../../../src/classify/calibration.js';

describe('calibration (isotonic)', () => {
  it('maps raw confidence to how often such verdicts were right, monotonically', () => {
    // Raw 0.95 right 60% of the time, raw 0.99 right 90%, raw 0.75 right 30%.
    const pts = [
      ...Array.from({ length: 20 }, (_, i) => ({ confidence: 0.75, right: i < 6 })),
      ...Array.from({ length: 20 }, (_, i) => ({ confidence: 0.95, right: i < 12 })),
      ...Array.from({ length: 20 }, (_, i) => ({ confidence: 0.99, right: i < 18 })),
    ];
    const c = fitCalibration(pts, 'test');
    expect(calibrate(c, 0.75)).toBeCloseTo(0.3);
    expect(calibrate(c, 0.95)).toBeCloseTo(0.6);
    expect(calibrate(c, 0.99)).toBeCloseTo(0.9);
    expect(calibrate(c, 0.97)).toBeGreaterThan(0.6);
    expect(calibrate(c, 0.97)).toBeLessThan(0.9);
    expect(calibrate(c, 1)).toBeCloseTo(0.9);
    for (let i = 1; i < c.calibrated.length; i++) expect(c.calibrated[i]).toBeGreaterThanOrEqual(c.calibrated[i - 1]);
  });

  it('pools a higher raw score that was right less often with the one below it (no inversions)', () => {
    const pts = [
      ...Array.from({ length: 20 }, (_, i) => ({ confidence: 0.8, right: i < 16 })),
      ...Array.from({ length: 20 }, (_, i) => ({ confidence: 0.9, right: i < 12 })),
    ];
    const c = fitCalibration(pts, 'test');
    expect(calibrate(c, 0.8)).toBeCloseTo(0.7);
    expect(calibrate(c, 0.9)).toBeCloseTo(0.7);
  });

  it('without a map the raw confidence stands', () => {
    expect(calibrate(undefined, 0.42)).toBe(0.42);
  });
});
