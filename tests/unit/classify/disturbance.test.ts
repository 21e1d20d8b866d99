import { describe, expect, it } from 'vitest';
import { disturbedReason } from '../../../src/classify/disturbance.js';
import { disturbanceOf } from '../../../src/shaper/disturbance.js';

describe('host disturbance of the bottleneck', () => {
  it('merges the delay line overlapping late windows inside the measurement and ignores the rest', () => {
    const s = 1_000_000;
    const d = disturbanceOf({ lateWindowsUs: [[s + 100_000, s + 140_000], [s + 130_000, s + 150_000], [s + 5_000_000, s + 5_010_000], [s - 50_000, s - 10_000]], lateWindowsDropped: 0 }, s, s + 10_000_000, 1.5);
    expect(d).toMatchObject({ stalls: 2, stalledMs: 60, maxStallMs: 50, windowSeconds: 10, loadAverage: 1.5 });
  });

  it('withholds a verdict only beyond the bounds: 2% of the time, or a stall over half an RTT', () => {
    const base = { windowSeconds: 30, stalls: 10, stalledMs: 300, maxStallMs: 40 };
    expect(disturbedReason(base, 0.1)).toBeNull();
    expect(disturbedReason({ ...base, stalledMs: 900 }, 0.1)).toMatch(/3\.0% of the time/);
    expect(disturbedReason({ ...base, maxStallMs: 60 }, 0.1)).toMatch(/60 ms, over half an RTT/);
    expect(disturbedReason(null, 0.1)).toBeNull();
  });
});
