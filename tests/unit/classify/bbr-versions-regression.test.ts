/**
 * Regression on a fresh lab round never trained or tuned on (labs/bbr-versions.ts, 2026-11-26:
 * kernel BBR, the lab's BBRv2/v3, Copa and the open-set Hybla, 2 runs each at 10 ms and at 60 ms
 * with 1 ms jitter, both Nebby profiles; docs/benchmarks/classifier.md). Before BBRv1 needed its
 * own signature the shipped model named BBRv2 and Hybla (twice) BBRv1 here, all confidently.
 * Since the model has BBRv2/v3, Copa and AkamaiCC-like classes (session 31, quiet-host rounds at
 * 10 ms only), it named a 60 ms BBRv3 BBRv2 at 0.94 from nebby-100 alone until a BBR version
 * needed every profile inside the trained conditions (fusion.ts versionDoubt).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { DatasetEntry } from '../../../src/train/dataset.js';
import { classifyEntries } from '../../../src/train/bench.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/bbr-versions.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const NON_ANSWERS = ['Unknown', 'Short flow', 'Application-limited'];

describe('shipped model on the BBR-versions round', () => {
  const { measurements } = classifyEntries(entries, shippedModel());

  it('holds 4 measurements of each of the five controllers', () => {
    expect(measurements).toHaveLength(20);
  });

  it('never names another controller: not BBRv1 for BBRv2/v3, Copa or Hybla, nor one BBR version for another (measured: 0 wrong of 20)', () => {
    const wrong = measurements.filter((m) => m.predicted !== m.truth && !NON_ANSWERS.includes(m.predicted));
    expect(wrong.map((m) => `${m.truth} (${m.region}) -> ${m.predicted} ${m.confidence}`)).toEqual([]);
  });

  it('still names kernel BBR at 10 ms BBRv1 (2 of 2): its ProbeRTT drains show', () => {
    const near = measurements.filter((m) => m.truth === 'BBRv1' && m.region === 'near');
    expect(near.map((m) => m.predicted)).toEqual(['BBRv1', 'BBRv1']);
  });
});
