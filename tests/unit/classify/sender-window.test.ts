/**
 * Back-offs read on the sender's whole window (classify/senderWindow.ts) and the HSTCP rule that
 * uses them (classify/hstcp.ts). From far away a capture point sees a deeper back-off than the
 * sender made; added back, NewReno halves and HSTCP keeps Linux's 0.5625. Committed traces: lab
 * kernel HSTCP and NewReno 125 ms beyond the capture point with 3 ms jitter, both Nebby profiles
 * (labs/grid-heldout.ts `h-rtt-125j3`, session 42; the rule was written on them, session 43).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { hstcpNotShown, hstcpWithheld } from '../../../src/classify/hstcp.js';
import { hiddenPathOf, senderWindowBytes } from '../../../src/classify/senderWindow.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import type { FlowConditions } from '../../../src/trace/types.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/far-hstcp-reno-125j3.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;

const conditions = (over: Partial<FlowConditions>): FlowConditions => ({
  transport: 'tcp', segmentBytes: 88, sack: true, rttSeconds: 0.3, minRttSeconds: 0.25, serverSideRttSeconds: 0.15, clientSideRttSeconds: 0.1,
  visibleShare: 0.4, deliveryKbit: 100, bdpPackets: 30, reorderShare: 0, upstreamLossShare: 0, needlessResendShare: 0, ...over,
});

describe('senderWindowBytes', () => {
  // 100 kbit/s = 12500 B/s; 0.15 s beyond the capture point hides 1875 bytes while the link is busy.
  const hidden = hiddenPathOf(conditions({}));

  it('adds the hidden part of the path while the link is busy, and scales by the visible share when it is not', () => {
    expect(senderWindowBytes(5000, hidden)).toBeCloseTo(5000 + 1875, 6);
    expect(senderWindowBytes(500, hidden)).toBeCloseTo(500 / 0.4, 6);
  });

  it('leaves the window alone when the conditions do not say what is hidden', () => {
    expect(hiddenPathOf(conditions({ visibleShare: null }))).toBeNull();
    expect(hiddenPathOf(conditions({ serverSideRttSeconds: null }))).toBeNull();
    expect(hiddenPathOf(undefined)).toBeNull();
    expect(hiddenPathOf(conditions({ deliveryKbit: 0 }))).toBeNull();
    expect(hiddenPathOf(conditions({ visibleShare: 0 }))).toBeNull();
    expect(hiddenPathOf(conditions({ visibleShare: 1.2 }))).toBeNull();
    expect(senderWindowBytes(1234, null)).toBe(1234);
  });
});

describe('HSTCP against NewReno on the whole window', () => {
  it('shows HSTCP only from a back-off clearly shallower than halving', () => {
    expect(hstcpNotShown([0.49, 0.52])).toMatch(/NewReno-like/);
    expect(hstcpNotShown([0.51, 0.53])).toMatch(/NewReno-like/);
    expect(hstcpNotShown([0.49, 0.54])).toBeNull();
  });

  it('reads the whole window when the loss-based evidence has it, the visible ratio otherwise', () => {
    const far = (visible: number, whole?: number) => ({ 'loss-based': { descriptor: { beta: visible }, ...(whole === undefined ? {} : { senderWindow: { beta: whole, peakPackets: 70, backoffs: 3 } }) } });
    expect(hstcpWithheld('HSTCP', [far(0.38, 0.57), far(0.47, 0.56)])).toBeNull();
    expect(hstcpWithheld('HSTCP', [far(0.30, 0.48), far(0.38, 0.49)])).toMatch(/beta 0\.48, 0\.49/);
    expect(hstcpWithheld('HSTCP', [far(0.38), far(0.47)])).toMatch(/beta 0\.38, 0\.47/);
    expect(hstcpWithheld('CUBIC', [far(0.30, 0.48)])).toBeNull();
    // Under 38 packets HSTCP halves too: a shallower whole-window ratio there shows nothing.
    const small = { 'loss-based': { descriptor: { beta: 0.4 }, senderWindow: { beta: 0.58, peakPackets: 30, backoffs: 3 } } };
    expect(hstcpWithheld('HSTCP', [small])).toMatch(/beta 0\.50/);
  });

  const model = shippedModel();
  const judged = entries.map((e) => ({ e, v: classifyFlow(toSeries(e), model) }));
  const of = (label: string) => judged.filter((j) => j.e.label === label).map((j) => j.v);

  it('reads far back-offs deeper on the visible bytes than on the whole window', () => {
    for (const { v } of judged) {
      const lb = v.evidence?.classifiers?.['loss-based'] as { descriptor: { beta: number }; senderWindow: { beta: number; hiddenPathAdded: boolean } };
      expect(lb.senderWindow.hiddenPathAdded).toBe(true);
      expect(lb.senderWindow.beta).toBeGreaterThan(lb.descriptor.beta + 0.05);
    }
  });

  it('names far HSTCP HSTCP, and far NewReno never HSTCP', () => {
    const hs = of('HSTCP');
    const reno = of('NewReno');
    expect(hs).toHaveLength(2);
    expect(reno).toHaveLength(2);
    expect(fuseProfiles(hs, { calibration: model.calibration }).label).toBe('HSTCP');
    for (const v of reno) expect(v.label).not.toBe('HSTCP');
    expect(fuseProfiles(reno, { calibration: model.calibration }).label).not.toBe('HSTCP');
  });
});
