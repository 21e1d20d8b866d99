/**
 * BBRv1's ProbeBW gain cycle backs a learned BBRv1 answer where ProbeRTT shows neither as a drain
 * nor as a pause (bbr.ts probeBwDrainCycles): one min RTT at gain 0.75 in every 8, so the bytes in
 * flight fall by about a quarter every ~8 round trips of the whole path. The fixture: lab kernel
 * BBR through `video` 115 ms away (held-out h-video-115j3, session 48), "version not shown" until
 * session 53; lab Copa through `video` 100 ms away (hd-video-100j3), whose falls came ~8 round trips
 * apart 3 times in 12; lab BBRv3 behind nebby-100 in a 0.6-BDP buffer 90 ms away (hd-buf06-90j1),
 * twice in 3.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/index.js';
import { extractFlowFeatures, pathMinRttOf } from '../../../src/classify/features.js';
import { analyse, bbrClassifier, bbrV1Backing, probeBwCycleShown, probeBwDrainCycles, type BbrParams } from '../../../src/classify/classifiers/bbr.js';
import type { Backoff } from '../../../src/classify/backoffs.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import type { FlowConditions } from '../../../src/trace/types.js';
import { shippedModel } from './shippedModel.js';

const params = () => bbrClassifier.parseParams(shippedModel().classifiers.bbr) as BbrParams;

/** Back-offs at these peak times (s) falling by `depth` (or each by its own), for a flow whose whole path is 0.2 s; slow start ends at 1 s. */
const falls = (times: number[], depth: number | number[] = 0.25) => ({
  backoffs: times.map((t, k): Backoff => {
    const d = Array.isArray(depth) ? depth[k] : depth;
    return { iPeak: Math.round(t / 0.01), iTrough: Math.round((t + 0.2) / 0.01), tPeak: t, tTrough: t + 0.2, peak: 1, trough: 1 - d, depth: d };
  }),
  pathMinRttSeconds: 0.2, t0: 0, dt: 0.01, slowStartEnd: 100, mask: new Uint8Array(2000),
});

describe('probeBwDrainCycles', () => {
  it('counts intervals of 6.5-10.5 whole-path round trips between falls of 20-35%, from two round trips past start-up', () => {
    const c = probeBwDrainCycles(falls([2, 3.6, 5.2, 6.9, 8.5, 10.1]), params());
    expect(c).toMatchObject({ atCycle: 5, intervals: 5 });
    expect(c?.medianRtts).toBeCloseTo(8, 6);
    // Falls in start-up's last two round trips (slow start ends at 1 s) and falls too deep or shallow are not the cycle's.
    expect(probeBwDrainCycles(falls([1.2, 2.8]), params())?.intervals).toBe(0);
    expect(probeBwDrainCycles(falls([2, 3.6, 5.2], 0.5), params())?.intervals).toBe(0);
    expect(probeBwDrainCycles(falls([2, 3.6, 5.2], 0.4), params())?.intervals).toBe(0);
    // A loss-based sawtooth: falls every 3 round trips.
    expect(probeBwDrainCycles(falls([2, 2.6, 3.2, 3.8]), params())?.atCycle).toBe(0);
  });

  it('reads an interval only between two such falls in a row, with no idle or application-limited time between them', () => {
    // Falls every 4 round trips with a deeper cut between two of them: not one 8-round-trip cycle.
    expect(probeBwDrainCycles(falls([2, 2.8, 3.6], [0.25, 0.6, 0.25]), params())?.intervals).toBe(0);
    const paused = falls([2, 3.6, 5.2]);
    paused.mask[400] = 1;
    expect(probeBwDrainCycles(paused, params())?.intervals).toBe(1);
  });

  it('is shown by at least 4 such intervals making up at least 60% of them', () => {
    expect(probeBwCycleShown({ atCycle: 4, intervals: 6 }, params())).toBe(true);
    expect(probeBwCycleShown({ atCycle: 3, intervals: 3 }, params())).toBe(false);
    expect(probeBwCycleShown({ atCycle: 4, intervals: 7 }, params())).toBe(false);
  });

  it('needs the whole path\'s round trip: the capture\'s minimum RTT and the server side\'s', () => {
    expect(probeBwDrainCycles({ ...falls([2, 3.6]), pathMinRttSeconds: null }, params())).toBeNull();
    const c = { minRttSeconds: 0.1, serverSideRttSeconds: 0.12 } as FlowConditions;
    expect(pathMinRttOf(c)).toBeCloseTo(0.22, 9);
    expect(pathMinRttOf({ ...c, serverSideRttSeconds: null })).toBeNull();
    expect(pathMinRttOf({ ...c, minRttSeconds: 0 })).toBeNull();
    expect(pathMinRttOf(undefined)).toBeNull();
  });
});

describe('lab flows, shipped model', () => {
  const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/probebw-drain.json.gz', import.meta.url)));
  const byOrigin = (o: string) => entries.find((e) => e.origin === o)!;
  const features = (o: string) => extractFlowFeatures(toSeries(byOrigin(o)), shippedModel().pipeline);

  it('names lab kernel BBR through video 115 ms away BBRv1, backed by its ProbeBW cycle alone', () => {
    const b = bbrV1Backing(features('tcp-bbr'), params());
    expect(b.backed, b.why).toBe(true);
    expect(b.why).toMatch(/^ProbeBW's drain phase: 10 of 10 intervals between falls of 20-35% at 6\.5-10\.5 round trips of the whole path \(median 8\.3 round trips\)/);
    expect(b.repeated).toBe(false);
    expect(classifyFlow(toSeries(byOrigin('tcp-bbr')), shippedModel()).label).toBe('BBRv1');
  });

  it('backs nothing beside BBRv2/v3\'s ProbeRTT rhythm: their bandwidth probes may fall ~8 round trips apart on such a path', () => {
    const f = features('tcp-bbr');
    const withRhythm = { ...analyse(f, params()), intervals: [5.1, 5.3] };
    const b = bbrV1Backing(f, params(), withRhythm);
    expect(b.backed).toBe(false);
    expect(b.why).toMatch(/; ProbeBW's drain phase \(10 of 10 intervals at its cycle\) beside BBRv2\/v3's ~5 s ProbeRTT rhythm \(2 interval\(s\)\)$/);
  });

  it('backs no BBRv1 answer from Copa\'s or BBRv3\'s falls, a few of which came ~8 round trips apart', () => {
    for (const [o, at, of] of [['tcp-copa', 3, 12], ['tcp-bbr3', 2, 3]] as const) {
      const f = features(o);
      expect(probeBwDrainCycles(f, params())).toMatchObject({ atCycle: at, intervals: of });
      expect(bbrV1Backing(f, params()).backed).toBe(false);
      expect(classifyFlow(toSeries(byOrigin(o)), shippedModel()).label).not.toBe('BBRv1');
    }
  });
});
