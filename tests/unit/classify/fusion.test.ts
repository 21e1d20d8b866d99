import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/classifyFlow.js';
import { decideFromClaims, fuseProfiles } from '../../../src/classify/fusion.js';
import type { Claim } from '../../../src/classify/types.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import type { FlowConditions } from '../../../src/trace/types.js';
import { syntheticModel } from './shippedModel.js';
import { akamaiSeries } from './synthetic.js';

const seg = (i: number, label: string, confidence = 0.95): Claim => ({ classifier: 'loss-based', label, scope: 'segment', segmentIndex: i, confidence });
const flow = (label: string, confidence = 0.8): Claim => ({ classifier: 'bbr', label, scope: 'flow', confidence });

describe('decideFromClaims (Nebby: some segments match X, none another known CCA)', () => {
  it('X when some segments match X and the rest are Unknown', () => {
    const d = decideFromClaims([seg(0, 'CUBIC'), seg(1, 'Unknown', 0), seg(2, 'CUBIC')]);
    expect(d.label).toBe('CUBIC');
    expect(d.kind).toBe('cca');
    // 2 of 3 segments agree: support 0.5 + 0.5 * 2/3.
    expect(d.confidence).toBeCloseTo(0.95 * (0.5 + 1 / 3), 3);
  });

  it('Unknown when segments match two different CCAs', () => {
    const d = decideFromClaims([seg(0, 'CUBIC'), seg(1, 'NewReno')]);
    expect(d.label).toBe('Unknown');
    expect(d.reason).toMatch(/conflicting.*CUBIC.*NewReno/);
  });

  it('Unknown when a rate-based claim contradicts loss-based segments', () => {
    expect(decideFromClaims([seg(0, 'CUBIC'), flow('BBRv1')]).label).toBe('Unknown');
  });

  it('a lone flow-level claim decides, with its own confidence', () => {
    const d = decideFromClaims([flow('BBRv2', 0.85), seg(0, 'Unknown', 0)]);
    expect(d.label).toBe('BBRv2');
    expect(d.confidence).toBeCloseTo(0.85, 6);
  });

  it('agreeing classifiers: the surest one\'s confidence, never their diluted mean', () => {
    const shape: Claim = { classifier: 'loss-based', label: 'BBRv1', scope: 'flow', confidence: 1 };
    const d = decideFromClaims([shape, flow('BBRv1', 0.8)]);
    expect(d.label).toBe('BBRv1');
    expect(d.confidence).toBeCloseTo(1, 6);
    expect(d.reason).toMatch(/loss-based, bbr/);
    // Segment support still discounts the classifier whose segments only partly agree.
    const e = decideFromClaims([seg(0, 'CUBIC', 0.9), seg(1, 'Unknown', 0), { classifier: 'x', label: 'CUBIC', scope: 'flow', confidence: 0.5 }]);
    expect(e.confidence).toBeCloseTo(0.9 * 0.75, 6);
  });

  it('Unknown with a reason when nothing matched', () => {
    expect(decideFromClaims([]).reason).toMatch(/no loss-based shape/);
    expect(decideFromClaims([seg(0, 'Unknown', 0)]).reason).toMatch(/1 segment\(s\) judged, none matched/);
  });
});

const verdict = (label: string, kind: Verdict['kind'], confidence: number): Verdict => ({
  schemaVersion: 1,
  label,
  kind,
  confidence,
  reason: 'test',
  shapeCluster: null,
  evidence: null,
});

describe('fuseProfiles', () => {
  it('agreeing profiles give that CCA with their mean confidence', () => {
    const f = fuseProfiles([verdict('NewReno', 'cca', 0.9), verdict('NewReno', 'cca', 0.8)]);
    expect(f.label).toBe('NewReno');
    expect(f.confidence).toBeCloseTo(0.85, 6);
    expect(f.shapeCluster).toBe('quadratic');
    expect(f.profiles).toHaveLength(2);
  });

  it('one CCA and one non-answer keep the CCA at lower confidence', () => {
    const f = fuseProfiles([verdict('CUBIC', 'cca', 0.8), verdict('Unknown', 'unknown', 0)]);
    expect(f.label).toBe('CUBIC');
    expect(f.confidence).toBeCloseTo(0.6, 6);
  });

  it('disagreeing profiles give Unknown', () => {
    const f = fuseProfiles([verdict('CUBIC', 'cca', 0.9), verdict('NewReno', 'cca', 0.9)]);
    expect(f.label).toBe('Unknown');
    expect(f.reason).toMatch(/disagree/);
    expect(f.confidence).toBe(0);
  });

  it('only non-answers: Unknown beats Application-limited beats Short flow', () => {
    expect(fuseProfiles([verdict('Short flow', 'short-flow', 0), verdict('Short flow', 'short-flow', 0)]).label).toBe('Short flow');
    expect(fuseProfiles([verdict('Short flow', 'short-flow', 0), verdict('Application-limited', 'application-limited', 0)]).label).toBe('Application-limited');
    expect(fuseProfiles([verdict('Short flow', 'short-flow', 0), verdict('Unknown', 'unknown', 0)]).label).toBe('Unknown');
    expect(fuseProfiles([]).label).toBe('Unknown');
  });

  it('AkamaiCC-like: a level that ignores the BDP across profiles keeps its confidence', () => {
    const m = syntheticModel();
    const a = classifyFlow(akamaiSeries({ seed: 1030, baseRttS: 0.12, durationS: 50, levelBytes: 2500 }), m);
    const b = classifyFlow(akamaiSeries({ seed: 1031, baseRttS: 0.22, durationS: 50, levelBytes: 2500 }), m);
    expect([a.label, b.label]).toEqual(['AkamaiCC-like', 'AkamaiCC-like']);
    const f = fuseProfiles([a, b]);
    expect(f.label).toBe('AkamaiCC-like');
    expect(f.notes?.[0]).toMatch(/ignores the BDP/);
    expect(f.confidence).toBeCloseTo((a.confidence + b.confidence) / 2, 3);
  });

  it('AkamaiCC-like: a queue above the BDP that ignores the BDP (FAST TCP) keeps its confidence', () => {
    // Issue 17: FAST holds alpha = 20 of its packets queued, so its level is BDP + 20 packets.
    const m = syntheticModel();
    const withBdp = (v: Verdict, rtt: number): Verdict => ({
      ...v,
      conditions: { measured: { transport: 'tcp', segmentBytes: 100, sack: true, rttSeconds: rtt, minRttSeconds: rtt, bdpPackets: (25_000 * rtt) / 100 } as FlowConditions, inside: true, distance: null, outsideReason: null, disturbed: null },
    });
    const a = withBdp(classifyFlow(akamaiSeries({ seed: 1034, baseRttS: 0.1, durationS: 30, backoffEveryS: 1000, levelBytes: 2500 + 2000 }), m), 0.1);
    const b = withBdp(classifyFlow(akamaiSeries({ seed: 1035, baseRttS: 0.2, durationS: 30, backoffEveryS: 1000, levelBytes: 5000 + 2000 }), m), 0.2);
    expect([a.label, b.label]).toEqual(['AkamaiCC-like', 'AkamaiCC-like']);
    const f = fuseProfiles([a, b]);
    expect(f.label).toBe('AkamaiCC-like');
    expect(f.notes?.[0]).toMatch(/queue it keeps ignores the BDP/);
    expect(f.confidence).toBeCloseTo((a.confidence + b.confidence) / 2, 3);
  });

  it('a window kept through heavy loss in one profile only, the other flow judged and matching no BBR class, is Unknown (Hybla)', () => {
    const verdictOf = (label: string, claims: Claim[]): Verdict => {
      const v = classifyFlow(akamaiSeries({ seed: 1036, baseRttS: 0.1, durationS: 30 }), syntheticModel());
      return { ...v, label, kind: label === 'Unknown' ? 'unknown' : 'cca', confidence: label === 'Unknown' ? 0 : 0.9, evidence: { ...v.evidence!, claims } };
    };
    const kept: Claim = { classifier: 'loss-agnostic', label: 'BBRv1', scope: 'flow', confidence: 0.9, note: 'lost 22% of bytes sent yet kept a median 107 segments in flight' };
    const skipped: Claim = { classifier: 'loss-based', label: 'Unknown', scope: 'flow', confidence: 0, note: 'keeps its window through heavy loss' };
    const outside: Claim = { classifier: 'loss-based', label: 'Unknown', scope: 'flow', confidence: 0, posterior: { BBRv1: 0.6, CUBIC: 0.4 }, inDistribution: [], note: 'shape outside every trained class' };
    // Measured on the lab's Hybla: nebby-100 BBRv1 by the rule, nebby-50 outside every class.
    const hybla = fuseProfiles([verdictOf('Unknown', [outside]), verdictOf('BBRv1', [kept, skipped])]);
    expect(hybla.label).toBe('Unknown');
    expect(hybla.reason).toMatch(/window kept through heavy loss in only 1 of 2 profiles/);
    // Quinn's BBR keeps its window through loss under both profiles: still BBRv1.
    expect(fuseProfiles([verdictOf('BBRv1', [kept, skipped]), verdictOf('BBRv1', [kept, skipped])]).label).toBe('BBRv1');
    // A profile that was not judged by its shape (no posterior) does not withhold it.
    expect(fuseProfiles([verdictOf('Unknown', []), verdictOf('BBRv1', [kept, skipped])]).label).toBe('BBRv1');
  });

  it('AkamaiCC-like: a level that scales with the RTT halves the confidence', () => {
    const m = syntheticModel();
    const a = classifyFlow(akamaiSeries({ seed: 1032, baseRttS: 0.1, durationS: 50, levelBytes: 4000 }), m);
    const b = classifyFlow(akamaiSeries({ seed: 1033, baseRttS: 0.25, durationS: 50, levelBytes: 10000 }), m);
    const f = fuseProfiles([a, b]);
    expect(f.label).toBe('AkamaiCC-like');
    expect(f.notes?.[0]).toMatch(/tracks the RTT/);
    expect(f.confidence).toBeCloseTo(((a.confidence + b.confidence) / 2) * 0.5, 3);
  });
});
