import { describe, expect, it } from 'vitest';
import { labelFor } from '../../../src/train/labels.js';
import { holdOutVerdict } from '../../../src/train/bench.js';
import { truncateSeries } from '../../../src/train/dataset.js';
import { runPool } from '../../../src/train/probes.js';

describe('lab controller labels', () => {
  it('maps every lab controller to a classifier label', () => {
    expect(labelFor('tcp', 'reno')).toBe('NewReno');
    expect(labelFor('tcp', 'highspeed')).toBe('HSTCP');
    expect(labelFor('tcp', 'bbr')).toBe('BBRv1');
    expect(labelFor('quic', 'newreno')).toBe('NewReno');
    expect(labelFor('quic', 'reno')).toBe('NewReno');
    expect(() => labelFor('tcp', 'nope')).toThrow(/no classifier label/);
  });
});

describe('hold-one-out scoring', () => {
  it('accepts Unknown and the same shape family, rejects another family', () => {
    expect(holdOutVerdict('Veno', 'Unknown')).toBe('unknown');
    expect(holdOutVerdict('Veno', 'Vegas', 'shape')).toBe('same-family'); // Nebby: both linear segments
    expect(holdOutVerdict('Veno', 'Vegas')).toBe('wrong'); // designs: AIMD vs delay-based
    expect(holdOutVerdict('HSTCP', 'NewReno')).toBe('same-family'); // both AIMD
    expect(holdOutVerdict('YeAH', 'Scalable')).toBe('same-family'); // YeAH's fast mode is Scalable
    expect(holdOutVerdict('CUBIC', 'Illinois')).toBe('wrong');
    expect(holdOutVerdict('Veno', 'CUBIC')).toBe('wrong');
    expect(holdOutVerdict('BBRv1', 'BBR (other version)')).toBe('same-family');
  });
});

describe('truncateSeries', () => {
  it('keeps the first N seconds only', () => {
    const s = { t: Float64Array.from([0, 10, 29.9, 30.1, 40]), bif: Float64Array.from([1, 2, 3, 4, 5]), rttSeconds: 0.1 };
    const c = truncateSeries(s, 30);
    expect(Array.from(c.bif)).toEqual([1, 2, 3]);
    expect(truncateSeries(s, 100)).toBe(s);
  });
});

describe('runPool', () => {
  it('keeps order and never exceeds the concurrency', async () => {
    let active = 0;
    let peak = 0;
    const out = await runPool([5, 1, 3, 2, 4], 2, async (x) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, x));
      active--;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });
});
