import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atOrBefore, compareBif, readGroundTruth } from '../../../src/validate/bif-accuracy.js';

describe('atOrBefore', () => {
  it('finds the last sample at or before a time', () => {
    const t = [1, 2, 2, 5];
    expect(atOrBefore(t, 0.5)).toBe(-1);
    expect(atOrBefore(t, 2)).toBe(2);
    expect(atOrBefore(t, 4.9)).toBe(2);
    expect(atOrBefore(t, 9)).toBe(3);
  });
});

describe('compareBif', () => {
  // A step function estimate: 10000 bytes from t=100, 20000 from t=101.
  const est = { t: [100, 101, 102], bytes: [10000, 20000, 0] };

  it('is exact when the truth, shifted by the one-way delay, matches the step function', () => {
    const truth = { t: [99.995, 100.5, 100.996], bytes: [10000, 10000, 20000] };
    const r = compareBif(est, truth, { shiftSeconds: 0.005 });
    expect(r.samples).toBe(3);
    expect(r.mape).toBe(0);
    expect(r.within).toBe(1);
  });

  it('without the shift the sample before the step is compared and misses', () => {
    const truth = { t: [100.996], bytes: [20000] };
    expect(compareBif(est, truth, { shiftSeconds: 0 }).within).toBe(0);
    expect(compareBif(est, truth, { shiftSeconds: 0.005 }).within).toBe(1);
  });

  it('two-sided alignment: undoes the ACKs the capture saw within one one-way delay before the sender did', () => {
    // Capture: data to 5000 at t=1.000, then ACKs (1000 each) at 1.002, 1.004, 1.006 and data at 1.008.
    const e = { t: [1, 1.002, 1.004, 1.006, 1.008], bytes: [5000, 4000, 3000, 2000, 3000] };
    const dataSend = [1, 0, 0, 0, 1];
    // The sender at t=1.000 (shift 5 ms): it has sent what the capture saw by 1.005 (5000) and
    // received the ACKs the capture saw by 0.995 (none): 5000 in flight.
    const truth = { t: [1.0], bytes: [5000] };
    expect(compareBif(e, truth, { shiftSeconds: 0.005, floorBytes: 100 }).within).toBe(0); // one instant: 3000
    const r = compareBif(e, truth, { shiftSeconds: 0.005, floorBytes: 100, dataSend });
    expect(r.within).toBe(1);
    expect(r.meanSignedError).toBe(0);
  });

  it('skips truth below the floor and samples outside the flow', () => {
    const truth = { t: [99, 100.2, 100.3, 105], bytes: [5000, 500, 10400, 20000] };
    const r = compareBif(est, truth, { shiftSeconds: 0, floorBytes: 1448 });
    expect(r.skippedOutside).toBe(2);
    expect(r.skippedSmall).toBe(1);
    expect(r.samples).toBe(1);
    expect(r.mape).toBeCloseTo((400 / 10400) * 100, 6);
    expect(r.within).toBe(1); // 3.8% < 5%
    expect(r.meanSignedError).toBe(-400);
  });

  it('counts a 10% error outside 5% but inside one MSS', () => {
    const r = compareBif(est, { t: [100.5], bytes: [11000] }, { shiftSeconds: 0 });
    expect(r.within).toBe(0);
    expect(r.withinOneSegment).toBe(1);
  });
});

describe('readGroundTruth', () => {
  it('reads a field, derives pipe bytes, skips nulls and torn lines, sorts by time', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gt-'));
    const p = join(dir, 'ground-truth.jsonl');
    writeFileSync(p, [
      JSON.stringify({ t: 2, remote: '1.2.3.4:5', mss: 1448, inflight_bytes: 8688, inflight_pkts: 4, bytes_in_flight: null }),
      JSON.stringify({ t: 1, remote: '1.2.3.4:5', mss: 1448, inflight_bytes: 2896, inflight_pkts: 2, bytes_in_flight: 7 }),
      '{"t": 3, "inflight_',
    ].join('\n'));
    expect(readGroundTruth(p, 'inflight_bytes')).toMatchObject({ t: [1, 2], bytes: [2896, 8688], mss: 1448 });
    expect(readGroundTruth(p, 'pipe_bytes').bytes).toEqual([2896, 5792]);
    expect(readGroundTruth(p, 'bytes_in_flight').bytes).toEqual([7]);
  });

  it('keeps the samples of the given client ports only (another connection, a migrated one\'s every port)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gt-'));
    const p = join(dir, 'ground-truth.jsonl');
    writeFileSync(p, [
      JSON.stringify({ t: 1, remote: '10.203.64.2:40000', inflight_bytes: 100 }),
      JSON.stringify({ t: 2, remote: '10.203.64.2:41000', inflight_bytes: 200 }),
      JSON.stringify({ t: 3, remote: '10.203.64.2:4100', inflight_bytes: 300 }),
      JSON.stringify({ t: 4, remote: '10.203.64.2:40001', inflight_bytes: 400 }),
    ].join('\n'));
    expect(readGroundTruth(p, 'inflight_bytes', new Set([41000])).bytes).toEqual([200]);
    expect(readGroundTruth(p, 'inflight_bytes', new Set([40000, 40001])).bytes).toEqual([100, 400]);
    expect(readGroundTruth(p, 'inflight_bytes').bytes).toEqual([100, 200, 300, 400]);
  });
});
