import { describe, expect, it } from 'vitest';
import { checkpointAt, checkpointTimes, decideStop, replayStop, type CheckpointVerdict, type StopRule } from '../../../src/classify/early-stop.js';
import type { Verdict } from '../../../src/classify/index.js';

const rule: StopRule = { floorSeconds: 10, stepSeconds: 2, stableCheckpoints: 3, ceilingSeconds: 20, minConfidence: 0.8 };
const cca = (seconds: number, label: string, confidence = 0.9): CheckpointVerdict => ({ seconds, label, kind: 'cca', confidence });
const unknown = (seconds: number): CheckpointVerdict => ({ seconds, label: 'Unknown', kind: 'unknown', confidence: 0 });

describe('early-stop rule', () => {
  it('checks from the floor every step and always ends at the ceiling', () => {
    expect(checkpointTimes(rule)).toEqual([10, 12, 14, 16, 18, 20]);
    expect(checkpointTimes({ ...rule, stepSeconds: 3 })).toEqual([10, 13, 16, 19, 20]);
    expect(checkpointTimes({ ...rule, floorSeconds: 25 })).toEqual([20]);
  });

  it('with an infinite ceiling (a scenario activity, bounded by its own length) the checkpoints never end', () => {
    const open = { ...rule, ceilingSeconds: Number.POSITIVE_INFINITY };
    expect([0, 1, 2, 500].map((i) => checkpointAt(open, i))).toEqual([10, 12, 14, 1010]);
    expect(decideStop([cca(1010, 'CUBIC', 0.1)], open)).toEqual({ stop: false });
    expect(() => checkpointTimes(open)).toThrow(/finite ceiling/);
  });

  it('stops once the same confident answer held at K checkpoints in a row', () => {
    expect(decideStop([cca(10, 'CUBIC'), cca(12, 'CUBIC')], rule)).toEqual({ stop: false });
    expect(decideStop([cca(10, 'CUBIC'), cca(12, 'CUBIC'), cca(14, 'CUBIC', 0.95)], rule))
      .toEqual({ stop: true, why: 'stable', label: 'CUBIC', confidence: 0.95, neededSeconds: 14 });
  });

  it('a changed label, an Unknown or a weak answer restarts the count', () => {
    expect(decideStop([cca(10, 'CUBIC'), cca(12, 'BIC'), cca(14, 'CUBIC')], rule).stop).toBe(false);
    expect(decideStop([cca(10, 'CUBIC'), unknown(12), cca(14, 'CUBIC')], rule).stop).toBe(false);
    expect(decideStop([cca(10, 'CUBIC'), cca(12, 'CUBIC', 0.79), cca(14, 'CUBIC')], rule).stop).toBe(false);
    expect(decideStop([cca(10, 'CUBIC'), cca(12, 'BIC'), cca(14, 'CUBIC'), cca(16, 'CUBIC'), cca(18, 'CUBIC')], rule))
      .toMatchObject({ stop: true, why: 'stable', neededSeconds: 18 });
  });

  it('checkpoints before the floor never count toward stability', () => {
    expect(decideStop([cca(6, 'CUBIC'), cca(8, 'CUBIC'), cca(10, 'CUBIC')], rule).stop).toBe(false);
  });

  it('a flow that never settles runs to the ceiling; one that ended stops with what it has', () => {
    const wavering = [unknown(10), cca(12, 'BIC'), unknown(14), unknown(16), cca(18, 'CUBIC')];
    expect(decideStop(wavering, rule).stop).toBe(false);
    expect(decideStop([...wavering, unknown(20)], rule)).toMatchObject({ stop: true, why: 'ceiling', label: 'Unknown', neededSeconds: 20 });
    expect(decideStop([unknown(10), cca(11.3, 'CUBIC')], rule, true)).toMatchObject({ stop: true, why: 'flow-ended', label: 'CUBIC', neededSeconds: 11.3 });
  });

  it('K = 1 stops at the first confident answer at or past the floor', () => {
    expect(decideStop([cca(10, 'Vegas')], { ...rule, stableCheckpoints: 1 })).toMatchObject({ stop: true, neededSeconds: 10 });
  });
});

describe('replayStop', () => {
  const verdict = (label: string, confidence: number): Verdict => ({ schemaVersion: 1, label, kind: label === 'Unknown' ? 'unknown' : 'cca', confidence, reason: '', shapeCluster: null, evidence: null });
  const series = (end: number) => ({ t: Float64Array.from({ length: end * 10 + 1 }, (_, i) => i / 10), bif: new Float64Array(end * 10 + 1), rttSeconds: 0.1 });

  it('judges the series cut at each checkpoint and stops at the first stable one', () => {
    const asked: number[] = [];
    const r = replayStop(series(30), rule, (s) => {
      asked.push(s);
      const v = verdict(s < 12 ? 'Unknown' : 'NewReno', s < 12 ? 0 : 0.9);
      return { raw: v, calibrated: v };
    });
    expect(asked).toEqual([10, 12, 14, 16]);
    expect(r).toMatchObject({ neededSeconds: 16, why: 'stable', verdict: { label: 'NewReno' } });
  });

  it('a flow shorter than a checkpoint is judged whole, once, at its end', () => {
    const asked: number[] = [];
    const r = replayStop(series(13), rule, (s) => {
      asked.push(s);
      const v = verdict('Unknown', 0);
      return { raw: v, calibrated: v };
    });
    expect(asked).toEqual([10, 12, 13]);
    expect(r).toMatchObject({ neededSeconds: 13, why: 'flow-ended' });
  });
});
