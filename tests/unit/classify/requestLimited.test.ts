/**
 * A flow paced by the application's requests (an audio player fetching one small segment at a
 * time: a few RTTs of sending, then idle until the next request) has no stretch between two
 * back-offs to judge. Its verdict says so, Application-limited with 'request-limited', instead
 * of an unexplained Unknown; the same bursts with the gaps not marked as the sender's own
 * (stalls, as in loss recovery) stay Unknown, and a named CCA is never relabelled.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, requestLimited } from '../../../src/classify/classifyFlow.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { buildSeries, withPath } from '../../../src/classify/synthetic/index.js';
import { syntheticModel } from './shippedModel.js';

const model = syntheticModel();
const RTT = 0.2;
const PERIOD = 1.2;
const ON = 0.65;

/** Bursts of ~3 RTTs at 1.5 BDP every 1.2 s; the first `flagged` of each gap marked application-limited. */
function bursts(seed: number, flagged: number) {
  const p = withPath({ seed, baseRttS: RTT, durationS: 45 });
  const level = 1.5 * p.capacityBps * RTT;
  const phase = (t: number) => t % PERIOD;
  return buildSeries(p, (t) => (phase(t) < ON ? level * (0.8 + (0.4 * phase(t)) / ON) : 0), RTT, (t) => phase(t) >= ON && phase(t) < ON + flagged);
}

describe('request-limited flows', () => {
  it('bursts between the sender\'s own idle gaps are Application-limited: request-limited', () => {
    const v = classifyFlow(bursts(2001, 0.35), model);
    expect(v.evidence!.appLimitedFraction).toBeGreaterThan(0.15);
    expect(v.evidence!.appLimitedFraction).toBeLessThan(0.5);
    expect(v.kind).toBe('application-limited');
    expect(v.reason).toMatch(/^request-limited: \d+ bursts between idle periods/);
  });

  it('the same bursts with unmarked gaps (stalls) are not called request-limited', () => {
    const v = classifyFlow(bursts(2002, 0), model);
    expect(v.kind).not.toBe('cca');
    expect(v.reason).not.toMatch(/request-limited/);
  });

  it('the request rhythm is not read as a rate-based signature (Copa oscillation, BBR pulses)', () => {
    for (const flagged of [0.35, 0]) {
      const v = classifyFlow(bursts(2004, flagged), model);
      const rules = v.evidence!.claims.filter((c) => c.classifier !== 'loss-based').map((c) => c.label);
      expect(rules, `gaps flagged ${flagged} s`).toEqual([]);
    }
  });

  it('relabels a likeness the learned shapes alone saw in the bursts, never a rule-based claim nor conflicting claims', () => {
    // Features of request-limited bursts: only the decision and the claims stop the relabel.
    const f = extractFlowFeatures(bursts(2003, 0.35), model.pipeline);
    const none = { label: 'Unknown', kind: 'unknown' as const, confidence: 0, reason: 'test' };
    expect(requestLimited(f, none, []).kind).toBe('application-limited');
    const named = { label: 'NewReno', kind: 'cca' as const, confidence: 0.9, reason: 'test' };
    // Issue 16: with classes trained across the grid, the lab audio stream's bursts fell inside a
    // Westwood class; bursts with no stretch long enough to judge say nothing of the shape.
    expect(requestLimited(f, named, [{ classifier: 'loss-based', scope: 'flow', label: 'NewReno', confidence: 0.9 }]).kind).toBe('application-limited');
    const bbr = { label: 'BBRv1', kind: 'cca' as const, confidence: 0.8, reason: 'test' };
    expect(requestLimited(f, bbr, [{ classifier: 'bbr', scope: 'flow', label: 'BBRv1', confidence: 0.8 }])).toBe(bbr);
    const conflicting = [{ classifier: 'loss-based', scope: 'flow' as const, label: 'CUBIC', confidence: 0.9 }, { classifier: 'bbr', scope: 'flow' as const, label: 'BBRv1', confidence: 0.8 }];
    expect(requestLimited(f, none, conflicting)).toBe(none);
  });

});
