/** The indicators the confidence model reads (confidence.ts reliabilityOf). */
import { describe, expect, it } from 'vitest';
import { RELIABILITY_NAMES, reliabilityOf } from '../../../src/classify/confidence.js';
import type { Verdict } from '../../../src/classify/verdict.js';

const profile = (inside: boolean, distance: number): Verdict => ({
  schemaVersion: 1, label: 'CUBIC', kind: 'cca', confidence: 0.9, reason: '', shapeCluster: null, evidence: null,
  conditions: { measured: null, inside, distance, outsideReason: inside ? null : 'far', disturbed: null },
}) as unknown as Verdict;
const envelopeOf = (v: Verdict) => reliabilityOf(v)[RELIABILITY_NAMES.indexOf('envelopeDistance')];

describe('the envelope distance the confidence model reads', () => {
  it('is at most 1 for a profile inside the trained conditions, whose BDP axis admits more (session 58)', () => {
    expect(envelopeOf(profile(true, 0.4))).toBeCloseTo(0.4, 6);
    expect(envelopeOf(profile(true, 1.4))).toBe(1);
  });

  it('is read as measured, up to 2, for a profile outside them', () => {
    expect(envelopeOf(profile(false, 1.4))).toBeCloseTo(1.4, 6);
    const fused = { ...profile(true, 0.2), profiles: [profile(true, 1.3), profile(false, 1.6)] } as Verdict;
    expect(envelopeOf(fused)).toBeCloseTo(1.6, 6);
    expect(envelopeOf(profile(false, 5))).toBe(2);
  });
});
