/**
 * An answer the groups of the trained conditions alone would have withheld, because another
 * class's trained flows held the flow clearly nearer (lossBased.ts nearerClass), rests on the groups
 * added beyond those conditions (lossBased.ts nearerWithout), so one profile alone does not give it
 * (fusion.ts beyondTrainedDoubt). Fixture: kernel HSTCP behind `video` at 1 Mbit/s, 200 ms away
 * (held-out round AL, session 59). The trained groups alone find Veno likeliest at 1.00 but hold it
 * nearer as Vegas; with session 60's `.beyond2` groups, Veno's added flows lifted that veto and it
 * read Veno at 1.00 from this one profile.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGate } from './shippedModel.js';

const flow = labSeriesFlows('beyond-nearer.json.gz')[0];
const lossClaim = (v: Verdict) => v.evidence!.claims.find((c) => c.classifier === 'loss-based')!;

describe('an answer the trained groups alone held nearer another class', () => {
  it('without session 60\'s added groups (as the model was): Veno likeliest, Vegas nearer, no answer', () => {
    const v = classifyFlow(toSeries(flow), withoutGate(shippedModel(), '.beyond2'));
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/likeliest Veno .*Vegas's trained flows lie clearly nearer/);
  });

  it('with them, rests on them: Veno is among the labels only they gave, and one profile does not name it', () => {
    const model = shippedModel();
    const v = classifyFlow(toSeries(flow), model);
    expect(lossClaim(v).inDistribution).toContain('Veno');
    expect(lossClaim(v).beyondTrained).toContain('Veno');
    expect(v.label).not.toBe('Veno');
    expect(fuseProfiles([v], { calibration: model.calibration! }).label).toBe('Unknown');
  });
});
