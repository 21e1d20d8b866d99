import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/classify/verdict.js';
import { spacedPeaks, verdictRecordFromClassifier, verdictRecordSchema, type ClassifierVerdictLike } from '../../../src/results/index.js';

// Compile-time check: the classifier's Verdict must still fit the structural type we read.
const _fits = (v: Verdict): ClassifierVerdictLike => v;
void _fits;

function bbrVerdict(): ClassifierVerdictLike {
  // A plateau at 10 KB with a +25% bump every 8 samples (dt = RTT = 0.1 s): 8-RTT ProbeBW.
  const bif = Array.from({ length: 80 }, (_, i) => (i >= 8 && i % 8 === 4 ? 12500 : 10000));
  return {
    label: 'BBRv1',
    kind: 'cca',
    confidence: 0.8,
    reason: 'bbr: pulses',
    shapeCluster: null,
    evidence: {
      rttSeconds: 0.1,
      slowStartEndSeconds: 0.5,
      smoothed: { t0: 0, dt: 0.1, bif },
      backoffs: [],
      segments: [{ index: 0, tStart: 1, tEnd: 3, usable: true, polynomial: { degree: 1, coefficients: [0, 1], mse: 0 } }],
      claims: [{ label: 'BBRv1', confidence: 0.8 }],
      classifiers: {
        bbr: { probeBwPeriodRtts: 8, probeBwStrength: 0.6, probeRttPeriodSeconds: 10, dips: [{ tStart: 5, tEnd: 5.2, depth: 0.8 }] },
        akamai: { decision: null, backoffIntervalsSeconds: [] },
      },
      lossPosterior: null,
    },
  };
}

describe('verdictRecordFromClassifier', () => {
  it('turns the BBR explanation into drawable periods with marks on the bumps', () => {
    const r = verdictRecordFromClassifier('f7', bbrVerdict());
    expect(verdictRecordSchema.safeParse(r).success).toBe(true);
    const bw = r.evidence!.periods.find((p) => p.kind === 'probe-bw')!;
    expect(bw.periodSeconds).toBeCloseTo(0.8);
    expect(bw.marks.map((t) => Math.round(t * 10) / 10)).toEqual([1.2, 2, 2.8, 3.6, 4.4, 5.2, 6, 6.8, 7.6]);
    expect(r.evidence!.periods.find((p) => p.kind === 'probe-rtt')).toEqual({ kind: 'probe-rtt', periodSeconds: 10, marks: [5] });
    expect(r.posterior).toEqual({ BBRv1: 0.8 });
    // the segment gets its BiF range from the smoothed series, to draw the fit in bytes
    expect(r.evidence!.segments[0]).toMatchObject({ bifMin: 10000, bifMax: 12500 });
    expect(r.evidence!.periods.some((p) => p.kind === 'backoff-cycle')).toBe(false);
  });

  it('keeps non-answers without evidence as they are', () => {
    const r = verdictRecordFromClassifier('f1', { label: 'Short flow', kind: 'short-flow', confidence: 0, reason: 'short', shapeCluster: null, evidence: null });
    expect(r).toEqual({ flowId: 'f1', label: 'Short flow', kind: 'short-flow', confidence: 0, reason: 'short', posterior: {}, shapeCluster: null, evidence: null });
  });

  it('spacedPeaks keeps the higher of two close peaks', () => {
    expect(spacedPeaks([0, 5, 0, 6, 0, 0, 0, 4, 0], 3)).toEqual([3, 7]);
  });
});
