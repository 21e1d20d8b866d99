/**
 * A TCP flow the learned shapes call BBRv1 is named BBRv1 only with BBRv1's own signature: its
 * ProbeRTT drains to 4 packets (every ~10 s, the first ~10 s in) or ProbeBW pulses with ProbeRTT.
 * The learned class also takes BBRv3, Copa and Hybla (classifyFlow.ts unbackedBbrV1). Read on a
 * committed fresh lab kernel BBR flow (tests/fixtures/lab-series/fresh-near.json.gz) cut short.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toSeries, truncateEntry, type DatasetEntry } from '../../../src/train/dataset.js';
import { classifyFlow } from '../../../src/classify/index.js';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { bbrClassifier, bbrV1Backing, type BbrParams } from '../../../src/classify/classifiers/bbr.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/fresh-near.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const kernelBbr = entries.filter((e) => e.protocol === 'tcp' && e.label === 'BBRv1');

describe('BBRv1 needs its own signature (TCP)', () => {
  it.each(kernelBbr.map((e) => [e.profile, e] as const))('a lab kernel BBR flow (%s): BBRv1 over 30 s, backed over 20 s; its first 8 s, before any ProbeRTT, "BBR-like, version not shown"', (_p, e) => {
    const whole = classifyFlow({ ...toSeries(e), transport: 'tcp' }, shippedModel());
    expect(whole.label).toBe('BBRv1');
    // 20 s hold only the first ProbeRTT (~10 s in): that drain backs BBRv1.
    const f20 = extractFlowFeatures({ ...toSeries(truncateEntry(e, 20)), transport: 'tcp' }, shippedModel().pipeline);
    const b = bbrV1Backing(f20, bbrClassifier.parseParams(shippedModel().classifiers.bbr) as BbrParams);
    expect(b.backed, b.why).toBe(true);
    expect(b.why).toMatch(/first ProbeRTT drain .* at (9|1[0-4])\.\d s/);
    const first8 = classifyFlow({ ...toSeries(truncateEntry(e, 8)), transport: 'tcp' }, shippedModel());
    // The shape alone may already look like BBR; the version is not shown yet.
    expect(first8.label).not.toBe('BBRv1');
    if (first8.kind === 'unknown' && /learned shape says BBRv1/.test(first8.reason)) {
      expect(first8.reason).toMatch(/^BBR-like, version not shown: .*no ProbeRTT drain to 4 packets/);
    }
  });

  it('before its first ProbeRTT the shape says BBRv1 and the verdict says so without naming a version (nebby-50: measured)', () => {
    const reasons = kernelBbr.map((e) => classifyFlow({ ...toSeries(truncateEntry(e, 8)), transport: 'tcp' }, shippedModel()).reason);
    expect(reasons.filter((r) => r.startsWith('BBR-like, version not shown: the learned shape says BBRv1')).length, reasons.join('\n')).toBeGreaterThanOrEqual(1);
  });

  it('the same flow as QUIC is not held to the TCP drain (quinn\'s BBR drains otherwise)', () => {
    const e = kernelBbr[0];
    const first8 = classifyFlow({ ...toSeries(truncateEntry(e, 8)), transport: 'quic' }, shippedModel());
    expect(first8.reason).not.toMatch(/version not shown/);
  });
});
