/**
 * The loss-agnostic rule: a sender that keeps many segments in flight while losing a large
 * share of what it sends is not reacting to loss (BBRv1 through a shallow buffer). Heavy loss
 * at a tiny window (a loss-based QUIC flow squeezed by cross traffic), a large window at
 * ordinary loss, and a trace without loss counts must not be called that.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/classifyFlow.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { keepsWindowThroughLoss, lossAgnosticClassifier } from '../../../src/classify/classifiers/lossAgnostic.js';
import { lossBasedClassifier } from '../../../src/classify/classifiers/lossBased.js';
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

/** A Reno sawtooth (judgeable by the loss-based classifier) between 10 and 20 segments. */
function renoLike(seed: number, loss: SenderLoss): BifSeries {
  const t: number[] = [];
  const bif: number[] = [];
  let w = 10;
  for (let i = 0; i * 0.02 <= 30; i++) {
    t.push(i * 0.02);
    if (i % 10 === 0) w = w >= 20 ? 10 : w + 1; // one segment per 10 samples (one RTT), halve at 20
    bif.push(SEGMENT * w + ((i * 7919 + seed) % 3));
  }
  return { t: Float64Array.from(t), bif: Float64Array.from(bif), rttSeconds: RTT, loss };
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
    expect(explain.excessOverReno as number).toBeGreaterThan(4);
  });

  it('the same loss at 2 segments in flight (a loss-based flow at its floor): no claim', () => {
    const { claims, explain } = claimsOf(window(2, { sentBytes: 800_000, lostBytes: 400_000 }));
    expect(claims).toEqual([]);
    expect(explain.excessOverReno as number).toBeLessThan(4);
  });

  it('20 segments at 3% loss (ordinary loss-based or kernel BBR): no claim', () => {
    expect(claimsOf(window(20, { sentBytes: 800_000, lostBytes: 24_000 })).claims).toEqual([]);
  });

  it('a trace without loss counts (QUIC without a key log): no claim, and says why', () => {
    const { claims, explain } = claimsOf(window(20));
    expect(claims).toEqual([]);
    expect(explain.note).toMatch(/losses unknown/);
  });

  it('its claim reaches the flow verdict; the loss-based classifier does not judge such a flow', () => {
    const v = classifyFlow(window(20, { sentBytes: 2_000_000, lostBytes: 1_200_000 }), model);
    const claim = v.evidence!.claims.find((c) => c.classifier === 'loss-agnostic');
    expect(claim?.label).toBe('BBRv1');
    expect((v.evidence!.classifiers['loss-agnostic'] as { decision: string }).decision).toBe('BBRv1');
    const loss = v.evidence!.claims.filter((c) => c.classifier === 'loss-based');
    expect(loss.map((c) => [c.label, c.posterior])).toEqual([['Unknown', undefined]]);
    expect(loss[0].note).toMatch(/keeps its window through heavy loss/);
    expect(v.evidence!.classifiers['loss-based']).toMatchObject({ skipped: expect.stringMatching(/heavy loss/) });
    expect(v.evidence!.classifiers['loss-based']).not.toHaveProperty('posterior');
  });

  it('the loss-based classifier does not learn from such a flow', () => {
    const agnostic = extractFlowFeatures(renoLike(3001, { sentBytes: 2_000_000, lostBytes: 1_200_000 }), model.pipeline);
    const plain = extractFlowFeatures(renoLike(3002, { sentBytes: 800_000, lostBytes: 16_000 }), model.pipeline);
    expect(keepsWindowThroughLoss(agnostic)).toBe(true);
    expect(keepsWindowThroughLoss(plain)).toBe(false);
    const examples = [0, 1, 2].flatMap(() => [{ label: 'Lossy', features: agnostic }, { label: 'Plain', features: plain }]);
    const fitted = lossBasedClassifier.fit(examples, lossBasedClassifier.defaultParams()) as { gnb: { classes: Array<{ label: string }> } };
    expect(fitted.gnb.classes.map((c) => c.label)).toEqual(['Plain']);
  });
});
