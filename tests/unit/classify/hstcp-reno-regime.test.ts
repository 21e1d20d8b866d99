/**
 * HSTCP is NewReno below 38 packets (classify/hstcp.ts): a flow whose back-offs halve the window
 * must not be named HSTCP. The fixture is one measurement each of lab NewReno and lab HSTCP from a
 * fresh quiet round (s29 r1, region near, both Nebby profiles), where the shipped model read
 * NewReno under nebby-100 HSTCP at 0.97 (calibrated 0.91) before the rule.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { hstcpNotShown } from '../../../src/classify/hstcp.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/reno-regime-r1.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;

describe('HSTCP in NewReno\'s regime', () => {
  const model = shippedModel();
  const judged = entries.map((e) => ({ e, v: classifyFlow(toSeries(e), model) }));
  const of = (label: string) => judged.filter((j) => j.e.label === label).map((j) => j.v);

  it('needs a back-off shallower than halving in some profile', () => {
    expect(hstcpNotShown([0.49, 0.47])).toMatch(/NewReno-like.*0\.49, 0\.47/);
    expect(hstcpNotShown([0.49, 0.56])).toBeNull();
    expect(hstcpNotShown([null])).toBeNull();
  });

  it('never names lab NewReno HSTCP, one profile or both fused', () => {
    const reno = of('NewReno');
    expect(reno).toHaveLength(2);
    for (const v of reno) {
      expect(v.label).not.toBe('HSTCP');
      expect(fuseProfiles([v], { calibration: model.calibration }).label).not.toBe('HSTCP');
    }
    // nebby-100's shape leans HSTCP (0.94); it is withheld, by this rule or (since session 33, first)
    // because another class's trained flows lie clearly nearer (lossBased nearerClassFactor).
    expect(reno.some((v) => /HSTCP not shown|HSTCP \(0\.\d\d\) but [\w-]+'s trained flows lie clearly nearer/.test(v.reason))).toBe(true);
    // Fused, the product of the profiles' posteriors leaned HSTCP (0.97 under nebby-100 beat
    // nebby-50's NewReno 0.91) and the rule withheld it; session 32's groups brought the product
    // to HSTCP at 0.69, under the 0.7 a combined answer needs; since session 33 the profile that
    // leans HSTCP does not favour it. Either way not HSTCP.
    const fused = fuseProfiles(reno, { calibration: model.calibration });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/combined loss-based answer withheld: HSTCP (only at 0\.\d\d|likeliest in a profile, but [\w-]+'s trained flows lie clearly nearer)/);
  });

  it('still names lab HSTCP, whose back-offs are shallower', () => {
    const hs = of('HSTCP');
    expect(hs).toHaveLength(2);
    for (const v of hs) expect(fuseProfiles([v], { calibration: model.calibration }).label).toBe('HSTCP');
    expect(fuseProfiles(hs, { calibration: model.calibration }).label).toBe('HSTCP');
  });
});
