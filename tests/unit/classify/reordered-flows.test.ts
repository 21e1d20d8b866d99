/**
 * Flows read through a reordered server-side path (session 51): committed traces
 * (tests/fixtures/lab-series/reordered.json.gz) of lab CUBIC, H-TCP, Scalable and Vegas under both
 * Nebby profiles 95 ms away with 3% of packets held 5 ms (round K's h-reord-95j1: these eight
 * 1.0-1.6% measured reordered), and BIC and H-TCP behind `video` 170 ms away with 3.5% held 3 ms
 * (round O's h-vrd-170j2, held out for the `video` reordering groups: 1.4-1.5%). Before the
 * reordering groups (labs/grid-reorder.ts) every one was Unknown: "reordering ... trained up to
 * 0.1%" (0.05%, rounded). These six
 * are named alike by the base groups once the envelope holds such flows (the envelope rows are what
 * admits them; the groups added 3 right answers in 136 held-out measurements).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { classifyEntries } from '../../../src/train/bench.js';
import { ENVELOPE_AXES } from '../../../src/classify/envelope.js';
import { shippedModel, withoutGroups } from './shippedModel.js';

const entries = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/reordered.json.gz', import.meta.url))).entries;

describe('flows through a reordered path', () => {
  it('measure their reordering: 1-2% of packets, above what the reordering groups need (0.2%)', () => {
    expect(entries.length).toBe(10);
    for (const e of entries) {
      const share = toSeries(e).conditions!.reorderShare!;
      expect(share, `${e.origin} ${e.profile}`).toBeGreaterThan(0.01);
      expect(share, `${e.origin} ${e.profile}`).toBeLessThan(0.02);
    }
  });

  it('are named right by the shipped model, both profiles fused and `video` alone', () => {
    const { measurements } = classifyEntries(entries, shippedModel());
    expect(measurements.length).toBe(6);
    for (const m of measurements) expect(`${m.origin} ${m.region}: ${m.predicted}`).toBe(`${m.origin} ${m.region}: ${m.truth}`);
  });

  it('were outside the model before its reordering rounds: without their groups and envelope rows, each is Unknown for its reordering', () => {
    const m = withoutGroups(shippedModel(), /\.rdv?\d+$/);
    const at = ENVELOPE_AXES.findIndex((a) => a.name === 'reordering');
    const unreordered = (rows: Array<Array<number | null>>) => rows.filter((r) => (r[at] ?? 0) < 0.002);
    const before = { ...m, envelope: { ...m.envelope!, tcp: unreordered(m.envelope!.tcp), quic: unreordered(m.envelope!.quic) } };
    const { traces } = classifyEntries(entries, before);
    for (const t of traces) expect(`${t.origin} ${t.profile}: ${t.predicted} ${t.reason}`).toMatch(/: Unknown .*reordering \d\.\d% of packets/);
  });
});
