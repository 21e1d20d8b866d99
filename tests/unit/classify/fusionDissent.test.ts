/**
 * fuseProfiles: a profile whose own loss-based answer named a CCA still contradicts a
 * rule-based claim of another CCA from the other profile when the profiles' combined
 * loss-based answer is Unknown (e.g. the other profile's flow lay outside that class).
 */
import { describe, expect, it } from 'vitest';
import { combineLossPosteriors, fuseProfiles } from '../../../src/classify/fusion.js';
import type { Claim } from '../../../src/classify/types.js';
import type { FlowEvidence, Verdict } from '../../../src/classify/verdict.js';
import { testVerdict } from './testVerdict.js';

const loss = (label: string, inDistribution: string[], posterior: Record<string, number>): Claim => ({
  classifier: 'loss-based',
  scope: 'flow',
  label,
  confidence: label === 'Unknown' ? 0 : 1,
  posterior,
  inDistribution,
});
const bbrOther: Claim = { classifier: 'bbr', scope: 'flow', label: 'BBR (other version)', confidence: 0.6 };

const profile = (label: string, claims: Claim[]): Verdict =>
  testVerdict(label, 0.9, { evidence: { claims, levelBytes: null, rttSeconds: 0.2 } as unknown as FlowEvidence });

describe('fuseProfiles with a lone rule-based claim', () => {
  const cubicInside = loss('CUBIC', ['BBRv1', 'CUBIC'], { CUBIC: 1, BBRv1: 0 });
  const cubicOutside = loss('Unknown', ['BBRv1'], { CUBIC: 1, BBRv1: 0 });

  it('is Unknown when the other profile\'s loss-based classifier named another CCA', () => {
    const f = fuseProfiles([profile('CUBIC', [cubicInside]), profile('BBR (other version)', [cubicOutside, bbrOther])]);
    expect(f.label).toBe('Unknown');
    expect(f.reason).toMatch(/profiles disagree: .*BBR \(other version\) \(bbr\).*CUBIC \(loss-based in one profile\)/);
  });

  it('still stands when no profile\'s loss-based classifier named anything', () => {
    const f = fuseProfiles([profile('Unknown', [cubicOutside]), profile('BBR (other version)', [cubicOutside, bbrOther])]);
    expect(f.label).toBe('BBR (other version)');
  });

  it('agrees with a loss-based answer of the same BBR family (versions merge)', () => {
    const bbrLoss = loss('BBRv1', ['BBRv1'], { BBRv1: 1 });
    const bbrOutside = loss('Unknown', ['CUBIC'], { BBRv1: 1 });
    const f = fuseProfiles([profile('BBRv1', [bbrLoss]), profile('BBR (other version)', [bbrOutside, bbrOther])]);
    expect(f.label).toBe('BBR (other version)');
  });

  it('leaves a combined loss-based answer alone', () => {
    const f = fuseProfiles([profile('CUBIC', [cubicInside]), profile('CUBIC', [cubicInside])]);
    expect(f.label).toBe('CUBIC');
  });
});

describe('combining the profiles\' loss-based posteriors', () => {
  // Each profile leans to a different class; both hold a third one in their tails. The
  // product alone would crown that third class, which neither profile preferred.
  const leansX = loss('Unknown', ['X', 'Z'], { X: 0.6, Y: 1e-6, Z: 0.4 });
  const leansY = loss('Unknown', ['Y', 'Z'], { X: 1e-6, Y: 0.6, Z: 0.4 });

  it('gives no answer when the winner is no profile\'s own likeliest class', () => {
    const vs = [profile('Unknown', [leansX]), profile('Unknown', [leansY])];
    const c = combineLossPosteriors(vs);
    expect(Object.entries(c!.posterior).reduce((a, b) => (b[1] > a[1] ? b : a))[0]).toBe('Z');
    expect(c!.label).toBe('Unknown');
    expect(fuseProfiles(vs).label).toBe('Unknown');
  });

  it('keeps the winner when one profile preferred it on its own', () => {
    const prefersZ = loss('Z', ['Y', 'Z'], { X: 1e-6, Y: 0.3, Z: 0.7 });
    const vs = [profile('Unknown', [leansX]), profile('Z', [prefersZ])];
    expect(combineLossPosteriors(vs)!.label).toBe('Z');
    expect(fuseProfiles(vs).label).toBe('Z');
  });
});

describe('a profile where another class\'s trained flows lie clearly nearer (lossBased nearerClassFactor)', () => {
  const likeliestXnearerY: Claim = { ...loss('Unknown', ['X', 'Y'], { X: 0.9, Y: 0.1 }), nearer: 'Y' };
  const likeliestXnoNearer: Claim = { ...likeliestXnearerY, label: 'X', nearer: undefined };

  it('does not favour that class: the video profile alone named nothing', () => {
    const c = combineLossPosteriors([profile('Unknown', [likeliestXnearerY])]);
    expect(c!.label).toBe('Unknown');
    expect(c!.note).toMatch(/X likeliest in a profile, but Y's trained flows lie clearly nearer/);
  });

  it('stands when another profile found it likeliest and nearest', () => {
    expect(combineLossPosteriors([profile('Unknown', [likeliestXnearerY]), profile('X', [likeliestXnoNearer])])!.label).toBe('X');
    expect(combineLossPosteriors([profile('X', [likeliestXnoNearer])])!.label).toBe('X');
  });
});

describe('an answer from one judged profile whose flow never backed off', () => {
  const withDescriptor = (v: Verdict, backoffsPer100Rtt: number): Verdict => ({
    ...v,
    evidence: { ...v.evidence!, classifiers: { 'loss-based': { descriptor: { backoffsPer100Rtt } } } } as unknown as FlowEvidence,
  });
  const inside = loss('X', ['X'], { X: 0.95, Y: 0.05 });
  const outside = loss('Unknown', [], { X: 0.2, Y: 0.8 });

  it('is no answer: only growth was seen, and the other profile matched nothing', () => {
    const vs = [withDescriptor(profile('X', [inside]), 0), withDescriptor(profile('Unknown', [outside]), 4)];
    expect(combineLossPosteriors(vs)!.label).toBe('Unknown');
    const f = fuseProfiles(vs);
    expect(f.label).toBe('Unknown');
    expect(f.reason).toMatch(/withheld: X from one profile whose flow never backed off/);
  });

  it('stands when that flow did back off', () => {
    const vs = [withDescriptor(profile('X', [inside]), 2.5), withDescriptor(profile('Unknown', [outside]), 4)];
    expect(combineLossPosteriors(vs)!.label).toBe('X');
  });

  it('stands when both profiles were judged, back-offs or not', () => {
    const vs = [withDescriptor(profile('X', [inside]), 0), withDescriptor(profile('X', [inside]), 0)];
    expect(combineLossPosteriors(vs)!.label).toBe('X');
  });
});

describe('profiles that each named a different CCA', () => {
  // Lab NewReno under a grid condition: NewReno at 200 kbit/s, HSTCP at 100 kbit/s; both flows lie
  // inside both classes and the product of the posteriors favours HSTCP.
  const namesNewReno = loss('NewReno', ['NewReno', 'HSTCP'], { NewReno: 0.75, HSTCP: 0.25 });
  const namesHstcp = loss('HSTCP', ['NewReno', 'HSTCP'], { NewReno: 0.02, HSTCP: 0.98 });

  it('disagree: Unknown, whatever the product favours', () => {
    const vs = [profile('NewReno', [namesNewReno]), profile('HSTCP', [namesHstcp])];
    expect(combineLossPosteriors(vs)!.label).toBe('HSTCP');
    const f = fuseProfiles(vs);
    expect(f.label).toBe('Unknown');
    expect(f.reason).toMatch(/profiles disagree: .*NewReno.*HSTCP|profiles disagree: .*HSTCP.*NewReno/);
  });

  it('agree when one of them named nothing', () => {
    const vs = [profile('Unknown', [loss('Unknown', ['NewReno', 'HSTCP'], { NewReno: 0.1, HSTCP: 0.9 })]), profile('HSTCP', [namesHstcp])];
    expect(fuseProfiles(vs).label).toBe('HSTCP');
  });
});

describe('fuseProfiles: a fused BBRv1 needs one TCP profile with BBRv1\'s own signature', () => {
  const bbrLike = loss('BBRv1', ['BBRv1'], { BBRv1: 1, CUBIC: 0 });
  const withBacking = (v: Verdict, backed: boolean | null): Verdict => ({
    ...v, evidence: { ...v.evidence!, classifiers: { bbr: { v1Backed: backed, v1Backing: backed ? 'ProbeRTT drains (to <= 10% of the window or <= 4.5 packets), 10.9 s apart' : 'no ProbeRTT drain to 4 packets and no ProbeBW pulse train in 29 s' } } } as FlowEvidence,
  });

  it('is Unknown, "BBR-like, version not shown", when no TCP profile shows it (lab BBRv3 and Copa fused to BBRv1 that way)', () => {
    const f = fuseProfiles([withBacking(profile('Unknown', [bbrLike]), false), withBacking(profile('Unknown', [loss('Unknown', [], { BBRv1: 0.5, CUBIC: 0.5 })]), false)]);
    expect(f.label).toBe('Unknown');
    expect(f.reason).toMatch(/^BBR-like, version not shown: .*no ProbeRTT drain to 4 packets/);
  });

  it('is BBRv1 when one profile shows it, and left alone when no profile can (QUIC: null)', () => {
    expect(fuseProfiles([withBacking(profile('BBRv1', [bbrLike]), true), withBacking(profile('BBRv1', [bbrLike]), false)]).label).toBe('BBRv1');
    expect(fuseProfiles([withBacking(profile('BBRv1', [bbrLike]), null), withBacking(profile('BBRv1', [bbrLike]), null)]).label).toBe('BBRv1');
  });
});
