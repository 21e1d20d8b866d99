/**
 * BBRv1's ProbeRTT seen twice at its spacing outweighs a learned shape that named a loss-based
 * controller in the same flow (classifyFlow.ts probeRttOverShape), and such a profile gives the
 * fusion no learned-shape evidence (fusion.ts shapeSetAside). Fixture: kernel BBR from two held-out
 * rounds whose shapes read Veno (`video` at 1.2 Mbit/s 85 ms away, round AF) and H-TCP (240 kbit/s
 * 55 ms away behind nebby-50, round AB) while their traces paused ~11 s apart; both were Unknown
 * ("conflicting claims") before session 58.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, decideFromClaims, fuseProfiles } from '../../../src/classify/index.js';
import { probeRttOverShape } from '../../../src/classify/classifyFlow.js';
import { shapeSetAside } from '../../../src/classify/fusion.js';
import type { Claim } from '../../../src/classify/types.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGate } from './shippedModel.js';

const model = shippedModel();

describe('BBRv1 ProbeRTT seen twice over a loss-based learned shape', () => {
  const flows = labSeriesFlows('probertt-over-shape.json.gz');

  it('names kernel BBR whose shape said Veno or H-TCP, and says what it set aside', () => {
    expect(flows.map((f) => f.profile)).toEqual(['video', 'nebby-50', 'nebby-100']);
    // Read on the model without session 60's `.beyond2` groups: with them the nebby-50 flow's shape
    // names nothing (its ProbeRTT alone names it BBRv1, below).
    const before = withoutGate(model, '.beyond2');
    for (const [f, shape] of [[flows[0], 'Veno'], [flows[1], 'HTCP']] as const) {
      const v = classifyFlow(toSeries(f), before);
      expect(fuseProfiles([classifyFlow(toSeries(f), model)], { calibration: model.calibration }).label, `${f.profile}, shipped model`).toBe('BBRv1');
      const loss = v.evidence!.claims.find((c) => c.classifier === 'loss-based' && c.scope === 'flow');
      expect(loss?.label, f.profile).toBe(shape);
      expect((v.evidence!.classifiers!.bbr as { v1Repeated?: boolean }).v1Repeated, f.profile).toBe(true);
      expect(v.label, f.profile).toBe('BBRv1');
      expect(v.reason).toMatch(new RegExp(`the learned shape's ${shape} set aside`));
      expect(shapeSetAside(v)).toBe(true);
      // As one profile's verdict, calibrated: the set-aside shape does not contest it in the fusion.
      const single = fuseProfiles([v], { calibration: model.calibration });
      expect(single.label, f.profile).toBe('BBRv1');
      expect(single.confidence, f.profile).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('a measurement whose other profile named BBRv1 on its own is BBRv1: the set-aside shape does not dissent', () => {
    const [v50, v100] = [flows[1], flows[2]].map((f) => classifyFlow(toSeries(f), model));
    expect(v100.label).toBe('BBRv1');
    expect(shapeSetAside(v100)).toBe(false);
    const fused = fuseProfiles([v50, v100], { calibration: model.calibration });
    expect(fused.label).toBe('BBRv1');
    expect(fused.confidence).toBeGreaterThanOrEqual(0.9);
  });
});

describe('shapeSetAside', () => {
  const verdict = (lossLabel: string, v1Repeated: boolean) => ({
    schemaVersion: 1, label: 'BBRv1', kind: 'cca', confidence: 0.8, reason: '', shapeCluster: null,
    evidence: { claims: [{ classifier: 'loss-based', label: lossLabel, scope: 'flow', confidence: 0.9, posterior: { [lossLabel]: 0.9 } }], classifiers: { bbr: { v1Repeated } } },
  }) as unknown as Verdict;

  it('is a BBRv1 answer over a loss-based shape with ProbeRTT seen twice, and nothing else', () => {
    expect(shapeSetAside(verdict('Veno', true))).toBe(true);
    expect(shapeSetAside(verdict('BBRv1', true))).toBe(false);
    expect(shapeSetAside(verdict('Unknown', true))).toBe(false);
    expect(shapeSetAside(verdict('Vegas', true))).toBe(false);
    expect(shapeSetAside(verdict('Veno', false))).toBe(false);
  });
});

describe('probeRttOverShape (claims alone)', () => {
  const bbr: Claim = { classifier: 'bbr', label: 'BBRv1', scope: 'flow', confidence: 0.8 };
  const veno: Claim = { classifier: 'loss-based', label: 'Veno', scope: 'flow', confidence: 0.99, posterior: { Veno: 0.99, BBRv1: 0.01 } };
  const conflict = decideFromClaims([bbr, veno]);

  it('sets a loss-based shape aside only when ProbeRTT was seen twice', () => {
    expect(conflict.label).toBe('Unknown');
    expect(probeRttOverShape(conflict, [bbr, veno], { v1Repeated: true }).label).toBe('BBRv1');
    expect(probeRttOverShape(conflict, [bbr, veno], { v1Repeated: false })).toEqual(conflict);
    expect(probeRttOverShape(conflict, [bbr, veno], undefined)).toEqual(conflict);
  });

  it('leaves a delay-based shape standing: Vegas and Copa can drain on their own', () => {
    for (const label of ['Vegas', 'Copa', 'AkamaiCC-like']) {
      const shape: Claim = { ...veno, label, posterior: { [label]: 0.99 } };
      const d = decideFromClaims([bbr, shape]);
      expect(probeRttOverShape(d, [bbr, shape], { v1Repeated: true }), label).toEqual(d);
    }
  });

  it('leaves a conflict with another rule standing, and an answer that was no conflict alone', () => {
    const copa: Claim = { classifier: 'copa', label: 'Copa', scope: 'flow', confidence: 0.8 };
    const three = decideFromClaims([bbr, veno, copa]);
    expect(probeRttOverShape(three, [bbr, veno, copa], { v1Repeated: true })).toEqual(three);
    const alone = decideFromClaims([veno]);
    expect(probeRttOverShape(alone, [veno], { v1Repeated: true })).toEqual(alone);
  });
});
