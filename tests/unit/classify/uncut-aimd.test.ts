/**
 * An AIMD controller (NewReno, HSTCP, Westwood, Veno, Illinois: told apart by how deep they cut) is
 * not named from flows that never cut after start-up under conditions away from the trained ones
 * (fusion.ts uncutAimdDoubt). Fixture: held-out nebby-50 flows at other bottleneck rates (session
 * 54): kernel Veno read Illinois at 0.95 and kernel Scalable Veno at 0.81 without a cut; kernel Veno
 * that cut once read Veno. The lab's own fixture holds a kernel Illinois flow through nebby-100 that
 * never cut in 30 s and is named right at the trained conditions. Since session 55 the held-out
 * flows are among the training flows of the shipped model's `.beyond` groups, so the rule is judged
 * on the model without those groups (shippedModel.ts withoutGroupsBeyond), the one the rule was set on.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { UNCUT_AIMD_FROM_DISTANCE, uncutAimdDoubt } from '../../../src/classify/fusion.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { loadDataset, toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGroupsBeyond } from './shippedModel.js';

const model = withoutGroupsBeyond(shippedModel());
const calibration = model.calibration!;
const flows = labSeriesFlows('uncut-aimd.json.gz');
const judged = (e: DatasetEntry): Verdict => classifyFlow(toSeries(e), model);
const flow = (origin: string, round: string) => {
  const f = flows.find((x) => x.origin === origin && x.region === round);
  if (!f) throw new Error(`uncut-aimd.json.gz holds no ${origin} flow of ${round}`);
  return f;
};
const cutsPer100Rtt = (v: Verdict) => (v.evidence?.classifiers?.['loss-based'] as { descriptor: { backoffsPer100Rtt: number } }).descriptor.backoffsPer100Rtt;
/** The same verdict with its conditions moved to `distance` from the trained ones. */
const at = (v: Verdict, distance: number): Verdict => ({ ...v, conditions: { ...v.conditions!, distance } });

describe('uncutAimdDoubt', () => {
  it('withholds the answers the flows without a cut gave away from the trained conditions', () => {
    for (const [origin, round, said] of [['tcp-veno', 'h-s700-90', 'Illinois'], ['tcp-scalable', 'h-bn-250k-120j3', 'Veno']] as const) {
      const v = judged(flow(origin, round));
      expect(v.label).toBe(said);
      expect(cutsPer100Rtt(v)).toBe(0);
      expect(v.conditions!.distance).toBeGreaterThanOrEqual(UNCUT_AIMD_FROM_DISTANCE);
      const single = fuseProfiles([v], { calibration });
      expect(single.label).toBe('Unknown');
      expect(single.reason).toMatch(new RegExp(`^${said} not shown: the AIMD controllers are told apart by how deep they cut`));
      // Nearer the trained conditions, growth and level are read as the model learned them; at the threshold they are not.
      expect(fuseProfiles([at(v, UNCUT_AIMD_FROM_DISTANCE - 0.01)], { calibration }).label).toBe(said);
      expect(fuseProfiles([at(v, UNCUT_AIMD_FROM_DISTANCE)], { calibration }).label).toBe('Unknown');
    }
  });

  it('keeps an answer whose flow cut after start-up, however far out', () => {
    const v = judged(flow('tcp-veno', 'h-r300-45j2'));
    expect(cutsPer100Rtt(v)).toBeGreaterThan(0);
    expect(fuseProfiles([at(v, 0.99)], { calibration }).label).toBe('Veno');
    expect(uncutAimdDoubt('Veno', [at(v, 0.99)], true)).toBeNull();
    // The same flow with its cuts taken out of the descriptor is withheld: the cut is what keeps it.
    const lb = v.evidence!.classifiers!['loss-based'] as { descriptor: Record<string, number> };
    const uncut: Verdict = { ...v, evidence: { ...v.evidence!, classifiers: { ...v.evidence!.classifiers, 'loss-based': { ...lb, descriptor: { ...lb.descriptor, backoffsPer100Rtt: 0 } } } } };
    expect(uncutAimdDoubt('Veno', [at(uncut, 0.99)], true)).toMatch(/^Veno not shown/);
  });

  it('fused: withheld only when every profile favouring the answer is uncut and far out', () => {
    const far = judged(flow('tcp-veno', 'h-s700-90'));
    const cut = judged(flow('tcp-veno', 'h-r300-45j2'));
    expect(uncutAimdDoubt('Illinois', [far, at(far, 0.7)], true)).toMatch(/the 2 profiles whose shapes favour it/);
    expect(uncutAimdDoubt('Illinois', [far, at(far, 0.2)], true)).toBeNull();
    // A profile that does not favour the answer neither triggers nor lifts the doubt.
    expect(uncutAimdDoubt('Illinois', [far, cut], true)).toMatch(/the profile whose shapes favour it/);
  });

  it('applies to the AIMD controllers only, and only to answers resting on the learned shapes', () => {
    const v = judged(flow('tcp-veno', 'h-s700-90'));
    expect(uncutAimdDoubt('Illinois', [v], true)).not.toBeNull();
    expect(uncutAimdDoubt('Illinois', [v], false)).toBeNull();
    expect(uncutAimdDoubt('CUBIC', [v], true)).toBeNull();
  });

  it('a lab nebby-100 Illinois flow without a cut keeps its answer at the trained conditions', () => {
    const file = fileURLToPath(new URL('../../fixtures/lab-series/fresh-near-quiet.json.gz', import.meta.url));
    const e = loadDataset(file).entries.find((x) => x.origin === 'tcp-illinois' && x.profile === 'nebby-100' && x.rep === 0);
    if (!e) throw new Error('fresh-near-quiet.json.gz holds no tcp-illinois nebby-100 rep 0 flow');
    const v = judged(e);
    expect(cutsPer100Rtt(v)).toBe(0);
    expect(fuseProfiles([v], { calibration }).label).toBe('Illinois');
    expect(fuseProfiles([at(v, 0.6)], { calibration }).label).toBe('Unknown');
  });
});
