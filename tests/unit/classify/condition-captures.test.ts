/**
 * Small committed captures of the conditions the grid varies (issue 16), each with what the
 * capture must read of its own path and the verdict it must (or must not) get from the shipped
 * model. Probed through the lab (tests/fixtures/condition-captures/README.md has how):
 * - sack-off-*: SACK off at the bottleneck (nebby-50), the path real web servers were read through;
 * - lossy-*: 1% random loss on the server-side path (30 ms), before the capture point;
 * - reord-*: 5 ms jitter that reorders, on the server-side path (20 ms);
 * - reord-quic-cubic: aioquic CUBIC behind `video` with 5 ms jitter that reorders (the grid's
 *   `video-jit`), with its key log, cut to 14 s: read NewReno at 0.81 before QUIC reordering was
 *   measured (its whole flows: 1.00).
 * TCP headers only (96-byte snap), gzipped; the QUIC capture 128 bytes, its first 14 s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyCapture, type ClassifiedFlowRow } from '../../../src/cli/classifyCapture.js';
import { SHIPPED_MODEL_PATH } from './shippedModel.js';
import { unpackConditionCaptures } from './conditionCaptures.js';

const NON_ANSWERS = ['Unknown', 'Short flow', 'Application-limited'];
const TRUTH: Record<string, string> = { cubic: 'CUBIC', reno: 'NewReno', bbr: 'BBRv1' };

describe('committed condition captures', () => {
  const bulk = new Map<string, ClassifiedFlowRow>();

  beforeAll(async () => {
    for (const [name, dir] of unpackConditionCaptures()) {
      const r = await classifyCapture(dir, { model: SHIPPED_MODEL_PATH });
      // The probe's one bulk download (the rest are the TLS opening's small flows, if any).
      bulk.set(name, r.flows.reduce((a, b) => (b.bytes > a.bytes ? b : a)));
    }
  }, 120_000);

  const truthOf = (name: string) => TRUTH[name.split('-').at(-1)!]!;

  it('holds the eight captures, each one bulk flow of 400 kB or more (TCP, and one QUIC)', () => {
    expect([...bulk.keys()]).toEqual(['lossy-bbr', 'lossy-cubic', 'lossy-reno', 'reord-bbr', 'reord-cubic', 'reord-quic-cubic', 'sack-off-cubic', 'sack-off-reno']);
    for (const [name, f] of bulk) {
      expect(f.protocol, name).toBe(name.includes('quic') ? 'quic' : 'tcp');
      expect(f.bytes, name).toBeGreaterThan(400_000);
    }
  });

  it('QUIC reordering, read from packet numbers, puts the flow outside the trained conditions instead of reading the spurious losses as back-offs', () => {
    const f = bulk.get('reord-quic-cubic')!;
    expect(f.conditions!.reorderShare!).toBeGreaterThan(0.1);
    expect(f.insideTrained).toBe(false);
    expect(f.verdict).toBe('Unknown');
    expect(f.reason).toMatch(/reordering \d+\.\d% of packets/);
  });

  it('each capture reads its own condition: SACK off, loss before the capture point, reordering', () => {
    for (const [name, f] of bulk) {
      const c = f.conditions!;
      expect(c.sack, name).toBe(!name.startsWith('sack-off'));
      // 1% configured; the rest lose nothing upstream.
      if (name.startsWith('lossy')) expect(c.upstreamLossShare!, name).toBeGreaterThan(0.004);
      else expect(c.upstreamLossShare ?? 0, name).toBeLessThan(0.002);
      // The paced BBR flow is reordered far less than CUBIC's bursts (0.9% vs 17% measured).
      if (name.startsWith('reord')) expect(c.reorderShare!, name).toBeGreaterThan(0.003);
      else expect(c.reorderShare ?? 0, name).toBeLessThan(0.002);
    }
  });

  it('no capture gets a confident wrong label', () => {
    const wrong = [...bulk].filter(([name, f]) => !NON_ANSWERS.includes(f.verdict) && f.verdict !== truthOf(name) && f.confidence >= 0.7);
    expect(wrong.map(([name, f]) => `${name}: ${f.verdict} ${f.confidence.toFixed(2)}`)).toEqual([]);
  });

  it('loss or go-back-N never reads as a loss-agnostic BBR: the CUBIC and Reno captures are never named BBRv1', () => {
    for (const [name, f] of bulk) if (!name.endsWith('bbr')) expect(`${name}: ${f.verdict}`).not.toBe(`${name}: BBRv1`);
  });

  it('an Unknown says why (outside the trained conditions names the axis; otherwise the shape)', () => {
    for (const [name, f] of bulk) {
      if (f.verdict !== 'Unknown') continue;
      expect(f.reason.length, name).toBeGreaterThan(10);
      if (f.insideTrained === false) expect(f.reason, name).toMatch(/conditions unlike any the model was trained under: .*(loss|reorder|SACK|segment|RTT|BDP|visible)/);
    }
  });
});
