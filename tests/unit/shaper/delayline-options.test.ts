import { describe, expect, it } from 'vitest';
import { delayLineArguments, delayLineStatsSchema, validateDelayLineOptions, type DelayLineSettings } from '../../../src/shaper/delayline.js';
import { BadInputError } from '../../../src/util/errors.js';

const base: DelayLineSettings = { queueNum: 3, delayMs: 20 };

function rejects(extra: Partial<DelayLineSettings>, message: RegExp): void {
  const run = () => validateDelayLineOptions({ ...base, ...extra });
  expect(run).toThrow(BadInputError);
  expect(run).toThrow(message);
}

describe('delay line options', () => {
  it('accepts every impairment inside its range', () => {
    expect(() =>
      validateDelayLineOptions({
        ...base,
        jitterMs: 4,
        jitterReorders: true,
        loss: { percent: 5, burstLen: 4 },
        reorder: { percent: 10, extraMs: 5 },
        aggregateMs: 10,
        seed: 42,
      }),
    ).not.toThrow();
    // The edges of each range.
    expect(() => validateDelayLineOptions({ ...base, loss: { percent: 100 }, reorder: { percent: 0, extraMs: 60_000 }, aggregateMs: 0 })).not.toThrow();
    expect(() => validateDelayLineOptions({ ...base, loss: { percent: 50, burstLen: 1 } })).not.toThrow();
  });

  it('names the allowed range of a value out of it', () => {
    rejects({ loss: { percent: 101 } }, /loss percent must be 0\.\.100%, got 101/);
    rejects({ loss: { percent: -1 } }, /loss percent must be 0\.\.100%/);
    rejects({ loss: { percent: Number.NaN } }, /loss percent must be 0\.\.100%, got NaN/);
    rejects({ loss: { percent: 5, burstLen: 0.5 } }, /loss burst length must be 1\.\.1,000,000,000 packets, got 0\.5/);
    rejects({ reorder: { percent: 120, extraMs: 5 } }, /reorder percent must be 0\.\.100%, got 120/);
    rejects({ reorder: { percent: 10, extraMs: -5 } }, /reorder extra delay must be 0\.\.60,000 ms, got -5/);
    rejects({ reorder: { percent: 10, extraMs: Number.POSITIVE_INFINITY } }, /reorder extra delay must be 0\.\.60,000 ms/);
    rejects({ aggregateMs: 60_001 }, /aggregation interval must be 0\.\.60,000 ms, got 60001/);
    rejects({ aggregateMs: 0.0001 }, /aggregation interval must be 0 \(off\) or at least 0\.001 ms/);
    rejects({ jitterMs: -1 }, /jitter must be 0\.\.60,000 ms/);
    rejects({ seed: 1.5 }, /seed must be a non-negative integer/);
    rejects({ delayMs: -5 }, /delay must be 0\.\.3,600,000 ms, got -5/);
    rejects({ queueNum: 70_000 }, /queue number must be an integer 0\.\.65535/);
  });

  it('refuses a loss rate that bursts of the given mean length cannot reach (Gilbert-Elliott)', () => {
    // P(Good->Bad) = (P/(1-P))/L must be a probability: P <= L/(L+1).
    rejects({ loss: { percent: 81, burstLen: 4 } }, /at most 100\*L\/\(L\+1\) = 80\.00% loss/);
    rejects({ loss: { percent: 100, burstLen: 10 } }, /cannot come in bursts of mean length 10/);
    expect(() => validateDelayLineOptions({ ...base, loss: { percent: 80, burstLen: 4 } })).not.toThrow();
  });

  it('refuses jitterReorders without the jitter it would apply to', () => {
    rejects({ jitterReorders: true }, /jitterReorders needs jitterMs/);
  });

  it('passes the options to ccb-delayline in microseconds, seeded whenever a decision is random', () => {
    expect(delayLineArguments(base)).toEqual(['--queue-num', '3', '--delay-us', '20000', '--queue-maxlen', '10000']);
    expect(delayLineArguments({ ...base, aggregateMs: 10 })).toEqual([...delayLineArguments(base), '--aggregate-us', '10000']);
    expect(delayLineArguments({ ...base, jitterMs: 4, jitterReorders: true, seed: 9 })).toEqual([
      ...delayLineArguments(base), '--jitter-us', '4000', '--jitter-reorders', '--seed', '9',
    ]);
    expect(delayLineArguments({ ...base, loss: { percent: 5, burstLen: 4 } })).toEqual([
      ...delayLineArguments(base), '--loss-percent', '5', '--loss-burst-len', '4', '--seed', '1',
    ]);
    expect(delayLineArguments({ ...base, reorder: { percent: 10, extraMs: 5.5 } })).toEqual([
      ...delayLineArguments(base), '--reorder-percent', '10', '--reorder-extra-us', '5500', '--seed', '1',
    ]);
    // Zero means off: nothing passed, so the delay line keeps its FIFO mode.
    expect(delayLineArguments({ ...base, jitterMs: 0, jitterReorders: true, loss: { percent: 0 }, reorder: { percent: 0, extraMs: 5 }, aggregateMs: 0 })).toEqual(
      delayLineArguments(base),
    );
  });

  it('reads stats lines with and without the impairment counters (older binaries)', () => {
    const old = { packets: 10, maxHeld: 2, lateReleasesOver1ms: 0, enobufs: 0 };
    expect(delayLineStatsSchema.parse(old).droppedLoss).toBeUndefined();
    const now = delayLineStatsSchema.parse({ ...old, droppedLoss: 3, reordered: 4, overtaken: 1 });
    expect(now).toMatchObject({ droppedLoss: 3, reordered: 4, overtaken: 1 });
    expect(() => delayLineStatsSchema.parse({ ...old, droppedLoss: -1 })).toThrow();
  });
});
