/**
 * QUIC's round trip beyond the capture point from the server's ACK frames (trace/quic/server-rtt.ts).
 * Hand-built packets for the rule, and a committed lab capture 60 ms beyond the capture point
 * (tests/fixtures/quic-keylog/quinn-cubic-60ms: the first 4 s of a quinn CUBIC probe, session 49),
 * where pairing datagrams without keys read 17 ms for the whole flow.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecodedPacket } from '../../../src/trace/quic/decoder.js';
import type { FrameSummary } from '../../../src/trace/quic/frames.js';
import { serverSideRttFromAcks } from '../../../src/trace/quic/server-rtt.js';
import { traceFile } from '../../../src/trace/trace.js';

const frames = (largest: number[]): FrameSummary => ({
  ackEliciting: true, padding: false, close: false, crypto: [], types: [], complete: true,
  acks: largest.map((l) => ({ largest: l, delay: 0, ranges: [{ lo: 0, hi: l }] })),
});
const client = (t: number, pn: number, extra: Partial<DecodedPacket> = {}): DecodedPacket =>
  ({ datagram: 0, t, fromServer: false, type: 'short', space: 2, pn, size: 50, verified: true, guessed: false, ...extra });
const server = (t: number, acked: number[], extra: Partial<DecodedPacket> = {}): DecodedPacket =>
  ({ datagram: 0, t, fromServer: true, type: 'short', space: 2, pn: 0, size: 1200, verified: true, guessed: false, frames: frames(acked), ...extra });

describe('serverSideRttFromAcks', () => {
  it('is the shortest wait from a client packet to the first ACK whose largest acknowledged it is', () => {
    expect(serverSideRttFromAcks([client(0, 0), client(0.5, 1), server(0.08, [0]), server(0.562, [1])])).toBeCloseTo(0.062, 9);
  });

  it('takes no sample from an ACK that acknowledges nothing newer (a repeat is not a reply)', () => {
    expect(serverSideRttFromAcks([client(0, 0), server(0.07, [0]), client(0.5, 1), server(0.501, [0])])).toBeCloseTo(0.07, 9);
  });

  it('keeps the spaces apart, and skips packets whose number was guessed or that it cannot read', () => {
    const handshake = { type: 'handshake' as const, space: 1 as const };
    expect(serverSideRttFromAcks([client(0, 0, handshake), client(0.01, 0), server(0.02, [0])])).toBeCloseTo(0.01, 9);
    expect(serverSideRttFromAcks([client(0, 0, { guessed: true }), server(0.002, [0])])).toBeNull();
    expect(serverSideRttFromAcks([client(0, 0), server(0.002, [0], { frames: undefined })])).toBeNull();
    expect(serverSideRttFromAcks([client(0, 0, { problem: 'tag-mismatch' }), server(0.002, [0])])).toBeNull();
    expect(serverSideRttFromAcks([])).toBeNull();
  });

  it('ignores an ACK of a packet number no client packet reached, which blocks no later sample', () => {
    // A garbage ACK (an unverified packet cut by the snaplen) of packet 2^40 must not raise the bar.
    expect(serverSideRttFromAcks([client(0, 0), server(0.001, [2 ** 40]), server(0.065, [0])])).toBeCloseTo(0.065, 9);
  });
});

describe('a lab QUIC flow 60 ms beyond the capture point', () => {
  const dir = join(import.meta.dirname, '../../fixtures/quic-keylog/quinn-cubic-60ms');

  it('with its key log reads the 60 ms, and the capture sees half the round trip', async () => {
    const r = await traceFile(join(dir, 'capture.pcap'), { keylog: join(dir, 'keylog.txt') });
    const f = r.flows.filter((x) => x.kind === 'quic').sort((a, b) => b.toClient.payloadBytes - a.toClient.payloadBytes)[0];
    expect(f.bifMethod).toBe('quic-keylog-exact');
    expect(f.conditions?.serverSideRttSeconds).toBeGreaterThan(0.058);
    expect(f.conditions?.serverSideRttSeconds).toBeLessThan(0.066);
    // The bottleneck's 30 ms each way in front of the client, 60 ms beyond: about half.
    expect(f.conditions?.visibleShare).toBeGreaterThan(0.45);
    expect(f.conditions?.visibleShare).toBeLessThan(0.55);
  });
});
