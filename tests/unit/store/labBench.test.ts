import { describe, expect, it } from 'vitest';
import { labBenchFromOutcomes, labBenchSchema, readLabBench } from '../../../src/results/index.js';
import { FIXTURE_LAB } from './helpers.js';

describe('lab benchmark results', () => {
  it('builds a result whose numbers agree with its matrix', () => {
    const outcomes = [
      ...Array.from({ length: 9 }, () => ({ truth: 'CUBIC', predicted: 'CUBIC', traceSeconds: 20 })),
      { truth: 'CUBIC', predicted: 'Unknown', traceSeconds: 10 },
      ...Array.from({ length: 4 }, () => ({ truth: 'BBRv1', predicted: 'BBRv1', traceSeconds: 18 })),
      { truth: 'BBRv1', predicted: 'CUBIC', traceSeconds: 18 },
    ];
    const b = labBenchFromOutcomes({ name: 't', createdAt: '2025-01-01T00:00:00.000Z', model: 'm' }, outcomes);
    expect(b.trueClasses).toEqual(['BBRv1', 'CUBIC']);
    expect(b.predictedLabels).toEqual(['BBRv1', 'CUBIC', 'Unknown']);
    expect(b.matrix).toEqual([[4, 1, 0], [0, 9, 1]]);
    expect(b.perClass).toEqual([{ label: 'BBRv1', n: 5, correct: 4, accuracy: 0.8 }, { label: 'CUBIC', n: 10, correct: 9, accuracy: 0.9 }]);
    expect(b.overallAccuracy).toBeCloseTo(13 / 15);
    expect(b.unknownRate).toBeCloseTo(1 / 15);
    expect(b.medianTraceSeconds).toBe(20); // 10, 18 x5, 20 x9: the 8th of 15
    expect(labBenchSchema.safeParse(b).success).toBe(true);
  });

  it('rejects a result whose per-class numbers disagree with the matrix, or whose matrix has the wrong shape', () => {
    const b = readLabBench(FIXTURE_LAB);
    const wrong = { ...b, perClass: [{ ...b.perClass[0], correct: 50 }, ...b.perClass.slice(1)] };
    const r = labBenchSchema.safeParse(wrong);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].message).toMatch(/disagree with the matrix \(50\/48\)/);
    expect(labBenchSchema.safeParse({ ...b, matrix: b.matrix.slice(1) }).success).toBe(false);
    expect(labBenchSchema.safeParse({ ...b, matrix: b.matrix.map((row) => row.slice(1)) }).success).toBe(false);
  });
});
