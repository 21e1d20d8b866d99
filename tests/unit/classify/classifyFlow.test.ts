import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/classifyFlow.js';
import { fuseProfiles } from '../../../src/classify/fusion.js';
import { verdictSchema, type Verdict } from '../../../src/classify/verdict.js';
import { syntheticModel } from './shippedModel.js';
import { buildSeries, piecewise, withPath } from '../../../src/classify/synthetic/index.js';
import {
  akamaiSeries,
  appLimitedSeries,
  bbrV1Series,
  bbrV2Series,
  copaSeries,
  cubicSeries,
  renoSeries,
  shortFlowSeries,
  sineSeries,
  squareWaveSeries,
  whiteNoiseSeries,
} from './synthetic.js';

// Both Nebby profiles: ~50 ms and ~100 ms one-way delay (+ ~20 ms of Internet RTT).
const PROFILES = [0.12, 0.22];
const model = syntheticModel();
const classify = (s: Parameters<typeof classifyFlow>[0]): Verdict => classifyFlow(s, model);

describe('classifyFlow on known shapes (model trained on synthetic shapes, unseen seeds)', () => {
  it.each(PROFILES)('a Reno sawtooth is NewReno, quadratic per Table 6.3 (base RTT %s s)', (rtt) => {
    const v = classify(renoSeries({ seed: 1001, baseRttS: rtt, durationS: rtt > 0.15 ? 120 : 60 }));
    expect(v.label).toBe('NewReno');
    expect(v.kind).toBe('cca');
    expect(v.shapeCluster).toBe('quadratic');
    const judged = v.evidence!.segments.filter((s) => s.polynomial);
    expect(judged.length).toBeGreaterThan(0);
    // Concave growth (RTT grows with the queue): a quadratic with a negative x^2 term.
    for (const s of judged) {
      expect(s.polynomial!.degree).toBe(2);
      expect(s.polynomial!.coefficients[2]).toBeLessThan(0);
    }
  });

  it.each(PROFILES)('a CUBIC curve is CUBIC, with concave-then-convex cubic segments (base RTT %s s)', (rtt) => {
    const v = classify(cubicSeries({ seed: 1002, baseRttS: rtt, durationS: rtt > 0.15 ? 120 : 60 }));
    expect(v.label).toBe('CUBIC');
    expect(v.shapeCluster).toBe('cubic');
    const cubics = v.evidence!.segments.filter((s) => s.polynomial?.degree === 3);
    expect(cubics.length).toBeGreaterThan(0);
    for (const s of cubics) {
      const [, , c2, c3] = s.polynomial!.coefficients;
      expect(c3).toBeGreaterThan(0); // convex at the end
      const inflection = -c2 / (3 * c3);
      expect(inflection).toBeGreaterThan(0); // concave before it
      expect(inflection).toBeLessThan(1);
    }
    const posterior = v.evidence!.lossPosterior!;
    expect(posterior.CUBIC).toBeGreaterThan(0.9);
  });

  it.each(PROFILES)('a flat line with 8-RTT +25%% pulses and 10 s ProbeRTT dips is BBRv1 (base RTT %s s)', (rtt) => {
    const v = classify(bbrV1Series({ seed: 1003, baseRttS: rtt }));
    expect(v.label).toBe('BBRv1');
    const bbr = v.evidence!.classifiers.bbr as Record<string, number>;
    expect(bbr.probeBwPeriodRtts).toBeGreaterThan(6.5);
    expect(bbr.probeBwPeriodRtts).toBeLessThan(8.5);
    expect(bbr.probeRttPeriodSeconds).toBeGreaterThan(9.5);
    expect(bbr.probeRttPeriodSeconds).toBeLessThan(11.5);
  });

  it.each(PROFILES)('a cruise with 5 s ProbeRTT dips is BBRv2 (base RTT %s s)', (rtt) => {
    const v = classify(bbrV2Series({ seed: 1004, baseRttS: rtt }));
    expect(v.label).toBe('BBRv2');
    const bbr = v.evidence!.classifiers.bbr as Record<string, number>;
    expect(bbr.probeRttPeriodSeconds).toBeGreaterThan(4.5);
    expect(bbr.probeRttPeriodSeconds).toBeLessThan(6);
    expect(bbr.longestCruiseSeconds).toBeGreaterThan(2);
  });

  it('BBR with ProbeRTT on neither v1 nor v2 timing is "BBR (other version)"', () => {
    const v = classify(bbrV1Series({ seed: 1005, probeRttEveryS: 7, durationS: 40 }));
    expect(v.label).toBe('BBR (other version)');
  });

  it('ProbeBW-like pulses with no ProbeRTT in 40 s are no BBR claim (every BBR has one; loss cycles read as pulses)', () => {
    const v = classify(bbrV1Series({ seed: 1005, probeRttEveryS: 1000, durationS: 40 }));
    const bbr = v.evidence!.classifiers.bbr as { pulsesFound: boolean; dips: unknown[]; decision: string | null };
    expect(bbr.pulsesFound).toBe(true);
    expect(bbr.dips).toHaveLength(0);
    expect(bbr.decision).toBeNull();
    expect(v.evidence!.claims.some((c) => c.classifier === 'bbr')).toBe(false);
  });

  it.each(PROFILES)('a constant level with 15 s back-offs is AkamaiCC-like (base RTT %s s)', (rtt) => {
    const v = classify(akamaiSeries({ seed: 1006, baseRttS: rtt, durationS: 50 }));
    expect(v.label).toBe('AkamaiCC-like');
    const ak = v.evidence!.classifiers.akamai as { backoffIntervalsSeconds: number[] };
    for (const x of ak.backoffIntervalsSeconds) {
      expect(x).toBeGreaterThan(10);
      expect(x).toBeLessThan(20);
    }
  });

  it.each(PROFILES)('a level held flat for the whole transfer with no back-off (FAST TCP) is AkamaiCC-like (base RTT %s s)', (rtt) => {
    // Issue 17: the lab's AkamaiCC-like sender (FAST) never backs off after start-up.
    const v = classify(akamaiSeries({ seed: 1016, baseRttS: rtt, durationS: 30, backoffEveryS: 1000, levelBytes: 25_000 * rtt + 2000 }));
    expect(v.label).toBe('AkamaiCC-like');
    const ak = v.evidence!.classifiers.akamai as { held: boolean; heldSeconds: number };
    expect(ak.held).toBe(true);
    expect(ak.heldSeconds).toBeGreaterThan(20);
  });

  it('a flat level for only 12 s is not AkamaiCC-like by the held-level path', () => {
    const v = classify(akamaiSeries({ seed: 1017, baseRttS: 0.12, durationS: 12, backoffEveryS: 1000 }));
    expect((v.evidence!.classifiers.akamai as { held: boolean }).held).toBe(false);
  });

  it('a symmetric swing every 5 RTTs is Copa', () => {
    const v = classify(copaSeries({ seed: 1007 }));
    expect(v.label).toBe('Copa');
    expect((v.evidence!.classifiers.copa as Record<string, number>).periodRtts).toBeCloseTo(5, 0);
  });
});

describe('classifyFlow gives honest non-answers', () => {
  it.each([1010, 1011, 1012])('white noise is Unknown (seed %s)', (seed) => {
    const v = classify(whiteNoiseSeries({ seed }));
    expect(v.label).toBe('Unknown');
    expect(v.kind).toBe('unknown');
    expect(v.confidence).toBe(0);
  });

  it('a square wave matches no class: Unknown, its shape outside every trained class', () => {
    const v = classify(squareWaveSeries({ seed: 1013, periodS: 3 }));
    expect(v.label).toBe('Unknown');
    const loss = v.evidence!.claims.find((c) => c.classifier === 'loss-based');
    expect(loss).toBeDefined();
    expect(loss!.label).toBe('Unknown');
    expect(loss!.inDistribution ?? []).toEqual([]);
  });

  it('a sine of arbitrary period (2.3 s) is Unknown', () => {
    expect(classify(sineSeries({ seed: 1014, periodS: 2.3 })).label).toBe('Unknown');
  });

  it('a 1 s flow is a Short flow', () => {
    const v = classify(shortFlowSeries({ seed: 1015 }));
    expect(v.label).toBe('Short flow');
    expect(v.kind).toBe('short-flow');
    expect(v.reason).toMatch(/too short/);
  });

  it('a mostly application-limited flow is Application-limited', () => {
    const v = classify(appLimitedSeries({ seed: 1016 }));
    expect(v.label).toBe('Application-limited');
    expect(v.evidence!.appLimitedFraction).toBeGreaterThan(0.5);
  });

  it('a broken series becomes an Unknown verdict with the cause, never an exception', () => {
    const bad = { t: Float64Array.from([0, 2, 1]), bif: Float64Array.from([1, 2, 3]), rttSeconds: 0.1 };
    const v = classify(bad);
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/time goes backwards/);
    expect(classify({ ...bad, t: Float64Array.from([0, 1, 2]), rttSeconds: 0 }).reason).toMatch(/rttSeconds/);
  });
});

describe('verdicts are deterministic, JSON and carry evidence', () => {
  it('same input twice (and the same seed regenerated) gives deep-equal verdicts', () => {
    const a = classify(cubicSeries({ seed: 1020, durationS: 40 }));
    const b = classify(cubicSeries({ seed: 1020, durationS: 40 }));
    expect(b).toEqual(a);
    const s = bbrV1Series({ seed: 1021 });
    expect(classify(s)).toEqual(classify(s));
  });

  it('survives a JSON round trip unchanged and matches the published verdict schema', () => {
    const vs = [classify(renoSeries({ seed: 1022 })), classify(bbrV2Series({ seed: 1023 })), classify(shortFlowSeries({ seed: 1 }))];
    for (const v of [...vs, fuseProfiles(vs.slice(0, 2))]) {
      expect(JSON.parse(JSON.stringify(v))).toEqual(v);
      expect(verdictSchema.safeParse(JSON.parse(JSON.stringify(v))).success).toBe(true);
    }
  });

  it('keeps a claim\'s nearer class through the schema (a stored verdict fused again must not favour that class)', () => {
    const v = classify(renoSeries({ seed: 1022 }));
    const claims = v.evidence!.claims.map((c) => (c.classifier === 'loss-based' ? { ...c, nearer: 'Veno' } : c));
    const parsed = verdictSchema.parse({ ...v, evidence: { ...v.evidence!, claims } });
    expect(parsed.evidence!.claims.find((c) => c.classifier === 'loss-based')!.nearer).toBe('Veno');
  });

  it('evidence has segment time ranges, polynomials, posteriors, periods and a drawable series', () => {
    const v = classify(renoSeries({ seed: 1024, durationS: 60 }));
    const e = v.evidence!;
    expect(e.smoothed.bif.length).toBeGreaterThan(100);
    expect(e.smoothed.bif.length).toBeLessThanOrEqual(512);
    expect(e.backoffs.length).toBeGreaterThan(2);
    for (const s of e.segments) expect(s.tEnd).toBeGreaterThan(s.tStart);
    expect(e.segments.filter((s) => s.polynomial).length).toBeGreaterThan(0);
    // One flow-level posterior over the classes, from the flow's descriptor.
    expect(Object.values(e.lossPosterior!).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    const descriptor = (e.classifiers['loss-based'] as { descriptor: Record<string, number | null> }).descriptor;
    expect(descriptor.beta).toBeGreaterThan(0.3);
    expect(descriptor.beta).toBeLessThan(0.7);
    expect(Object.keys(e.classifiers).sort()).toEqual(['akamai', 'bbr', 'copa', 'loss-agnostic', 'loss-based']);
    expect(e.claims.some((c) => c.classifier === 'loss-based' && c.label === 'NewReno')).toBe(true);
  });
});

describe('BBR "other version" from ProbeRTT-like dips alone', () => {
  /** A flat level with deep, short dips at the given times (no ProbeBW pulses). */
  function flatWithDips(seed: number, dipsAt: number[], durationS: number, troughShare?: number) {
    const p = withPath({ seed, durationS });
    const rtt = p.baseRttS;
    const level = 1.5 * p.capacityBps * rtt;
    const trough = troughShare === undefined ? 4 * p.mss : troughShare * level;
    const knots: Array<[number, number]> = [[0, level]];
    for (const d of dipsAt) knots.push([d, level], [d + rtt, trough], [d + rtt + 0.2 + rtt, trough], [d + 0.2 + 3 * rtt, level]);
    knots.push([durationS, level]);
    return buildSeries(p, piecewise(knots), rtt * 1.05);
  }
  const bbrOf = (s: ReturnType<typeof flatWithDips>) => classify(s).evidence!.classifiers.bbr as { decision: string | null; dips: unknown[]; pulsesFound: boolean; probeRttIntervalsSeconds: number[] };

  it('four dips 7 s apart (timing of neither v1 nor v2) are "BBR (other version)"', () => {
    const bbr = bbrOf(flatWithDips(1101, [7, 14, 21, 28], 32));
    expect(bbr.dips).toHaveLength(4);
    expect(bbr.decision).toBe('BBR (other version)');
  });

  it('two dips ~12 s apart are not "other version" from dips alone; drained to 4 packets they are BBRv1\'s ProbeRTT', () => {
    // Dips to a quarter of the level: periodic, no pulses; only the dip count keeps them from a
    // BBR claim (a loss-based flow's deep cuts can look the same).
    const quarter = bbrOf(flatWithDips(1102, [11, 23], 30, 0.25));
    expect(quarter.dips).toHaveLength(2);
    expect(quarter.pulsesFound).toBe(false);
    expect(quarter.probeRttIntervalsSeconds.length).toBe(2);
    expect(quarter.decision).toBeNull();
    // Drained to BBRv1's 4 packets, 12 s apart: the ProbeRTT drains name it.
    const drained = classify(flatWithDips(1102, [11, 23], 30));
    const bbr = drained.evidence!.classifiers.bbr as { decision: string | null; probeRttDrainIntervalsSeconds: number[] };
    expect(bbr.decision).toBe('BBRv1');
    expect(bbr.probeRttDrainIntervalsSeconds).toHaveLength(1);
    expect(bbr.probeRttDrainIntervalsSeconds[0]).toBeCloseTo(12, 0);
  });

  it('one dip ~5 s in, then a cruise, is not BBRv2: one dip shows no period (lab CUBIC and Veno did this)', () => {
    const one = bbrOf(flatWithDips(1103, [5], 29));
    expect(one.dips).toHaveLength(1);
    // The time from the start is the only interval, inside v2's 3.5-6.5 s: only the dip count keeps it out.
    expect(one.probeRttIntervalsSeconds).toHaveLength(1);
    expect(one.probeRttIntervalsSeconds[0]).toBeGreaterThan(3.5);
    expect(one.probeRttIntervalsSeconds[0]).toBeLessThan(6.5);
    expect(one.decision).toBeNull();
    // Two dips with that timing are BBRv2.
    expect(bbrOf(flatWithDips(1104, [5, 10], 29)).decision).toBe('BBRv2');
  });
});
