/**
 * An answer one profile named while the other named nothing is as sure as the naming profile on
 * its own (fusion.ts loneAnswerConfidence), not as unsure as profiles that disagree. The fixture
 * is a lab BBRv2 measurement (issue 17's round q10) whose nebby-100 flow named BBRv2 at 0.99
 * calibrated while its nebby-50 flow lay outside every trained class: the fused map put it at
 * 0.73 and the answer was withheld.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { loneAnswerConfidence, loneProfileDoubt } from '../../../src/classify/fusion.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/bbr2-lone-profile.json.gz', import.meta.url);
const flows = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { flows: Array<DatasetEntry & { profile: string }> }).flows;

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
  const model = shippedModel();
  const calibration = model.calibration!;
  const verdicts = flows.map((f) => ({ profile: f.profile, v: classifyFlow(toSeries(f), model) }));
  const byProfile = (name: string) => verdicts.find((x) => x.profile === name)!.v;

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
