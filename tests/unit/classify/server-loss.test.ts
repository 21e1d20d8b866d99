/**
 * Loss on the server's side of the capture point (classify/envelope.ts, classifyFlow.ts
 * signatureUnderLoss): above half the loss rate a one-BDP window meets on its own a learned shape is
 * not read (a window cut by random
 * losses before it fills the buffer does not show its controller), but BBRv1's ProbeRTT, seen more
 * than once, still is. Committed traces: lab kernel BBR and CUBIC with 0.6% bursty loss (3 packets)
 * 55 ms beyond the capture point, both Nebby profiles (labs/grid-heldout.ts `h-lossb-06-55`,
 * session 43: measured blind for the envelope's unit, then read to write the BBRv1 exception).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { checkEnvelope, fitEnvelope, UPSTREAM_LOSS_AXIS, VERDICT_INSIDE_SCALES } from '../../../src/classify/envelope.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import type { FlowConditions } from '../../../src/trace/types.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/server-loss-06b.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;

const lab = (o: Partial<FlowConditions> = {}): FlowConditions => ({
  transport: 'tcp', segmentBytes: 88, sack: true, rttSeconds: 0.12, minRttSeconds: 0.1, serverSideRttSeconds: 0.01, clientSideRttSeconds: 0.1,
  visibleShare: 0.9, deliveryKbit: 114, bdpPackets: 16, reorderShare: 0, upstreamLossShare: 0, needlessResendShare: 0, ...o,
});

describe('loss on the server\'s side', () => {
  it('an envelope check may skip the loss axis, and only that axis', () => {
    const env = fitEnvelope([lab()]);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.005 })).inside).toBe(false);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.005 }), [UPSTREAM_LOSS_AXIS]).inside).toBe(true);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.005, sack: false }), [UPSTREAM_LOSS_AXIS]).inside).toBe(false);
  });

  const model = shippedModel();
  const judged = (origin: string) => entries.filter((e) => e.origin === origin).map((e) => classifyFlow(toSeries(e), model));

  it('does not read a loss-based shape there', () => {
    for (const v of judged('tcp-cubic')) {
      expect(v.label).toBe('Unknown');
      // Which axis the reason names depends on the nearest trained rows: since session 60 the
      // envelope holds a round with 0.3% loss on the server's side (AC, in `.beyond2`), 90 ms away.
      expect(v.reason).toMatch(/^conditions unlike any the model was trained under: (loss before the capture point|BDP)/);
      expect(v.conditions?.inside).toBe(false);
      // ...but the loss is what keeps the flow out: without that axis it lies inside.
      expect(checkEnvelope(model.envelope, v.conditions!.measured!, [UPSTREAM_LOSS_AXIS], VERDICT_INSIDE_SCALES).inside).toBe(true);
    }
  });

  it('names kernel BBR by its repeated ProbeRTT, inside the other trained conditions', () => {
    const bbr = judged('tcp-bbr');
    const named = bbr.filter((v) => v.label === 'BBRv1');
    expect(named.length).toBeGreaterThan(0);
    for (const v of named) {
      expect(v.reason).toMatch(/its ProbeRTT signature read under /);
      expect(v.conditions?.inside).toBe(true);
      expect(v.conditions?.outsideReason).toBeNull();
      expect(v.conditions?.skippedAxes).toEqual([UPSTREAM_LOSS_AXIS]);
      expect((v.evidence?.classifiers?.bbr as { v1Repeated?: boolean }).v1Repeated).toBe(true);
    }
    expect(fuseProfiles(bbr, { calibration: model.calibration }).label).toBe('BBRv1');
  });

  it('a host that disturbed the bottleneck still withholds it', () => {
    const e = entries.find((x) => x.origin === 'tcp-bbr')!;
    const v = classifyFlow(toSeries(e), model, { disturbance: { windowSeconds: 30, stalls: 200, stalledMs: 4000, maxStallMs: 60 } });
    expect(v.label).toBe('Unknown');
  });
});
