/**
 * The loss-agnostic rule: a sender that keeps many segments in flight while losing a large
 * share of what it sends is not reacting to loss (BBRv1 through a shallow buffer). Heavy loss
 * at a tiny window (a loss-based QUIC flow squeezed by cross traffic), a large window at
 * ordinary loss, and a trace without loss counts must not be called that.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/classifyFlow.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { lossAgnosticClassifier } from '../../../src/classify/classifiers/lossAgnostic.js';
import type { BifSeries, SenderLoss } from '../../../src/trace/types.js';
import { syntheticModel } from './shippedModel.js';

const model = syntheticModel();
const SEGMENT = 1200;
const RTT = 0.2;

/** In-flight wandering by whole segments around `segments`, one sample every 20 ms for 30 s. */
function window(segments: number, loss?: SenderLoss): BifSeries {
  const t: number[] = [];
  const bif: number[] = [];
  for (let i = 0; i * 0.02 <= 30; i++) {
    t.push(i * 0.02);
    bif.push(SEGMENT * Math.max(1, segments + ((i % 4) - 1.5 > 0 ? 1 : 0)));
  }
  return { t: Float64Array.from(t), bif: Float64Array.from(bif), rttSeconds: RTT, ...(loss ? { loss } : {}) };
}

const claimsOf = (s: BifSeries) => {
  const f = extractFlowFeatures(s, model.pipeline);
  const p = model.classifiers['loss-agnostic'] ?? lossAgnosticClassifier.defaultParams();
  return { claims: lossAgnosticClassifier.predict(f, p), explain: lossAgnosticClassifier.explain(f, p) };
};

describe('loss-agnostic sender rule', () => {
  it('20 segments in flight while losing 60% of bytes sent: BBRv1', () => {
    const { claims, explain } = claimsOf(window(20, { sentBytes: 2_000_000, lostBytes: 1_200_000 }));
    expect(claims.map((c) => c.label)).toEqual(['BBRv1']);
    expect(claims[0].note).toMatch(/lost 60% of bytes sent/);
    expect(explain.excessOverReno as number).toBeGreaterThan(3);
  });

  it('the same loss at 2 segments in flight (a loss-based flow at its floor): no claim', () => {
    const { claims, explain } = claimsOf(window(2, { sentBytes: 800_000, lostBytes: 400_000 }));
    expect(claims).toEqual([]);
    expect(explain.excessOverReno as number).toBeLessThan(3);
  });

  it('20 segments at 3% loss (ordinary loss-based or kernel BBR): no claim', () => {
    expect(claimsOf(window(20, { sentBytes: 800_000, lostBytes: 24_000 })).claims).toEqual([]);
  });

  it('a trace without loss counts (QUIC without a key log): no claim, and says why', () => {
    const { claims, explain } = claimsOf(window(20));
    expect(claims).toEqual([]);
    expect(explain.note).toMatch(/no losses/);
  });

  it('its claim reaches the flow verdict with the evidence', () => {
    const v = classifyFlow(window(20, { sentBytes: 2_000_000, lostBytes: 1_200_000 }), model);
    const claim = v.evidence!.claims.find((c) => c.classifier === 'loss-agnostic');
    expect(claim?.label).toBe('BBRv1');
    expect((v.evidence!.classifiers['loss-agnostic'] as { decision: string }).decision).toBe('BBRv1');
  });
});
