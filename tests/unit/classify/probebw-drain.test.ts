/**
 * BBRv1's ProbeBW gain cycle backs a learned BBRv1 answer where ProbeRTT shows neither as a drain
 * nor as a pause (bbr.ts probeBwDrainCycles): one min RTT at gain 0.75 in every 8, so the bytes in
 * flight fall by about a quarter every ~8 round trips of the whole path. The fixture: lab kernel
 * BBR through `video` 115 ms away (held-out h-video-115j3, session 48), "version not shown" until
 * session 53; lab Copa through `video` 100 ms away (hd-video-100j3), whose falls came ~8 round trips
 * apart 3 times in 12; lab BBRv3 behind nebby-100 in a 0.6-BDP buffer 90 ms away (hd-buf06-90j1),
 * 3 times in 6.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/index.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { bbrClassifier, bbrV1Backing, probeBwCycleShown, probeBwDrainCycles, type BbrParams } from '../../../src/classify/classifiers/bbr.js';
import type { Backoff } from '../../../src/classify/backoffs.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const params = () => bbrClassifier.parseParams(shippedModel().classifiers.bbr) as BbrParams;

/** Back-offs at these peak times (s) falling by `depth`, for a flow whose whole path is 0.2 s. */
const falls = (times: number[], depth = 0.25) => ({
  backoffs: times.map((t): Backoff => ({ iPeak: 0, iTrough: 0, tPeak: t, tTrough: t + 0.2, peak: 1, trough: 1 - depth, depth })),
  pathMinRttSeconds: 0.2, t0: 0, dt: 0.01, slowStartEnd: 100,
});

describe('probeBwDrainCycles', () => {
  it('counts intervals of 6.5-10.5 whole-path round trips between falls of 15-35%, from two round trips past start-up', () => {
    expect(probeBwDrainCycles(falls([2, 3.6, 5.2, 6.9, 8.5, 10.1]), params())).toEqual({ atCycle: 5, intervals: 5, medianRtts: 8 });
    // Falls in start-up's last two round trips (slow start ends at 1 s) and falls too deep or shallow are not the cycle's.
    expect(probeBwDrainCycles(falls([1.2, 2.8]), params())?.intervals).toBe(0);
    expect(probeBwDrainCycles(falls([2, 3.6, 5.2], 0.5), params())?.intervals).toBe(0);
    expect(probeBwDrainCycles(falls([2, 3.6, 5.2], 0.1), params())?.intervals).toBe(0);
    // A loss-based sawtooth: falls every 3 round trips.
    expect(probeBwDrainCycles(falls([2, 2.6, 3.2, 3.8]), params())?.atCycle).toBe(0);
  });

  it('is shown by at least 4 such intervals making up at least 60% of them', () => {
    expect(probeBwCycleShown({ atCycle: 4, intervals: 6 }, params())).toBe(true);
    expect(probeBwCycleShown({ atCycle: 3, intervals: 3 }, params())).toBe(false);
    expect(probeBwCycleShown({ atCycle: 4, intervals: 7 }, params())).toBe(false);
  });

  it('needs the whole path\'s round trip', () => {
    expect(probeBwDrainCycles({ ...falls([2, 3.6]), pathMinRttSeconds: null }, params())).toBeNull();
  });
});

describe('lab flows, shipped model', () => {
  const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/probebw-drain.json.gz', import.meta.url)));
  const byOrigin = (o: string) => entries.find((e) => e.origin === o)!;
  const features = (o: string) => extractFlowFeatures(toSeries(byOrigin(o)), shippedModel().pipeline);

  it('names lab kernel BBR through video 115 ms away BBRv1, backed by its ProbeBW cycle alone', () => {
    const b = bbrV1Backing(features('tcp-bbr'), params());
    expect(b.backed, b.why).toBe(true);
    expect(b.why).toMatch(/^ProbeBW's drain phase: falls of 15-35% every 6\.5-10\.5 round trips of the whole path 10 times in 12 \(median 8\.4\)/);
    expect(b.repeated).toBe(false);
    expect(classifyFlow(toSeries(byOrigin('tcp-bbr')), shippedModel()).label).toBe('BBRv1');
  });

  it('backs no BBRv1 answer from Copa\'s or BBRv3\'s falls, a few of which came ~8 round trips apart', () => {
    for (const [o, at, of] of [['tcp-copa', 3, 12], ['tcp-bbr3', 3, 6]] as const) {
      const f = features(o);
      expect(probeBwDrainCycles(f, params())).toMatchObject({ atCycle: at, intervals: of });
      expect(bbrV1Backing(f, params()).backed).toBe(false);
      expect(classifyFlow(toSeries(byOrigin(o)), shippedModel()).label).not.toBe('BBRv1');
    }
  });
});
