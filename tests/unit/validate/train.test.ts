import { describe, expect, it } from 'vitest';
import { labelFor } from '../../../src/train/labels.js';
import { holdOutVerdict, openSetRows, openSetTable } from '../../../src/train/bench.js';
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

describe('open-set scoring (issue 17 strangers)', () => {
  it('a stranger is right as Unknown or its design family, wrong as any other CCA', () => {
    expect(holdOutVerdict('DCTCP', 'NewReno')).toBe('same-family'); // NewReno in effect without ECN
    expect(holdOutVerdict('Hybla', 'BBRv1')).toBe('wrong');
    expect(holdOutVerdict('NV', 'Vegas')).toBe('same-family'); // both delay-based
    expect(holdOutVerdict('CDG', 'Westwood')).toBe('wrong');
    expect(holdOutVerdict('LP', 'Short flow')).toBe('unknown');
  });

  it('counts per stranger what it was called, skipping the model\'s own classes', () => {
    const rows = openSetRows(
      [
        { truth: 'CDG', predicted: 'Unknown' },
        { truth: 'CDG', predicted: 'Westwood' },
        { truth: 'DCTCP', predicted: 'NewReno' },
        { truth: 'NewReno', predicted: 'CUBIC' },
      ],
      ['NewReno', 'CUBIC', 'Westwood'],
    );
    expect(rows.map((r) => [r.label, r.measurements, r.unknown, r.sameFamily, r.wrong])).toEqual([
      ['CDG', 2, 1, 0, 1],
      ['DCTCP', 1, 0, 1, 0],
    ]);
    expect(rows[0].calledAs).toEqual({ Unknown: 1, Westwood: 1 });
    expect(openSetTable(rows)).toMatch(/1 confident wrong of 3 measurements \(33\.3%\)/);
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
