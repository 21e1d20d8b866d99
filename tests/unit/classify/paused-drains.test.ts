/**
 * BBRv1's ProbeRTT seen from far away: with the server 150 ms beyond the capture point, the 4
 * packets ProbeRTT keeps are mostly on the unseen part of the path, the visible bytes in flight
 * fall to nothing and the trace step marks the stop application-limited. Such short pauses after
 * a large window back a BBRv1 answer as drains do (bbr.ts pausedDrains, pausedDrainMaxRtts).
 * Committed traces: labs/grid-far.ts `far-150j5` (the shipped model's `.far` groups trained on
 * these rounds; the rule is the BBR classifier's, not learned).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bbrClassifier, bbrV1Backing, pausedDrains, type BbrParams } from '../../../src/classify/classifiers/bbr.js';
import { extractFlowFeatures, type FlowFeatures } from '../../../src/classify/features.js';
import { classifyFlow, fuseProfiles, type Model } from '../../../src/classify/index.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/far-150j5.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const params = bbrClassifier.defaultParams() as BbrParams;

describe('pausedDrains', () => {
  // 30 s of 50 ms points, 0.4 s RTT (8 points), slow start ending at 1 s: start-up (12 RTTs) ends at 5.8 s.
  const n = 600;
  const at = (t: number) => Math.round(t / 0.05);
  /**
   * Pauses as computeExclusion marks them: application-limited one RTT at each edge (the trace
   * step's gap plus the smoothing's pad), idle between when the bytes in flight stay near zero.
   */
  const flow = (pauses: Array<[number, number]>, level = 60) => {
    const y = new Float64Array(n).fill(level * 88);
    const mask = new Uint8Array(n);
    for (const [from, to] of pauses) {
      mask.fill(1, at(from), at(to));
      mask.fill(2, at(from + 0.4), Math.max(at(from + 0.4), at(to - 0.4)));
      y.fill(0, at(from + 0.2), at(to - 0.2));
    }
    // Only the fields the drain rules read.
    return { y, mask, t0: 0, dt: 0.05, rttSeconds: 0.4, slowStartEnd: 20, segmentBytes: 88, backoffs: [], durationSeconds: 30, transport: 'tcp' } as unknown as FlowFeatures;
  };

  it('times short pauses after a window of >= 15 packets', () => {
    expect(pausedDrains(flow([[11, 12.6], [22.5, 24.1]]), params).map((t) => +t.toFixed(2))).toEqual([10.95, 22.45]);
  });

  it('skips pauses during start-up or into the end of the trace', () => {
    expect(pausedDrains(flow([[3, 4]]), params)).toEqual([]);
    expect(pausedDrains(flow([[29, 30]]), params)).toEqual([]);
    expect(pausedDrains(flow([[11, 12.6]]), { ...params, pausedDrainMaxRtts: 0 })).toEqual([]);
  });

  it('counts none when the flow also paused for longer, or from a small window (a player, a request/response exchange)', () => {
    // 2.2 s = 5.5 RTTs, mostly idle: nothing to send.
    expect(pausedDrains(flow([[11, 13.2]]), params)).toEqual([]);
    expect(pausedDrains(flow([[11, 12.6], [16, 18.2], [22.5, 24.1]]), params)).toEqual([]);
    expect(pausedDrains(flow([[11, 12.6]], 12), params)).toEqual([]);
    // A segment every 10 s with a 3 s pause between: no pause is short enough.
    expect(pausedDrains(flow([[8, 11], [18, 21], [28, 29.5]]), params)).toEqual([]);
  });

  it('back BBRv1 when ~10 s apart, not when closer', () => {
    expect(bbrV1Backing(flow([[11, 12.6], [22.5, 24.1]]), params)).toMatchObject({ backed: true, repeated: true });
    expect(bbrV1Backing(flow([[11, 12.6], [16, 17.6], [21, 22.6]]), params)).toMatchObject({ backed: false });
  });

  it('make the BBR classifier\'s own BBRv1 claim when ~10 s apart (session 57), none when closer or for QUIC', () => {
    const claims = bbrClassifier.predict(flow([[11, 12.6], [22.5, 24.1]]), params);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ classifier: 'bbr', label: 'BBRv1', confidence: 0.8 });
    expect(claims[0].note).toMatch(/^ProbeRTT drains or pauses 11\.5 s apart/);
    expect(bbrClassifier.predict(flow([[11, 12.6], [16, 17.6], [21, 22.6]]), params)).toEqual([]);
    expect(bbrClassifier.predict({ ...flow([[11, 12.6], [22.5, 24.1]]), transport: 'quic' }, params)).toEqual([]);
  });
});

describe('kernel BBR 150 ms beyond the capture point (committed far-150j5 traces)', () => {
  const withoutPauses = (m: Model): Model => ({ ...m, classifiers: { ...m.classifiers, bbr: { ...(m.classifiers.bbr as object), pausedDrainMaxRtts: 0 } } });
  const bbr = entries.filter((e) => e.origin === 'tcp-bbr');

  it.each(bbr.map((e) => [e.profile, e] as const))('%s: BBRv1, backed by its ProbeRTT pauses; "version not shown" without them', (_p, e) => {
    const f = extractFlowFeatures({ ...toSeries(e), transport: 'tcp' }, shippedModel().pipeline);
    const b = bbrV1Backing(f, bbrClassifier.parseParams(shippedModel().classifiers.bbr) as BbrParams);
    expect(b.backed, b.why).toBe(true);
    expect(b.why).toMatch(/^ProbeRTT drains or pauses 1\d\.\d s apart/);
    expect(classifyFlow({ ...toSeries(e), transport: 'tcp' }, shippedModel()).label).toBe('BBRv1');
    const before = classifyFlow({ ...toSeries(e), transport: 'tcp' }, withoutPauses(shippedModel()));
    expect(before.label).toBe('Unknown');
    expect(before.reason).toMatch(/^BBR-like, version not shown/);
  });

  it('names no loss-based or delay-based flow there BBRv1 (CUBIC, Vegas, YeAH)', () => {
    const others = entries.filter((e) => e.origin !== 'tcp-bbr');
    expect(others).toHaveLength(6);
    const named = others.map((e) => `${e.origin} ${e.profile}: ${classifyFlow({ ...toSeries(e), transport: 'tcp' }, shippedModel()).label}`);
    expect(named.filter((s) => s.endsWith('BBRv1'))).toEqual([]);
  });
});

describe('kernel BBR whose learned shapes name no CCA, its ProbeRTT seen as pauses (committed bbr-paused-probertt traces)', () => {
  // Held-out rounds AB and Y of session 56: 500 and 420 kbit/s behind both Nebby profiles, 70 and 85 ms away.
  const flows = labSeriesFlows('bbr-paused-probertt.json.gz');
  const verdict = (f: (typeof flows)[number]) => classifyFlow({ ...toSeries(f), transport: 'tcp' }, shippedModel());

  it.each(flows.map((f) => [f.region, f.profile, f] as const))('%s %s: BBRv1 from the BBR classifier\'s own claim, the learned shape naming no other CCA', (_r, _p, f) => {
    const v = verdict(f);
    expect(v.label, v.reason).toBe('BBRv1');
    const claims = v.evidence!.claims;
    expect(claims.find((c) => c.classifier === 'bbr')?.note).toMatch(/^ProbeRTT drains or pauses 1\d\.\d s apart/);
    // Unknown, or (Y's nebby-50) BBRv1 from the groups beyond the trained conditions alone.
    expect(['Unknown', 'BBRv1']).toContain(claims.find((c) => c.classifier === 'loss-based')?.label);
  });

  it.each(['h-ab-r500-70j2', 'h-y-r420-85j2'])('%s: both profiles fused name BBRv1 with confidence', (region) => {
    const both = flows.filter((f) => f.region === region).map(verdict);
    expect(both).toHaveLength(2);
    const fused = fuseProfiles(both, { calibration: shippedModel().calibration });
    expect(fused.label, fused.reason).toBe('BBRv1');
    expect(fused.confidence).toBeGreaterThanOrEqual(0.9);
  });
});
