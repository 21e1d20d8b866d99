/**
 * A profile whose flow lies outside the winner's trained shapes but favours it all the same does
 * not veto it when another profile holds the flow inside (fusion.ts combineLossPosteriors, session
 * 59). Fixture: kernel CUBIC at 700 kbit/s 35 ms away (held-out round AF of session 58): nebby-50
 * holds it inside CUBIC; nebby-100 finds CUBIC likeliest at 0.99, outside its trained shapes.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { combineLossPosteriors } from '../../../src/classify/fusion.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const model = shippedModel();
const calibration = model.calibration!;
const flows = labSeriesFlows('outside-favouring.json.gz');
const judged = (profile: string): Verdict => classifyFlow(toSeries(flows.find((f) => f.profile === profile)!), model);
const lossClaim = (v: Verdict) => v.evidence!.claims.find((c) => c.classifier === 'loss-based')!;

describe('a profile favouring the winner from outside its trained shapes', () => {
  const inside = judged('nebby-50');
  const outside = judged('nebby-100');

  it('is what the fixture holds: one profile inside CUBIC, the other favouring CUBIC from outside', () => {
    expect(inside.label).toBe('CUBIC');
    expect(lossClaim(inside).inDistribution).toContain('CUBIC');
    expect(outside.label).toBe('Unknown');
    expect(outside.reason).toMatch(/likeliest CUBIC .* but outside its trained shapes/);
    expect(lossClaim(outside).inDistribution).not.toContain('CUBIC');
    expect(lossClaim(outside).inDistribution!.length).toBeGreaterThan(0);
  });

  it('does not veto it when the other profile holds the flow inside', () => {
    expect(combineLossPosteriors([inside, outside])?.label).toBe('CUBIC');
    const fused = fuseProfiles([inside, outside], { calibration });
    expect(fused.label).toBe('CUBIC');
    expect(fused.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('gives no answer on its own: some profile must hold the flow inside', () => {
    expect(combineLossPosteriors([outside])?.label).toBe('Unknown');
    expect(fuseProfiles([outside], { calibration }).label).toBe('Unknown');
  });

  it('still vetoes when it made a rule-based claim, or when the inside profile does not favour the winner (pure logic)', () => {
    const claimed = structuredClone(outside);
    claimed.evidence!.claims.push({ classifier: 'bbr', scope: 'flow', label: 'BBRv1', confidence: 0.6 });
    expect(combineLossPosteriors([inside, claimed])?.label).toBe('Unknown');
    // The inside profile's shape held nearer another class: the excused profile's favour is not enough.
    const unfavoured = structuredClone(inside);
    lossClaim(unfavoured).nearer = 'Illinois';
    expect(combineLossPosteriors([unfavoured, outside])?.label).toBe('Unknown');
  });
});
