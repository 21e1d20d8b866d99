/**
 * Exact QUIC BiF on committed lab captures (tests/fixtures/quic-keylog/: /bytes/60000 HTTP/3
 * probes from labs/train.ts, region near, nebby-50, recorded 2026-11-22 with Chromium 156, the
 * capture at snaplen 128 plus the run's keylog.txt; ground truth trimmed to the fields the
 * validation reads). Runs without the lab.
 *
 * Measured when recorded (docs/benchmarks/bif-accuracy.md has the full benchmark):
 *   aioquic-reno, bytes_in_flight: exact 97.1% within 5% (counter alignment), 81.7% (time
 *     alignment); heuristic 1.0%.
 *   quinn-cubic, bytes_in_flight: exact 97.9% (counters), 92.5% (time); bytes_in_flight_at_ack:
 *     91.7% (counters), 89.2% (time); heuristic 0-2%.
 * The thresholds sit a little below, so a regression in decryption, the replay or the
 * alignment shows here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAccuracy } from '../../src/validate/run-dir.js';
import { traceFile } from '../../src/trace/index.js';

const dir = (n: string) => join(import.meta.dirname, '../fixtures/quic-keylog', n);

describe('exact QUIC BiF on lab fixtures (key log)', () => {
  it('aioquic-reno: decrypted at snaplen 128, matched to the key log, within 5% of aioquic\'s own counter', async () => {
    const r = await runAccuracy(dir('aioquic-reno-nebby-50'), { regionRttMs: 10, alignment: 'counters' });
    expect(r.bifMethod).toBe('quic-keylog-exact');
    expect(r.fallbackReason).toBeUndefined();
    expect(r.field).toBe('bytes_in_flight');
    expect(r.accuracy.samples).toBeGreaterThan(100);
    expect(r.accuracy.within).toBeGreaterThan(0.95);
    expect(r.accuracy.withinOneSegment).toBeGreaterThan(0.97);
    expect(r.accuracy.mape).toBe(0);
  });

  it('quinn-cubic: the replay tracks quinn\'s in-flight counters', async () => {
    const now = await runAccuracy(dir('quinn-cubic-nebby-50'), { regionRttMs: 10, alignment: 'counters', field: 'bytes_in_flight' });
    expect(now.bifMethod).toBe('quic-keylog-exact');
    expect(now.accuracy.samples).toBeGreaterThan(230);
    expect(now.accuracy.within).toBeGreaterThan(0.95);
    const atAck = await runAccuracy(dir('quinn-cubic-nebby-50'), { regionRttMs: 10, alignment: 'counters' });
    expect(atAck.field).toBe('bytes_in_flight_at_ack');
    expect(atAck.accuracy.within).toBeGreaterThan(0.88);
  });

  it('time alignment (fixed one-way delays) is less exact than the server\'s counters, but far above the heuristic', async () => {
    for (const [name, min] of [['aioquic-reno-nebby-50', 0.75], ['quinn-cubic-nebby-50', 0.85]] as const) {
      const exact = await runAccuracy(dir(name), { regionRttMs: 10, field: 'bytes_in_flight' });
      const counters = await runAccuracy(dir(name), { regionRttMs: 10, field: 'bytes_in_flight', alignment: 'counters' });
      const heuristic = await runAccuracy(dir(name), { regionRttMs: 10, field: 'bytes_in_flight', quic: 'heuristic' });
      expect(heuristic.bifMethod).toBe('quic-nebby-heuristic');
      expect(exact.accuracy.within).toBeGreaterThan(min);
      expect(counters.accuracy.within).toBeGreaterThan(exact.accuracy.within);
      expect(heuristic.accuracy.within).toBeLessThan(0.1);
    }
  });

  it('without the key log, replaying the nebby-50 bottleneck comes close to the exact replay, far above Nebby\'s heuristic', async () => {
    // Measured when added: aioquic-reno 97.1% / quinn-cubic 97.9% within 5% (counters), the same
    // as the exact replay on these two captures; heuristic 0-1%.
    for (const name of ['aioquic-reno-nebby-50', 'quinn-cubic-nebby-50']) {
      const model = await runAccuracy(dir(name), { regionRttMs: 10, field: 'bytes_in_flight', alignment: 'counters', quic: 'model' });
      const exact = await runAccuracy(dir(name), { regionRttMs: 10, field: 'bytes_in_flight', alignment: 'counters', quic: 'exact' });
      expect(model.bifMethod).toBe('quic-bottleneck-model');
      expect(model.accuracy.samples).toBeGreaterThan(100);
      expect(model.accuracy.within).toBeGreaterThan(0.93);
      expect(model.accuracy.within).toBeGreaterThan(exact.accuracy.within - 0.03);
    }
  });

  it('decrypts the same when the capture is read in many small chunks (payloads copied, not viewed)', async () => {
    // A 4 KB read buffer: every datagram's payload outlives several refills of the buffer.
    const whole = await traceFile(join(dir('aioquic-reno-nebby-50'), 'capture.pcap'), { keylog: join(dir('aioquic-reno-nebby-50'), 'keylog.txt') });
    const chunked = await traceFile(join(dir('aioquic-reno-nebby-50'), 'capture.pcap'), { keylog: join(dir('aioquic-reno-nebby-50'), 'keylog.txt'), chunkSize: 4096 });
    const quic = (r: typeof whole) => r.flows.find((f) => f.kind === 'quic')!;
    expect(quic(chunked).bifMethod).toBe('quic-keylog-exact');
    expect(quic(chunked).quic?.fallbackReason).toBeUndefined();
    expect(Array.from(quic(chunked).series!.bif)).toEqual(Array.from(quic(whole).series!.bif));
  });

  it('counts the server\'s losses from the replay (series.loss), and claims none without the key log', async () => {
    // Measured when written: aioquic-reno 24 replayed vs 23 by aioquic, quinn-cubic 14 vs 11
    // (quinn undoes some it later finds spurious); sent bytes within 1.4% of the server's.
    for (const n of ['aioquic-reno-nebby-50', 'quinn-cubic-nebby-50']) {
      const r = await traceFile(join(dir(n), 'capture.pcap'), { keylog: join(dir(n), 'keylog.txt') });
      const f = r.flows.filter((x) => x.kind === 'quic').sort((a, b) => b.toClient.payloadBytes - a.toClient.payloadBytes)[0];
      const truth = readFileSync(join(dir(n), 'ground-truth.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: number; lost_packets: number; udp_tx_bytes: number });
      const last = truth[truth.length - 1];
      expect(f.series?.loss?.lostBytes).toBe(f.quic?.exact?.lostBytes);
      expect(Math.abs(f.series!.loss!.sentBytes - last.udp_tx_bytes) / last.udp_tx_bytes).toBeLessThan(0.02);
      expect(Math.abs(f.quic!.exact!.lostPackets - last.lost_packets)).toBeLessThanOrEqual(Math.max(3, 0.3 * last.lost_packets));
      expect(last.lost_packets).toBeGreaterThan(5);
      // The half-second checkpoints follow the server's own counters through the flow (its
      // clock: from its first record). The capture sees a send a little after the server
      // counts it, so each checkpoint's sent bytes lie between the server's count a quarter
      // second earlier and at that time; losses as loosely as the totals above.
      const serverAt = (s: number) => truth.filter((x) => x.t <= truth[0].t + s).pop();
      const cps = f.series!.loss!.checkpoints!;
      expect(cps.length).toBeGreaterThanOrEqual(4);
      for (const [c, sent, lost] of cps) {
        expect(sent).toBeGreaterThanOrEqual(serverAt(c - 0.25)?.udp_tx_bytes ?? 0);
        expect(sent).toBeLessThanOrEqual(serverAt(c)!.udp_tx_bytes);
        expect(Math.abs(lost / 1200 - serverAt(c)!.lost_packets)).toBeLessThanOrEqual(Math.max(3, 0.4 * serverAt(c)!.lost_packets));
      }
      const blind = await traceFile(join(dir(n), 'capture.pcap'));
      const g = blind.flows.find((x) => x.kind === 'quic')!;
      expect(g.bifMethod).toBe('quic-nebby-heuristic');
      expect(g.series?.loss).toBeUndefined();
    }
  });
});
