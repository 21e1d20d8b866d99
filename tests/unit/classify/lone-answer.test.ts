/**
 * An answer one profile named while the other named nothing is as sure as the naming profile on
 * its own (fusion.ts loneAnswerConfidence), not as unsure as profiles that disagree. The fixture
 * is a lab BBRv2 measurement (issue 17's round q10) whose nebby-100 flow named BBRv2 at 0.99
 * calibrated while its nebby-50 flow lay outside every trained class: the fused map put it at
 * 0.73 and the answer was withheld. Since session 46 the shipped model's far BBRv3 groups reach
 * its nebby-50 flow (raw 0.88, calibrated 0.68), so the measurement is Unknown there; the rule is
 * checked on the model without them.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { loneAnswerConfidence, loneProfileDoubt } from '../../../src/classify/fusion.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows, type ProfileFlow } from './labSeriesFlows.js';
import { shippedModel, withoutGroups } from './shippedModel.js';
import type { Model } from '../../../src/classify/model.js';
import { verdictSchema, type Verdict } from '../../../src/classify/verdict.js';

/** Each profile's flow of a fixture, classified by `model`. */
const judgedByProfile = (flows: ProfileFlow[], model: Model) => {
  const verdicts = flows.map((f) => ({ profile: f.profile, v: classifyFlow(toSeries(f), model) }));
  return (name: string) => verdicts.find((x) => x.profile === name)!.v;
};

const flows = labSeriesFlows('bbr2-lone-profile.json.gz');

describe('loneAnswerConfidence', () => {
  const p = (label: string, confidence: number) => ({ label, confidence });

  it('is the surest naming profile\'s own confidence when every other profile named nothing', () => {
    expect(loneAnswerConfidence('BBRv2', [p('Unknown', 0), p('BBRv2', 0.97)], true)).toBe(0.97);
    expect(loneAnswerConfidence('CUBIC', [p('CUBIC', 0.85), p('Application-limited', 0), p('CUBIC', 0.9)], true)).toBe(0.9);
  });

  it('is null when a profile named another CCA, when every profile agrees, or for a rule\'s answer', () => {
    expect(loneAnswerConfidence('BBRv2', [p('BBRv3', 0.9), p('BBRv2', 0.97)], true)).toBeNull();
    expect(loneAnswerConfidence('BBRv2', [p('BBRv3', 0.9), p('Unknown', 0), p('BBRv2', 0.97)], true)).toBeNull();
    expect(loneAnswerConfidence('BBRv2', [p('BBRv2', 0.9), p('BBRv2', 0.97)], true)).toBeNull();
    expect(loneAnswerConfidence('BBRv2', [p('Unknown', 0), p('BBRv2', 0.97)], false)).toBeNull();
    expect(loneAnswerConfidence('BBRv2', [p('BBRv2', 0.97)], true)).toBeNull();
  });
});

describe('a lone profile\'s answer, fused', () => {
  // The model the rule was set on: without issue 17's far groups (session 46), whose BBRv3 shapes
  // behind nebby-50 reach this flow (checked below).
  const model = withoutGroups(shippedModel(), /\.g17-.+$/);
  const calibration = model.calibration!;
  const byProfile = judgedByProfile(flows, model);

  it('with the far groups the nebby-50 flow leans BBRv3, too unsure to be named: the measurement is Unknown, never BBRv3', () => {
    const shipped = shippedModel();
    const judged = judgedByProfile(flows, shipped);
    const single = fuseProfiles([judged('nebby-50')], { calibration: shipped.calibration! });
    expect(single.label).toBe('Unknown');
    expect(single.withheld?.label).toBe('BBRv3');
    expect(fuseProfiles([judged('nebby-50'), judged('nebby-100')], { calibration: shipped.calibration! }).label).toBe('Unknown');
  });

  it('the fixture: nebby-100 names BBRv2, nebby-50 names nothing', () => {
    expect(byProfile('nebby-100').label).toBe('BBRv2');
    expect(byProfile('nebby-50').label).toBe('Unknown');
  });

  it('stands at the naming profile\'s own calibrated confidence', () => {
    const single = fuseProfiles([byProfile('nebby-100')], { calibration });
    expect(single.label).toBe('BBRv2');
    const fused = fuseProfiles([byProfile('nebby-50'), byProfile('nebby-100')], { calibration });
    expect(fused.label).toBe('BBRv2');
    expect(fused.confidence).toBeGreaterThanOrEqual(calibration.minAnswer);
    expect(fused.confidence).toBeCloseTo(single.confidence, 3);
  });

  it('a lone answer under 0.8 on its own is still withheld (loneProfileDoubt)', () => {
    expect(loneProfileDoubt('BBRv2', [{ label: 'Unknown', confidence: 0 }, { label: 'BBRv2', confidence: 0.7 }], true)).toMatch(/only 1 of 2 profiles named BBRv2/);
    const unsure = { ...byProfile('nebby-100'), confidence: 0.6 };
    const fused = fuseProfiles([byProfile('nebby-50'), unsure], { calibration });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/only 1 of 2 profiles named BBRv2/);
  });
});

describe('a lone answer another profile\'s shape contradicts', () => {
  const far = labSeriesFlows('far-veno-110j5.json.gz');
  const model = shippedModel();
  const byProfile = judgedByProfile(far, model);

  it('the fixture: lab Veno 110 ms away, named Veno by both profiles since the 100 ms groups (session 44)', () => {
    expect(byProfile('nebby-50').label).toBe('Veno');
    expect(byProfile('nebby-100').label).toBe('Veno');
  });

  it('a flow withheld for its conditions keeps what its shape alone said, through the verdict schema', () => {
    // The shipped model's envelope without its far flows (visible share of the round trip < 0.9):
    // the nebby-50 flow (46% visible) is outside it, its shape still Veno's.
    const envelope = { ...model.envelope!, tcp: model.envelope!.tcp.filter((v) => (v[3] ?? 1) >= 0.9) };
    const near = classifyFlow(toSeries(far.find((f) => f.profile === 'nebby-50')!), { ...model, envelope });
    expect(near.label).toBe('Unknown');
    expect(near.conditions?.inside).toBe(false);
    expect(near.conditions?.shapeSaid).toEqual({ label: 'Veno', confidence: expect.any(Number) });
    expect(near.conditions!.shapeSaid!.confidence).toBeGreaterThanOrEqual(0.9);
    expect(verdictSchema.parse(JSON.parse(JSON.stringify(near))).conditions?.shapeSaid?.label).toBe('Veno');
  });

  // As the session-43 model read this pair: nebby-100 Illinois at 0.99, nebby-50 withheld for its
  // conditions (its BDP, 16 segments, with its visible share of the round trip, 46%: no training
  // flow then paired the two) while its shape said Veno.
  const session43 = (): Verdict[] => {
    const withheld: Verdict = { ...byProfile('nebby-50'), label: 'Unknown', kind: 'unknown', confidence: 0, shapeCluster: null,
      reason: 'conditions unlike any the model was trained under: BDP 16 segments (nearest trained conditions: 33 segments)',
      conditions: { measured: null, inside: false, distance: 1.05, outsideReason: 'BDP 16 segments', disturbed: null, shapeSaid: { label: 'Veno', confidence: 1 } } };
    const named = byProfile('nebby-100');
    const illinois: Verdict = { ...named, label: 'Illinois', confidence: 0.99,
      evidence: { ...named.evidence!, claims: named.evidence!.claims.map((c) => (c.classifier === 'loss-based' ? { ...c, label: 'Illinois', posterior: { Illinois: 0.99, Veno: 0.01 } } : c)) } };
    return [withheld, illinois];
  };

  it('is withheld, naming what the other profile\'s shape said', () => {
    const [withheld, illinois] = session43();
    expect(fuseProfiles([illinois], { calibration: model.calibration }).label).toBe('Illinois');
    const fused = fuseProfiles([withheld, illinois], { calibration: model.calibration });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/a profile withheld for its conditions looked like Veno/);
    // Without what its shape said, the silent profile names nothing and the lone answer stands.
    const silent = { ...withheld, conditions: { ...withheld.conditions!, shapeSaid: undefined } };
    expect(fuseProfiles([silent, illinois], { calibration: model.calibration }).label).toBe('Illinois');
  });

  it('stands when the withheld shape agreed, or was unsure', () => {
    const p = (label: string, confidence: number, shapeSaid?: { label: string; confidence: number }) => ({ label, confidence, ...(shapeSaid ? { shapeSaid } : {}) });
    expect(loneProfileDoubt('Illinois', [p('Unknown', 0, { label: 'Illinois', confidence: 1 }), p('Illinois', 0.99)], true)).toBeNull();
    // The bar is on the raw posterior of a shape outside the trained conditions (SHAPE_SAID_MIN_RAW).
    expect(loneProfileDoubt('Illinois', [p('Unknown', 0, { label: 'Veno', confidence: 0.89 }), p('Illinois', 0.99)], true)).toBeNull();
    expect(loneProfileDoubt('Illinois', [p('Unknown', 0, { label: 'Veno', confidence: 0.9 }), p('Illinois', 0.99)], true)).toMatch(/a profile withheld for its conditions looked like Veno \(0\.90\)/);
    expect(loneProfileDoubt('Illinois', [p('Unknown', 0, { label: 'Veno', confidence: 0.95 }), p('Unknown', 0, { label: 'CUBIC', confidence: 1 }), p('Illinois', 0.99)], true))
      .toMatch(/profiles withheld for their conditions looked like Veno \(0\.95\), CUBIC \(1\.00\)/);
    // A rule's answer (BBR's drains) is not a lone learned shape.
    expect(loneProfileDoubt('BBRv1', [p('Unknown', 0, { label: 'CUBIC', confidence: 1 }), p('BBRv1', 0.9)], false)).toBeNull();
  });
});
