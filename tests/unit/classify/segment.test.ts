import { describe, expect, it } from 'vitest';
import { defaultPipelineConfig } from '../../../src/classify/config.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { buildSeries, piecewise, withPath } from '../../../src/classify/synthetic/index.js';

const RTT = 0.2;
const L = 5000;

/** Slow start to L by 1.2 s, then linear sawtooth teeth: 0.5 L -> L, dropping at `drops`. */
function sawtooth(drops: number[], durationS: number, seed = 11) {
  const knots: Array<[number, number]> = [
    [0, 0.05 * L],
    [0.4, 0.2 * L],
    [0.8, 0.5 * L],
    [1.2, L],
    [1.3, 0.5 * L],
  ];
  let prev = 1.3;
  for (const d of drops) {
    knots.push([d, L * (0.5 + 0.5 * Math.min(1, (d - prev) / 8))]);
    knots.push([d + 0.1, 0.5 * L]);
    prev = d + 0.1;
  }
  knots.push([durationS, L * (0.5 + 0.5 * Math.min(1, (durationS - prev) / 8))]);
  return buildSeries(withPath({ seed, durationS, noise: 0.02 }), piecewise(knots), RTT);
}

describe('segmentation', () => {
  const drops = [9.3, 17.4, 25.5, 33.6];
  const f = extractFlowFeatures(sawtooth(drops, 40), defaultPipelineConfig);

  it('finds the known back-off times within one RTT', () => {
    // The first back-off ends slow start (at 1.2 s); then one per tooth.
    const expected = [1.2, ...drops];
    expect(f.backoffs.map((b) => b.tPeak)).toHaveLength(expected.length);
    f.backoffs.forEach((b, i) => expect(Math.abs(b.tPeak - expected[i])).toBeLessThan(RTT));
    for (const b of f.backoffs) expect(b.depth).toBeGreaterThan(0.35);
  });

  it('sets slow start aside: nothing before its end is judged', () => {
    const ssEnd = f.t0 + f.slowStartEnd * f.dt;
    expect(ssEnd).toBeGreaterThan(0.6);
    expect(ssEnd).toBeLessThan(1.4);
    expect(f.segments[0].segment.openedBy).toBe('slow-start-end');
    expect(f.segments[0].segment.usable).toBe(false);
  });

  it('keeps the segments between two back-offs and drops open-ended ones with a reason', () => {
    const usable = f.segments.filter((s) => s.segment.usable);
    expect(usable).toHaveLength(drops.length);
    for (const s of usable) {
      expect(s.vector).toBeDefined();
      expect(s.segment.durationRtts).toBeGreaterThan(35);
    }
    const last = f.segments[f.segments.length - 1].segment;
    expect(last.closedBy).toBe('end-of-trace');
    expect(last.dropReason).toMatch(/not between two back-offs/);
  });

  it('drops segments too short to judge, saying why', () => {
    // A full tooth, then a 0.9 s (4.5 RTT) tooth, then full teeth again.
    const shape = piecewise([
      [0, 0.05 * L],
      [1.2, L],
      [1.3, 0.5 * L],
      [9.3, L],
      [9.4, 0.5 * L],
      [10.2, 0.9 * L],
      [10.3, 0.45 * L],
      [18.3, L],
      [18.4, 0.5 * L],
      [26.4, L],
      [26.5, 0.5 * L],
      [30, 0.7 * L],
    ]);
    const g = extractFlowFeatures(buildSeries(withPath({ seed: 4, durationS: 30, noise: 0.02 }), shape, RTT), defaultPipelineConfig);
    const tooShort = g.segments.find((s) => s.segment.dropReason?.startsWith('too short'));
    expect(tooShort).toBeDefined();
    expect(tooShort!.segment.tStart).toBeGreaterThan(9.3);
    expect(tooShort!.segment.tEnd).toBeLessThan(10.5);
  });

  it('does not count a fall into an application-limited stretch as a back-off', () => {
    const p = withPath({ seed: 5, durationS: 30, noise: 0.02 });
    const shape = piecewise([
      [0, 0.1 * L],
      [1, L],
      [14, L],
      [14.1, 0.1 * L],
      [20, 0.1 * L],
      [20.5, L],
      [30, L],
    ]);
    const s = buildSeries(p, shape, RTT, (t) => t > 13.9 && t < 20.5);
    const g = extractFlowFeatures(s, defaultPipelineConfig);
    expect(g.backoffs.filter((b) => b.tPeak > 13 && b.tPeak < 21)).toHaveLength(0);
    expect(g.segments.some((x) => x.segment.closedBy === 'excluded')).toBe(true);
  });
});
