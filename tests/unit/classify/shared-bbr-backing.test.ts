/**
 * A fused BBRv1 needs BBRv1's signature in one profile's trace, not in every one (fusion.ts
 * withSharedBbrV1Backing). The fixture is the video flow of a `ccbrowse check` run against the lab's
 * kernel BBR whose nebby-50 trace showed two ProbeRTT drains not ~10 s apart (its own verdict:
 * "BBR-like, version not shown") while nebby-100's showed three ~11 s apart; fused, the answer
 * was BBRv1 at 0.77, under the minimum answer, and the check failed (1 run in 6).
 * Since drains to <= 4.5 packets count too, nebby-50's own drains back it (29.5 -> 3.0 and
 * 28.2 -> 2.9 packets, 10.2-10.3% of the peak, join the two the old rule saw: four, ~11 s apart);
 * the fusion rule is checked with nebby-50 judged by the session-30 drain rule (share <= 10% of
 * a >= 20-packet peak), which reproduces the trace that lacked the signature.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const flows = labSeriesFlows('bbr-video-one-backed.json.gz');

describe('BBRv1\'s signature shared across profiles', () => {
  const model = shippedModel();
  const calibration = model.calibration;
  const session30Rule = { ...model, classifiers: { ...model.classifiers, bbr: { ...(model.classifiers.bbr as object), drainMaxTroughPackets: 0, drainMinPeakPackets: 20 } } };
  const verdicts = flows.map((f) => ({ profile: f.profile, v: classifyFlow(toSeries(f), f.profile === 'nebby-50' ? session30Rule : model) }));
  const byProfile = (p: string) => verdicts.find((x) => x.profile === p)!.v;

  it('today\'s drain rule backs both profiles', () => {
    for (const f of flows) expect(classifyFlow(toSeries(f), model).label, f.profile).toBe('BBRv1');
  });

  it('the fixture under the session-30 drain rule: one profile backed, the other only by its shape', () => {
    expect(byProfile('nebby-100').label).toBe('BBRv1');
    expect(byProfile('nebby-50').label).toBe('Unknown');
    expect(byProfile('nebby-50').reason).toMatch(/BBR-like, version not shown/);
  });

  it('fused, the shape-only profile agrees with the backed one: a confident BBRv1', () => {
    const f = fuseProfiles([byProfile('nebby-50'), byProfile('nebby-100')], { calibration });
    expect(f.label).toBe('BBRv1');
    expect(f.confidence).toBeGreaterThanOrEqual(calibration!.minAnswer);
    expect(f.profiles?.find((p) => /another profile's trace/.test(p.reason))).toBeDefined();
  });

  it('alone, the shape-only profile still names nothing: the signature must be seen once', () => {
    expect(fuseProfiles([byProfile('nebby-50')], { calibration }).label).toBe('Unknown');
    expect(fuseProfiles([byProfile('nebby-50'), byProfile('nebby-50')], { calibration }).label).toBe('Unknown');
  });
});
