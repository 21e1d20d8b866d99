/**
 * BBRv1 named from its ProbeRTT drains: a kernel BBR that fills the buffer shows no plateau to
 * read pulses from, but every ~10 s its window drains to 4 packets, which the back-off detector
 * sees as a fall to <= 10% of the peak, or to <= 4.5 packets from a small window. Loss-based cuts
 * keep >= half; a timeout drains too, but no lab loss-based flow did so twice at ProbeRTT's spacing.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Backoff } from '../../../src/classify/backoffs.js';
import { bbrClassifier, bbrV1Backing, drainDecision, drainIntervals, probeRttDrains, type BbrParams } from '../../../src/classify/classifiers/bbr.js';
import type { FlowFeatures } from '../../../src/classify/features.js';
import { classifyFlow, type Model } from '../../../src/classify/index.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGate } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/fresh-near.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const params = bbrClassifier.defaultParams() as BbrParams;

/** A fall from `peak` to `trough` packets (88-byte segments) at time t. */
const fall = (t: number, peak: number, trough: number): Backoff => ({
  iPeak: Math.round(t * 100),
  iTrough: Math.round(t * 100) + 5,
  tPeak: t,
  tTrough: t + 0.05,
  peak: peak * 88,
  trough: trough * 88,
  depth: 1 - trough / peak,
});

describe('probeRttDrains', () => {
  // A 30 s grid of 10 ms points, 0.1 s RTT, slow start ending at 1 s (start-up to 2.2 s).
  // The series holds 60 packets but where a test lowers it: each fall's window is back at once.
  const grid = { segmentBytes: 88, mask: new Uint8Array(3000), slowStartEnd: 100, t0: 0, dt: 0.01, rttSeconds: 0.1, y: new Float64Array(3000).fill(60 * 88) };

  it('measures the time between falls to <= 10% (or <= 4.5 packets) of a window of >= 15 packets, and only those', () => {
    const backoffs = [fall(3, 60, 30), fall(11.1, 60, 4), fall(15, 60, 42), fall(22.3, 55, 5)];
    expect(probeRttDrains({ ...grid, backoffs }, params).map((x) => +x.toFixed(2))).toEqual([11.2]);
    // A fall to 12% (7.2 packets) is not a drain; one from a 13-packet window (TCP-LP's back-off to its minimum, or a timeout) is not either.
    expect(probeRttDrains({ ...grid, backoffs: [fall(11.1, 60, 7.2), fall(22.3, 55, 5)] }, params)).toEqual([]);
    expect(probeRttDrains({ ...grid, backoffs: [fall(11.1, 13, 1.2), fall(22.3, 13, 1.2)] }, params)).toEqual([]);
  });

  it('counts a fall to ProbeRTT\'s absolute floor from a small window (kernel BBR under `video`: 19 -> 3.1 packets)', () => {
    // 16% of the peak: the share rule alone misses it; 3.1 packets is ProbeRTT's 4 read through smoothing.
    expect(probeRttDrains({ ...grid, backoffs: [fall(10.4, 19, 3.1), fall(20.8, 21, 3.2)] }, params).map((x) => +x.toFixed(2))).toEqual([10.4]);
    expect(probeRttDrains({ ...grid, backoffs: [fall(10.4, 19, 3.1), fall(20.8, 21, 3.2)] }, { ...params, drainMaxTroughPackets: 0 })).toEqual([]);
  });

  it('ignores a drain right after slow start and an interval holding idle or application-limited time', () => {
    // The fall at 1.5 s may be the timeout that ended slow start: 11.1 -> 22.3 is the only interval.
    expect(probeRttDrains({ ...grid, backoffs: [fall(1.5, 60, 2), fall(11.1, 60, 4), fall(22.3, 55, 5)] }, params).map((x) => +x.toFixed(2))).toEqual([11.2]);
    // A pause between the drains (a player between two segments) voids that interval.
    const mask = new Uint8Array(3000);
    mask.fill(1, 1500, 1600);
    expect(probeRttDrains({ ...grid, mask, backoffs: [fall(11.1, 60, 4), fall(22.3, 55, 5)] }, params)).toEqual([]);
  });

  it('reads ProbeRTT\'s spacing only between falls given back as fast as ProbeRTT gives them back (200 ms and 8 RTTs): not a timeout\'s slow recovery', () => {
    const backoffs = [fall(11.1, 60, 4), fall(22.3, 55, 5)];
    // Under half for 0.9 s (200 ms + 7 RTTs of 0.1 s): ProbeRTT's hold, the window given back after.
    const held = (seconds: number) => {
      const y = new Float64Array(3000).fill(60 * 88);
      y.fill(4 * 88, 1115, 1115 + Math.round(seconds / grid.dt));
      return y;
    };
    expect(drainIntervals({ ...grid, y: held(0.9), backoffs }, params).quick.map((x) => +x.toFixed(2))).toEqual([11.2]);
    // Under half for 1.5 s (13 RTTs): still a drain, ending an interval, but not one ProbeRTT made.
    expect(drainIntervals({ ...grid, y: held(1.5), backoffs }, params)).toEqual({ all: [expect.closeTo(11.2, 5)], quick: [] });
    expect(drainDecision([11.2], params, [], [])).toBeNull();
    expect(drainIntervals({ ...grid, y: held(1.5), backoffs }, { ...params, drainMaxHeldRtts: 0 }).quick.map((x) => +x.toFixed(2))).toEqual([11.2]);
  });
});

describe('ProbeRTT drains on committed lab traces', () => {
  const bbrNotes = (e: DatasetEntry) =>
    (classifyFlow(toSeries(e), shippedModel()).evidence?.claims ?? []).filter((c) => c.classifier === 'bbr').map((c) => `${c.label}: ${c.note}`);

  it('name kernel BBR under both profiles (measured: drains 11.2 and 11.0 s apart)', () => {
    const bbr = entries.filter((e) => e.origin === 'tcp-bbr');
    expect(bbr).toHaveLength(2);
    for (const e of bbr) {
      const notes = bbrNotes(e);
      expect(notes, e.profile).toHaveLength(1);
      expect(notes[0], e.profile).toMatch(/^BBRv1: ProbeRTT drains \(to <= 10% of the window or <= 4.5 packets\), 1\d\.\d s apart$/);
      expect(classifyFlow(toSeries(e), shippedModel()).label, e.profile).toBe('BBRv1');
    }
  });

  it('name no other controller (11 loss-based and delay-based TCP, 5 QUIC stacks)', () => {
    const others = entries.filter((e) => e.origin !== 'tcp-bbr' && e.origin !== 'quinn-bbr');
    expect(others).toHaveLength(30);
    expect(others.filter((e) => bbrNotes(e).some((n) => n.includes('ProbeRTT drains'))).map((e) => `${e.origin} ${e.profile}`)).toEqual([]);
  });

  it('lose the answer when drains come too far apart (the spacing is what names BBR)', () => {
    const e = entries.find((x) => x.origin === 'tcp-bbr' && x.profile === 'nebby-100')!;
    const model = shippedModel();
    const narrow = { ...model, classifiers: { ...model.classifiers, bbr: { ...params, drainSeconds: { min: 20, max: 25 } } } };
    expect((classifyFlow(toSeries(e), narrow).evidence?.claims ?? []).filter((c) => c.classifier === 'bbr')).toEqual([]);
  });
});

describe('falls held far longer than ProbeRTT holds them (committed slow-drains traces)', () => {
  // Issue 17's BBRv3 at 0.3% loss 90 ms away (round AC): timeouts' falls 8.3 and 11.7 s apart, each
  // under half its peak for 12-28 RTTs; Copa 120 ms away (round Z). Both read BBRv1 before session 57.
  const flows = labSeriesFlows('slow-drains.json.gz');
  const withoutHold = (m: Model): Model => ({ ...m, classifiers: { ...m.classifiers, bbr: { ...(m.classifiers.bbr as object), drainMaxHeldRtts: 0 } } });

  it.each(flows.map((f) => [f.origin, f.profile, f] as const))('%s %s: not BBRv1, as it was without the hold bound', (_o, _p, f) => {
    const v = classifyFlow({ ...toSeries(f), transport: 'tcp' }, shippedModel());
    expect(v.label, v.reason).not.toBe('BBRv1');
    // Without the bound, on the model these flows were first read on: session 60's `.beyond2` groups
    // were trained on their rounds (AC, Z) and now name the BBRv3 flow's shape BBRv3.
    expect(classifyFlow({ ...toSeries(f), transport: 'tcp' }, withoutHold(withoutGate(shippedModel(), '.beyond2'))).label).toBe('BBRv1');
  });
});

describe('a lone first drain ~10 s in, the trace ending before the next was due', () => {
  // 20 s of 10 ms points, 0.1 s RTT: the first ProbeRTT at ~10.5 s backs a learned BBRv1 answer.
  const n = 2000;
  const params = bbrClassifier.defaultParams() as BbrParams;
  const flow = (heldSeconds: number) => {
    const y = new Float64Array(n).fill(60 * 88);
    y.fill(4 * 88, 1055, 1055 + Math.round(heldSeconds / 0.01));
    const backoffs = [fall(10.5, 60, 4)];
    return { y, mask: new Uint8Array(n), t0: 0, dt: 0.01, rttSeconds: 0.1, slowStartEnd: 100, segmentBytes: 88, backoffs, durationSeconds: 20, transport: 'tcp', pathMinRttSeconds: null } as unknown as FlowFeatures;
  };

  it('backs BBRv1 when given back as fast as ProbeRTT gives it back, not when held like a timeout\'s recovery', () => {
    expect(bbrV1Backing(flow(0.5), params)).toMatchObject({ backed: true, repeated: false });
    expect(bbrV1Backing(flow(0.5), params).why).toMatch(/^its first ProbeRTT drain/);
    expect(bbrV1Backing(flow(2), params).backed).toBe(false);
  });
});
