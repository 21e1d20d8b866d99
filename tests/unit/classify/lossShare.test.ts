/**
 * The loss share in the loss-based descriptor (flowShape.ts describeLoss): at one bottleneck
 * it is steady per controller, so a flow that loses what its shape's class never loses is not
 * that class. Judged on the committed fresh lab traces with the shipped model, changing only
 * the counted losses of each flow.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/index.js';
import { describeLoss, FLOW_SHAPE_NAMES } from '../../../src/classify/flowShape.js';
import type { Model } from '../../../src/classify/model.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/fresh-near.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;

/** The entry with its loss share set to `share` (sent bytes unchanged). */
const withShare = (e: DatasetEntry, share: number): DatasetEntry => ({ ...e, loss: { sentBytes: e.loss!.sentBytes, lostBytes: e.loss!.sentBytes * share } });
const lossClaim = (e: DatasetEntry, model: Model = shippedModel()) =>
  classifyFlow(toSeries(e), model).evidence!.claims.find((c) => c.classifier === 'loss-based')!;

describe('loss share in the descriptor', () => {
  it('is log10 of the lost share, floored at 0.1%, and missing without counts', () => {
    expect(describeLoss({ sentBytes: 1000, lostBytes: 100 })).toBeCloseTo(-1, 12);
    expect(describeLoss({ sentBytes: 1000, lostBytes: 0 })).toBeCloseTo(-3, 12);
    expect(describeLoss(null)).toBeNaN();
    expect(describeLoss({ sentBytes: 0, lostBytes: 0 })).toBeNaN();
    expect(FLOW_SHAPE_NAMES).toContain('logLossShare');
  });

  it('Scalable and YeAH (measured 3.5-6.1% lost) are named at their own share; losing less is not held against them, losing far more is', () => {
    const flows = entries.filter((e) => e.origin === 'tcp-scalable' || e.origin === 'tcp-yeah');
    expect(flows).toHaveLength(4);
    for (const e of flows) {
      const share = e.loss!.lostBytes / e.loss!.sentBytes;
      expect(share).toBeGreaterThan(0.03);
      expect(lossClaim(e).label, `${e.origin} ${e.profile}`).toBe(e.label);
      // A paced or paused flow loses less than a bulk probe: the gate is one-sided (oodUpperOnly).
      expect(lossClaim(withShare(e, 0.005)).inDistribution, `${e.origin} ${e.profile}`).toContain(e.label);
      expect(lossClaim(withShare(e, 0.19)).inDistribution, `${e.origin} ${e.profile}`).not.toContain(e.label);
    }
  });

  it('a NewReno flow (1.3-2.2% lost) that lost 10% is not NewReno', () => {
    for (const e of entries.filter((x) => x.origin === 'tcp-reno')) {
      expect(lossClaim(e).inDistribution).toContain('NewReno');
      const c = lossClaim(withShare(e, 0.1));
      expect(c.label).not.toBe('NewReno');
      expect(c.inDistribution).not.toContain('NewReno');
    }
  });

  it('a model trained before the feature existed judges without it: the same posterior whatever the losses', () => {
    const m = structuredClone(shippedModel());
    const lb = m.classifiers['loss-based'] as { gnb: { featureNames: string[]; classes: Array<{ mean: number[]; variance: number[]; examples?: Array<Array<number | null>> }> } };
    const n = lb.gnb.featureNames.indexOf('logLossShare');
    // Not the last feature (the loss cycle follows it): the rest must stay aligned by name.
    expect(n).toBe(FLOW_SHAPE_NAMES.indexOf('logLossShare'));
    expect(n).toBeLessThan(FLOW_SHAPE_NAMES.length - 1);
    lb.gnb.featureNames.splice(n, 1);
    for (const c of lb.gnb.classes) {
      c.mean.splice(n, 1);
      c.variance.splice(n, 1);
      for (const x of c.examples ?? []) x.splice(n, 1);
    }
    // A TCP flow, and a QUIC flow, which also measures the feature after the loss share.
    for (const origin of ['tcp-reno', 'aioquic-reno']) {
      const e = entries.find((x) => x.origin === origin && x.profile === 'nebby-50')!;
      const posterior = lossClaim(e, m).posterior!;
      expect(lossClaim(withShare(e, 0.06), m).posterior).toEqual(posterior);
      // Judged on the aligned features (a misaligned vector would give NaN or another class).
      expect(Object.values(posterior).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
      expect(Object.entries(posterior).reduce((a, b) => (b[1] > a[1] ? b : a))[0], origin).toBe('NewReno');
      expect(lossClaim(e, m).inDistribution, origin).toContain('NewReno');
    }
  });
});
