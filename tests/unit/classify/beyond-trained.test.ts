/**
 * An answer that rests on the groups added beyond the trained conditions (lossBased.ts
 * groupsNeedOutside; the shipped model's `.beyond` groups, trained on held-out rounds at other
 * bottleneck rates) needs two profiles whose shapes favour it (fusion.ts beyondTrainedDoubt),
 * unless it names CUBIC (ONE_PROFILE_BEYOND).
 * Fixture: held-out round W of session 55, 480 kbit/s behind both Nebby profiles 140 ms away, which
 * the groups never saw: kernel CUBIC, named by them from both profiles, and kernel NewReno, whose
 * nebby-50 flow they alone named Westwood at 0.98; and from round X, kernel CUBIC through `video` at
 * 2.5 Mbit/s, which the other groups alone named.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { beyondTrainedDoubt } from '../../../src/classify/fusion.js';
import { checkEnvelope } from '../../../src/classify/envelope.js';
import type { LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const model = shippedModel();
const calibration = model.calibration!;
const flows = labSeriesFlows('beyond-trained.json.gz');
const judged = (origin: string, profile: string): Verdict => {
  const f = flows.find((x) => x.origin === origin && x.profile === profile);
  if (!f) throw new Error(`beyond-trained.json.gz holds no ${origin} flow through ${profile}`);
  return classifyFlow(toSeries(f), model);
};
const lossClaim = (v: Verdict) => v.evidence!.claims.find((c) => c.classifier === 'loss-based')!;

describe('answers resting on the groups added beyond the trained conditions', () => {
  it('the shipped model carries such groups, gated on the conditions it was first trained under', () => {
    const gates = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside ?? {};
    expect(Object.keys(gates)).toContain('.beyond');
    expect(gates['.beyond'].beyond).toBe(0.5);
    // ... and open to a flow no other group's shapes hold (session 56).
    expect(gates['.beyond'].unheld).toBe(true);
  });

  it('are given when two profiles favour them', () => {
    const both = [judged('tcp-cubic', 'nebby-50'), judged('tcp-cubic', 'nebby-100')];
    const gate = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside!['.beyond'];
    for (const v of both) {
      // Beyond the gate: the flow lies more than 0.5 from the envelope the model had before the groups.
      expect(checkEnvelope(gate.envelope, v.conditions!.measured!).distance).toBeGreaterThan(0.5);
      expect(lossClaim(v).beyondTrained).toContain('CUBIC');
    }
    const fused = fuseProfiles(both, { calibration });
    expect(fused.label).toBe('CUBIC');
    expect(fused.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('are withheld from one profile alone, with the reason', () => {
    const v = judged('tcp-reno', 'nebby-50');
    expect(v.label).toBe('Westwood');
    const single = fuseProfiles([v], { calibration });
    expect(single.label).toBe('Unknown');
    expect(single.reason).toMatch(/^Westwood named by groups trained beyond/);
  });

  it('but CUBIC, whose growth is a curve in time since its last cut, is named from one profile (session 58)', () => {
    for (const profile of ['nebby-50', 'nebby-100']) {
      const v = judged('tcp-cubic', profile);
      expect(v.label, profile).toBe('CUBIC');
      expect(lossClaim(v).beyondTrained, profile).toContain('CUBIC');
      expect(beyondTrainedDoubt('CUBIC', [v], true)).toBeNull();
      const single = fuseProfiles([v], { calibration });
      expect(single.label, profile).toBe('CUBIC');
      expect(single.confidence, profile).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('a profile whose answer the other groups alone gave at 0.9 or more needs no second one', () => {
    // Kernel CUBIC through `video` at 2.5 Mbit/s (round X), beyond the gate: the added groups judged
    // it (other labels rest on them), but CUBIC, which the other groups alone named, does not.
    const v = judged('tcp-cubic', 'video');
    const gate = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside!['.beyond'];
    expect(checkEnvelope(gate.envelope, v.conditions!.measured!).distance).toBeGreaterThan(0.5);
    expect(v.label).toBe('CUBIC');
    expect(lossClaim(v).beyondTrained?.length).toBeGreaterThan(0);
    expect(lossClaim(v).beyondTrained).not.toContain('CUBIC');
    const single = fuseProfiles([v], { calibration });
    expect(single.label).toBe('CUBIC');
    expect(beyondTrainedDoubt('CUBIC', [v], true)).toBeNull();
    // Where the answer rests on the added groups, a rule-based claim backing it (lossOnly false) is evidence of its own.
    expect(beyondTrainedDoubt('Westwood', [judged('tcp-reno', 'nebby-50')], true)).toMatch(/needs two profiles/);
    expect(beyondTrainedDoubt('Westwood', [judged('tcp-reno', 'nebby-50')], false)).toBeNull();
  });
});
