/**
 * Two reasons a fused answer is withheld although a profile named it (fusion.ts).
 *
 * A BBR version (v2, v3) is told from the learned shapes alone, so it is named only when every
 * profile's flow lies inside the conditions the model was trained under (fusion.ts versionDoubt):
 * issue 17's busy-host round at 60 ms had a BBRv3 named BBRv2 at 0.94 by nebby-100 while its
 * nebby-50 flow lay outside the trained conditions.
 *
 * A controller told by its back-offs (BIC, CUBIC, ...) is not named when the only profiles whose
 * shapes favour it saw no back-off after start-up and another profile does not favour it
 * (noBackoffDoubt): on a quiet host the open-set TCP-NV was BIC at 0.80-0.90 that way, 3 of 10.
 */
import { describe, expect, it } from 'vitest';
import { noBackoffDoubt, versionDoubt, versionHiddenDoubt } from '../../../src/classify/fusion.js';
import type { FlowEvidence, Verdict } from '../../../src/classify/verdict.js';
import { testVerdict } from './testVerdict.js';

const profile = (label: string, inside: boolean, disturbed: string | null = null): Verdict =>
  testVerdict(label, 0.94, { conditions: { inside, disturbed } as unknown as Verdict['conditions'] });

describe('versionDoubt', () => {
  it('withholds a BBR version when another profile lies outside the trained conditions', () => {
    expect(versionDoubt('BBRv2', [profile('Unknown', false), profile('BBRv2', true)], true)).toMatch(/version not shown: BBRv2 named, but 1 of 2 profiles' flows lie outside/);
    expect(versionDoubt('BBRv3', [profile('BBRv3', true), profile('Unknown', true, 'host stalled 80 ms')], true)).toMatch(/version not shown/);
  });

  it('lets a rule\'s own claim of the version stand (the bbr rule reads BBRv2\'s cruise and ~5 s ProbeRTT)', () => {
    expect(versionDoubt('BBRv2', [profile('Unknown', false), profile('BBRv2', true)], false)).toBeNull();
  });

  it('lets it stand when every profile was judged inside, even if one named nothing', () => {
    expect(versionDoubt('BBRv3', [profile('Unknown', true), profile('BBRv3', true)], true)).toBeNull();
    expect(versionDoubt('BBRv2', [profile('BBRv2', true)], true)).toBeNull();
  });

  it('leaves every other label to the other rules', () => {
    expect(versionDoubt('CUBIC', [profile('Unknown', false), profile('CUBIC', true)], true)).toBeNull();
    expect(versionDoubt('BBRv1', [profile('Unknown', false), profile('BBRv1', true)], true)).toBeNull();
  });
});

/** A judged profile's verdict whose capture saw `share` of the round trip (null: not measured). */
const seeing = (label: string, share: number | null): Verdict =>
  testVerdict(label, 0.99, { conditions: { inside: true, disturbed: null, measured: { visibleShare: share } } as unknown as Verdict['conditions'] });

describe('versionHiddenDoubt', () => {
  it('withholds a BBR version named from shapes alone by flows that saw under 55% of the round trip', () => {
    expect(versionHiddenDoubt('BBRv3', [seeing('BBRv3', 0.46)], true)).toMatch(/version not shown: BBRv3 named from the learned shapes alone by a flow that saw 46% of the round trip/);
    // The other profile named nothing: only the naming profiles' shares count.
    expect(versionHiddenDoubt('BBRv2', [seeing('BBRv2', 0.38), seeing('Unknown', 0.9)], true)).toMatch(/saw 38%/);
  });

  it('lets it stand when a naming profile saw enough, when a rule named it, or when the share is unmeasured', () => {
    expect(versionHiddenDoubt('BBRv2', [seeing('BBRv2', 0.46), seeing('BBRv2', 0.63)], true)).toBeNull();
    expect(versionHiddenDoubt('BBRv3', [seeing('BBRv3', 0.46)], false)).toBeNull();
    expect(versionHiddenDoubt('BBRv3', [seeing('BBRv3', null)], true)).toBeNull();
  });

  it('counts profiles whose shapes favour the version though their own verdict stayed Unknown, and ignores unjudged ones', () => {
    const favouring = (share: number): Verdict => ({ ...seeing('Unknown', share),
      evidence: { claims: [{ classifier: 'loss-based', scope: 'flow', label: 'BBRv3', confidence: 0.6, posterior: { BBRv3: 0.6, BBRv2: 0.4 }, inDistribution: ['BBRv3'] }], classifiers: {} } as unknown as FlowEvidence });
    expect(versionHiddenDoubt('BBRv3', [favouring(0.4), favouring(0.5)], true)).toMatch(/by flows that saw at most 50% of the round trip/);
    expect(versionHiddenDoubt('BBRv3', [favouring(0.4), favouring(0.7)], true)).toBeNull();
    const outside: Verdict = { ...seeing('BBRv3', 0.9), conditions: { inside: false, disturbed: null, measured: { visibleShare: 0.9 } } as unknown as Verdict['conditions'] };
    expect(versionHiddenDoubt('BBRv3', [seeing('BBRv3', 0.4), outside], true)).toMatch(/a flow that saw 40%/);
  });

  it('leaves every other label alone', () => {
    expect(versionHiddenDoubt('BBRv1', [seeing('BBRv1', 0.3)], true)).toBeNull();
    expect(versionHiddenDoubt('CUBIC', [seeing('CUBIC', 0.3)], true)).toBeNull();
  });
});

/** A profile's verdict whose loss-based claim favours `likeliest`, its flow with `backoffs` per 100 RTTs after start-up. */
const shaped = (label: string, likeliest: string, backoffs: number): Verdict => ({
  ...profile(label, true),
  evidence: {
    claims: [{ classifier: 'loss-based', scope: 'flow', label, confidence: 1, posterior: { [likeliest]: 0.9, Other: 0.1 }, inDistribution: [likeliest] }],
    classifiers: { 'loss-based': { descriptor: { backoffsPer100Rtt: backoffs } } },
  } as unknown as FlowEvidence,
});

describe('noBackoffDoubt', () => {
  it('withholds a back-off-defined CCA favoured only by a profile that never backed off', () => {
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), shaped('Unknown', 'Veno', 0)], true)).toMatch(/BIC is told by its back-offs, and the only profile whose shapes favour it \(1 of 2\) saw none/);
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), profile('Unknown', true)], true)).toMatch(/told by its back-offs/);
  });

  it('lets it stand when that profile backed off, when every profile favours it, or when a rule also named it', () => {
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 2.5), shaped('Unknown', 'Veno', 0)], true)).toBeNull();
    // Scalable's 1/8 back-off reads as none; both profiles favouring it are evidence of their own.
    expect(noBackoffDoubt('Scalable', [shaped('Scalable', 'Scalable', 0), shaped('Scalable', 'Scalable', 0)], true)).toBeNull();
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), shaped('Unknown', 'Veno', 0)], false)).toBeNull();
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0)], true)).toBeNull();
  });

  it('ignores a profile outside the trained conditions: it gives no evidence either way', () => {
    const outside = (v: Verdict): Verdict => ({ ...v, conditions: { inside: false, disturbed: null } as unknown as Verdict['conditions'] });
    // An outside profile that backed off does not lift the doubt; with it gone, one judged profile is left: no doubt.
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), outside(shaped('BIC', 'BIC', 3)), shaped('Unknown', 'Veno', 0)], true)).toMatch(/1 of 2/);
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), outside(shaped('Unknown', 'Veno', 0))], true)).toBeNull();
  });

  it('does not count a profile whose pick another class\'s trained flows hold clearly nearer (lossBased nearerClassFactor)', () => {
    const nearerVeno = (v: Verdict): Verdict => ({ ...v, evidence: { ...v.evidence!, claims: v.evidence!.claims.map((c) => ({ ...c, nearer: 'Veno' })) } });
    // The profile that backed off leans BIC but lies nearer Veno's flows: it does not lift the doubt.
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), nearerVeno(shaped('Unknown', 'BIC', 3))], true)).toMatch(/1 of 2/);
    expect(noBackoffDoubt('BIC', [shaped('BIC', 'BIC', 0), shaped('Unknown', 'BIC', 3)], true)).toBeNull();
  });

  it('leaves delay- and model-based controllers alone: no back-off is their shape', () => {
    expect(noBackoffDoubt('Vegas', [shaped('Vegas', 'Vegas', 0), shaped('Unknown', 'Veno', 0)], true)).toBeNull();
    expect(noBackoffDoubt('Copa', [shaped('Copa', 'Copa', 0), profile('Unknown', true)], true)).toBeNull();
  });
});
