/**
 * The bbr rule's BBRv2 signature, a cruise and ProbeRTT every ~5 s, is BBRv3's too (both enter
 * ProbeRTT every 5 s): where the model knows BBRv3, a BBRv2 answer resting on that rhythm alone is
 * Unknown (classifyFlow.ts sharedV2Rhythm; fusion.ts likewise). Fixture: lab BBRv3 behind nebby-100
 * in a 0.6-BDP buffer 90 ms away (probebw-drain.json.gz, hd-buf06-90j1), the rule's only BBRv2 over
 * every stored set; with session 60's added groups its shape no longer said BBRv1, and the rule's
 * BBRv2 stood at 0.95 fused.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { sharedV2Rhythm } from '../../../src/classify/classifyFlow.js';
import { v2FromRhythmAlone } from '../../../src/classify/fusion.js';
import type { Claim } from '../../../src/classify/types.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const rhythm: Claim = { classifier: 'bbr', scope: 'flow', label: 'BBRv2', confidence: 0.85, note: 'cruise without probing and ~5 s ProbeRTT' };
// A loss-based claim: its posterior lists the labels the model has for the flow's transport.
const shape = (label: string, labels = ['BBRv1', 'BBRv2', 'BBRv3', 'CUBIC']): Claim => ({ classifier: 'loss-based', scope: 'flow', label, confidence: label === 'Unknown' ? 0 : 0.98, posterior: Object.fromEntries(labels.map((l) => [l, l === label ? 0.98 : 0.02 / labels.length])) });
const decided = { label: 'BBRv2', kind: 'cca' as const, confidence: 0.85, reason: 'bbr: cruise without probing and ~5 s ProbeRTT' };

describe('a BBRv2 answer from the ~5 s ProbeRTT rhythm alone', () => {
  it('is Unknown where the model knows BBRv3 for the flow\'s transport, and says why', () => {
    const d = sharedV2Rhythm(decided, [rhythm, shape('Unknown')]);
    expect(d.label).toBe('Unknown');
    expect(d.reason).toMatch(/^BBR-like, version not shown: .*which BBRv2 and BBRv3 share/);
    expect(v2FromRhythmAlone([rhythm, shape('Unknown')])).toBe(true);
  });

  it('stands where the learned shapes named BBRv2 too, or where the model has no BBRv3 for that transport (Nebby\'s two versions; QUIC)', () => {
    expect(sharedV2Rhythm(decided, [rhythm, shape('BBRv2')]).label).toBe('BBRv2');
    expect(sharedV2Rhythm(decided, [rhythm, shape('Unknown', ['NewReno', 'CUBIC', 'BBRv1'])]).label).toBe('BBRv2');
    expect(sharedV2Rhythm(decided, [rhythm]).label).toBe('BBRv2');
  });

  it('leaves every other answer alone', () => {
    const cubic = { ...decided, label: 'CUBIC' };
    expect(sharedV2Rhythm(cubic, [shape('CUBIC')])).toBe(cubic);
  });

  it('lab BBRv3 with that rhythm is not named BBRv2, one profile or fused', () => {
    const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/probebw-drain.json.gz', import.meta.url)));
    const bbr3 = entries.find((e) => e.origin === 'tcp-bbr3' && e.region === 'hd-buf06-90j1')!;
    const model = shippedModel();
    const v = classifyFlow(toSeries(bbr3), model);
    expect(v.evidence!.claims.some((c) => c.classifier === 'bbr' && c.label === 'BBRv2')).toBe(true);
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/which BBRv2 and BBRv3 share/);
    const fused = fuseProfiles([v], { calibration: model.calibration! });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/which BBRv2 and BBRv3 share/);
  });
});
