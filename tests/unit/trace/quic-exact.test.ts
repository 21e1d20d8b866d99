/**
 * Exact QUIC BiF: the RFC 9002 replay on a hand-built event sequence, a whole synthetic
 * connection through traceBuffer (real AEAD and header protection, a key log, key updates),
 * and a property test: corrupted or truncated packets never throw, they fall back with a reason.
 */
import { describe, expect, it } from 'vitest';
import { parseKeyLog } from '../../../src/trace/quic/keylog.js';
import { quicExactBif, type QuicDatagram } from '../../../src/trace/quic/index.js';
import { RecoveryFlag, SenderRecovery } from '../../../src/trace/quic/recovery.js';
import { nextGeneration } from '../../../src/trace/quic/crypto.js';
import { traceBuffer } from '../../../src/trace/trace.js';
import { ConnectionBuilder, type Dgram } from './quic-builder.js';
import { udpFrame, writePcap } from './pcap-writer.js';

const ack = (...ranges: Array<[number, number]>) => ({ largest: ranges[0][1], delay: 0, ranges: ranges.map(([lo, hi]) => ({ lo, hi })) });
const last = (r: SenderRecovery) => {
  const s = r.finish();
  return s.bif[s.bif.length - 1];
};

describe('SenderRecovery (RFC 9002 accounting)', () => {
  it('adds in-flight packets, ignores ACK-only ones, removes what an ACK acknowledges', () => {
    const r = new SenderRecovery();
    r.onSent(0, 2, 0, 1000, true, true);
    r.onSent(0.001, 2, 1, 1000, true, true);
    r.onSent(0.002, 2, 2, 50, false, false); // ACK-only: not in flight
    expect(last(r)).toBe(2000);
    r.onAck(0.1, 2, ack([0, 0]));
    expect(last(r)).toBe(1000);
    const s = r.finish();
    expect(s.stats.rttSamples[0]).toBeCloseTo(0.1, 9);
    expect(Array.from(s.flags.slice(0, 3), (f) => f & RecoveryFlag.dataSend)).toEqual([16, 16, 16]);
    expect(s.atAck.bif[0]).toBe(1000);
  });

  it('declares loss by packet threshold (3) and keeps the at-ACK value from before it', () => {
    const r = new SenderRecovery();
    for (let pn = 0; pn < 6; pn++) r.onSent(pn * 0.001, 2, pn, 1000, true, true);
    r.onAck(0.1, 2, ack([4, 5], [0, 1])); // 2 and 3 missing; largest 5 >= 2 + 3 -> 2 lost, 3 not yet
    const s = r.finish();
    expect(s.atAck.bif[0]).toBe(2000); // 2 and 3 still counted when the ACK was processed
    expect(s.bif[s.bif.length - 1]).toBe(1000); // 2 declared lost
    expect(s.stats.lostByPacketThreshold).toBe(1);
    expect(s.flags[s.flags.length - 1] & RecoveryFlag.recovery).toBeTruthy();
  });

  it('counts a packet seen after a higher-numbered one of its space as reordered before the capture', () => {
    const r = new SenderRecovery();
    for (const [i, pn] of [0, 1, 3, 2, 4, 6, 5].entries()) r.onSent(i * 0.001, 2, pn, 1000, true, true);
    r.onSent(0.01, 2, 4, 1000, true, true); // a duplicate in the capture: neither sent twice nor reordered
    r.onSent(0.011, 1, 0, 500, true, true); // another space numbers from 0: not reordered
    r.onAck(0.1, 2, ack([0, 6]));
    r.onSent(0.101, 2, 5, 1000, true, true); // a duplicate of a packet already acknowledged: the same
    r.onSent(0.102, 2, 1_000_000, 1000, true, true, false); // a number that could not be read: no new largest
    r.onSent(0.103, 2, 7, 1000, true, true);
    const s = r.finish();
    expect(s.stats.reorderedPackets).toBe(2);
    expect(s.stats.sentPackets).toBe(10);
  });

  it('declares loss by time (9/8 x RTT) when the loss timer fires between packets', () => {
    const r = new SenderRecovery();
    r.onSent(0, 2, 0, 1000, true, true);
    r.onSent(0.001, 2, 1, 1000, true, true);
    r.onAck(0.1, 2, ack([1, 1])); // RTT 0.099: pn 0 is below the largest, its timer is armed
    expect(last(r)).toBe(1000);
    r.onSent(0.2, 2, 2, 1000, true, true); // the timer (0 + 9/8 x 0.099 = 0.111) fired before this
    const s = r.finish();
    expect(s.stats.lostByTime).toBe(1);
    const timer = s.flags.findIndex((f) => (f & RecoveryFlag.lossTimer) !== 0);
    expect(s.t[timer]).toBeCloseTo(0.111375, 6);
    expect(s.bif[timer]).toBe(0);
    expect(s.bif[s.bif.length - 1]).toBe(1000);
  });

  it('the server-to-capture round trip ages packets as the server sees them', () => {
    // Same ACK, but with 20 ms between server and capture the sample is 20 ms longer and the
    // loss timer is due 20 ms earlier on the capture clock.
    const r = new SenderRecovery({ senderPathRttSeconds: 0.02 });
    r.onSent(0, 2, 0, 1000, true, true);
    r.onSent(0.001, 2, 1, 1000, true, true);
    r.onAck(0.1, 2, ack([1, 1]));
    r.onSent(0.2, 2, 2, 1000, true, true);
    const s = r.finish();
    expect(s.stats.rttSamples[0]).toBeCloseTo(0.119, 9);
    expect(s.t[s.flags.findIndex((f) => (f & RecoveryFlag.lossTimer) !== 0)]).toBeCloseTo((9 / 8) * 0.119 - 0.02, 6);
  });

  it('at-ACK values hold the packets the server sent before it processed the ACK (seen up to d after it)', () => {
    // d = 20 ms: the ACK seen at 0.100 reaches the server's recovery at sent-clock 0.120, so the
    // packets seen at 0.105 and 0.115 had left before it (quinn's bytes_in_flight_at_ack counts
    // them); the one at 0.125 left after. The series itself keeps the capture's order.
    const r = new SenderRecovery({ senderPathRttSeconds: 0.02 });
    r.onSent(0, 2, 0, 1000, true, true);
    r.onSent(0.001, 2, 1, 1000, true, true);
    r.onAck(0.1, 2, ack([0, 0]));
    r.onSent(0.105, 2, 2, 1000, true, true);
    r.onSent(0.115, 2, 3, 50, false, false); // ACK-only: not in flight, not added
    r.onSent(0.115, 2, 4, 1000, true, true);
    r.onSent(0.125, 2, 5, 1000, true, true);
    r.onAck(0.13, 2, ack([1, 2]));
    const s = r.finish();
    expect(Array.from(s.atAck.bif)).toEqual([3000, 2000]); // 1, 2, 4 | 4, 5
    expect(s.bif[2]).toBe(1000); // right after the first ACK in capture order
  });

  it('keeps packet-number spaces apart and drops a discarded space from flight', () => {
    const r = new SenderRecovery();
    r.onSent(0, 0, 0, 1200, true, true); // Initial pn 0
    r.onSent(0, 1, 0, 800, true, true); // Handshake pn 0
    r.onSent(0, 2, 0, 500, true, true); // 1-RTT pn 0
    r.onAck(0.1, 2, ack([0, 0])); // acks 1-RTT pn 0 only
    expect(last(r)).toBe(2000);
    r.discard(0.1, 0);
    expect(last(r)).toBe(800);
    r.onAck(0.11, 0, ack([0, 0])); // late ACK in a discarded space: ignored
    r.discard(0.12, 1);
    expect(last(r)).toBe(0);
    expect(r.finish().stats.discardedBytes).toBe(2000);
  });

  it('ack delay (x 2^3 us, capped at max_ack_delay) is subtracted from the smoothed RTT only', () => {
    const r = new SenderRecovery();
    for (let pn = 0; pn < 3; pn++) r.onSent(pn, 2, pn, 1000, true, true);
    r.onAck(0.1, 2, ack([0, 0]));
    r.onAck(1.2, 2, { largest: 1, delay: 2500, ranges: [{ lo: 1, hi: 1 }] }); // 20 ms delay, sample 0.2
    const s = r.finish();
    expect(s.stats.rttSamples).toEqual([0.1, expect.closeTo(0.2, 9)]);
    expect(s.stats.smoothedRtt).toBeCloseTo(0.875 * 0.1 + 0.125 * 0.18, 9);
  });
});

/** Datagrams -> pcap (Ethernet/IPv4/UDP), cut to a snaplen like the capture point's. */
function pcapOf(dgrams: Dgram[], snap = 128): Uint8Array {
  const client = { ip: '10.203.1.2', port: 50000 };
  const server = { ip: '10.203.128.25', port: 443 };
  return writePcap(dgrams.map((d) => {
    const [a, b] = d.fromServer ? [server, client] : [client, server];
    return { time: 1000 + d.t, ...udpFrame({ src: a.ip, dst: b.ip, sport: a.port, dport: b.port, payload: d.data, payloadLen: d.data.length }, { snaplen: snap }) };
  }));
}

function scripted(): ConnectionBuilder {
  const c = new ConnectionBuilder().handshake(0, 0.1);
  let t = 0.2;
  for (let pn = 0; pn < 10; pn++) c.serverData((t += 0.001), pn);
  c.clientAck(0.3, 0, [[0, 3]]); // 4 acked
  c.clientAck(0.31, 1, [[5, 9], [0, 3]]); // 5-9 acked; 4 lost (largest 9 >= 4 + 3)
  c.serverData(0.32, 10).serverData(0.321, 11);
  return c;
}

describe('exact BiF through traceBuffer', () => {
  it('decrypts a whole connection at snaplen 128 and replays the server accounting', () => {
    const c = scripted();
    const pcap = pcapOf(c.dgrams);
    const r = traceBuffer(pcap, 'synthetic.pcap', { clientIps: ['10.203.1.2'] }, c.keylog());
    const f = r.flows.find((x) => x.kind === 'quic')!;
    expect(f.bifMethod).toBe('quic-keylog-exact');
    expect(f.quic!.exact).toMatchObject({ version: '0x00000001', suite: 'TLS_AES_128_GCM_SHA256', matchedBy: 'client-hello', lostPackets: 1, lostByPacketThreshold: 1 });
    const bif = Array.from(f.series!.bif);
    expect(Math.max(...bif)).toBeGreaterThan(10 * 1000);
    // After the second ACK: 10 and 11 in flight (server 1-RTT packets are 1000 B of STREAM + overhead).
    const pkt = bif[bif.length - 1] / 2;
    expect(pkt).toBeGreaterThan(1000);
    expect(pkt).toBeLessThan(1040);
    expect(f.rtt.method).toBe('quic-ack');
    // Without the key log: the heuristic, unchanged.
    expect(traceBuffer(pcap, 'synthetic.pcap', { clientIps: ['10.203.1.2'] }).flows.find((x) => x.kind === 'quic')!.bifMethod).toBe('quic-nebby-heuristic');
  });

  it('finds the secrets by trial decryption when the ClientHello random is cut off (50 bytes of UDP payload)', () => {
    const c = scripted();
    const r = traceBuffer(pcapOf(c.dgrams, 92), 'cut.pcap', { clientIps: ['10.203.1.2'] }, c.keylog() + new ConnectionBuilder().keylog());
    const f = r.flows.find((x) => x.kind === 'quic')!;
    expect(f.bifMethod).toBe('quic-keylog-exact');
    expect(f.quic!.exact!.matchedBy).toBe('trial-decryption');
  });

  it('follows key updates (key phase bit, "quic ku") in both directions', () => {
    const c = new ConnectionBuilder().handshake(0, 0.1);
    const s1 = nextGeneration(c.keys.s0);
    const c1 = nextGeneration(c.keys.c0);
    c.serverData(0.2, 0).serverData(0.201, 1);
    c.clientAck(0.3, 0, [[0, 1]]);
    c.serverData(0.31, 2, 1000, 1, s1).serverData(0.311, 3, 1000, 1, s1);
    c.clientAck(0.4, 1, [[0, 3]], 0, 1, c1);
    const r = traceBuffer(pcapOf(c.dgrams), 'ku.pcap', { clientIps: ['10.203.1.2'] }, c.keylog());
    const f = r.flows.find((x) => x.kind === 'quic')!;
    expect(f.bifMethod).toBe('quic-keylog-exact');
    expect(f.quic!.exact!.keyUpdates).toEqual({ client: 1, server: 1 });
    expect(f.series!.bif[f.series!.bif.length - 1]).toBe(0);
  });

  it('falls back to the heuristic with a reason when the key log does not hold the connection', () => {
    const c = scripted();
    const r = traceBuffer(pcapOf(c.dgrams), 'other.pcap', { clientIps: ['10.203.1.2'] }, new ConnectionBuilder().keylog());
    const f = r.flows.find((x) => x.kind === 'quic')!;
    expect(f.bifMethod).toBe('quic-nebby-heuristic');
    expect(f.quic!.fallbackReason).toMatch(/not in the key log/);
    expect(r.warnings.join('\n')).toMatch(/without exact BiF/);
  });
});

/** Small deterministic PRNG for the property test. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('property: damaged packets never throw', () => {
  const c = scripted();
  const keylog = parseKeyLog(c.keylog());
  const base: QuicDatagram[] = c.dgrams.map((d) => ({ t: d.t, fromServer: d.fromServer, data: Uint8Array.from(d.data), wireLen: d.data.length }));

  it('500 random corruptions and truncations: a result or a labelled fallback, never an exception', () => {
    const rand = rng(42);
    let exact = 0;
    let fallback = 0;
    for (let round = 0; round < 500; round++) {
      const dgrams = base.map((d) => ({ ...d, data: Uint8Array.from(d.data) }));
      const hits = 1 + Math.floor(rand() * 4);
      for (let h = 0; h < hits; h++) {
        const d = dgrams[Math.floor(rand() * dgrams.length)];
        const mode = rand();
        if (mode < 0.4 && d.data.length) d.data[Math.floor(rand() * d.data.length)] ^= 1 << Math.floor(rand() * 8);
        else if (mode < 0.7) d.data = d.data.subarray(0, Math.floor(rand() * d.data.length)); // snaplen anywhere
        else if (mode < 0.85) d.wireLen = Math.floor(rand() * 3000); // a lying length
        else d.data = Uint8Array.from({ length: Math.floor(rand() * 80) }, () => Math.floor(rand() * 256));
      }
      const out = quicExactBif(dgrams, keylog);
      if (typeof out === 'string') {
        expect(out.length).toBeGreaterThan(0);
        expect(out).not.toMatch(/exact decoding failed/); // that label means a bug was caught
        fallback++;
      } else {
        expect(out.series.t.length).toBe(out.series.bif.length);
        for (const v of out.series.bif) expect(Number.isFinite(v)).toBe(true);
        exact++;
      }
    }
    expect(exact + fallback).toBe(500);
    expect(exact).toBeGreaterThan(0);
    expect(fallback).toBeGreaterThan(0);
  });
});
