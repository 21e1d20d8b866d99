/** QUIC frame walking (ACK ranges, ECN, in-flight rules), the key log parser and the TLS hello readers. */
import { describe, expect, it } from 'vitest';
import { inFlight, parseFrames, VarReader } from '../../../src/trace/quic/frames.js';
import { parseKeyLog } from '../../../src/trace/quic/keylog.js';
import { splitDatagram } from '../../../src/trace/quic/packet.js';
import { clientHelloRandom, CryptoStream } from '../../../src/trace/quic/tls.js';
import { ackFrame, cryptoFrame, streamFrame, varint } from './quic-builder.js';

const frames = (...parts: number[][]) => parseFrames(Uint8Array.from(parts.flat()));

describe('varints', () => {
  it('reads 1, 2, 4 and 8 byte encodings (RFC 9000 A.1 examples) and stops at the end', () => {
    const r = new VarReader(Buffer.from('c2197c5eff14e88c' + '9d7f3e7d' + '7bbd' + '25', 'hex'));
    expect(r.varint()).toBe(151288809941952652);
    expect(r.varint()).toBe(494878333);
    expect(r.varint()).toBe(15293);
    expect(r.varint()).toBe(37);
    expect(r.varint()).toBe(-1);
    expect(new VarReader(Uint8Array.from([0x40])).varint()).toBe(-1); // cut
    for (const v of [0, 63, 64, 16383, 16384, 2 ** 30 - 1, 2 ** 30, 2 ** 40]) expect(new VarReader(Uint8Array.from(varint(v))).varint()).toBe(v);
  });
});

describe('parseFrames', () => {
  it('reads ACK ranges largest first (gap encoding) and ECN counts', () => {
    const f = frames(ackFrame([[95, 100], [80, 90], [3, 3]], 1234, [10, 0, 2]));
    expect(f.acks).toEqual([{ largest: 100, delay: 1234, ranges: [{ lo: 95, hi: 100 }, { lo: 80, hi: 90 }, { lo: 3, hi: 3 }], ecn: { ect0: 10, ect1: 0, ce: 2 } }]);
    expect(f.ackEliciting).toBe(false);
    expect(inFlight(f)).toBe(false);
    expect(f.complete).toBe(true);
  });

  it('an ACK-only packet is not in flight, ACK + PADDING is, PING is ack-eliciting', () => {
    expect(inFlight(frames(ackFrame([[0, 4]])))).toBe(false);
    const padded = frames(ackFrame([[0, 4]]), [0, 0, 0, 0]);
    expect(padded.padding && inFlight(padded)).toBe(true);
    expect(padded.ackEliciting).toBe(false);
    expect(frames([0x01]).ackEliciting).toBe(true);
  });

  it('CONNECTION_CLOSE is neither ack-eliciting nor in flight', () => {
    const f = frames(ackFrame([[0, 1]]), [0x1c, 0x00, 0x00, 0x03, 0x61, 0x62, 0x63], [0x1d, 0x01, 0x00]);
    expect(f).toMatchObject({ close: true, ackEliciting: false, complete: true });
    expect(inFlight(f)).toBe(false);
  });

  it('walks STREAM, CRYPTO, MAX_DATA, NEW_CONNECTION_ID, HANDSHAKE_DONE, DATAGRAM', () => {
    const ncid = [0x18, 0x01, 0x00, 0x08, ...new Array(8).fill(9), ...new Array(16).fill(1)];
    const f = frames(ackFrame([[0, 0]]), [0x10, 0x44, 0x00], ncid, [0x1e], cryptoFrame(5, [1, 2, 3]), [0x31, 0x02, 7, 7], streamFrame(10));
    expect(f.types).toEqual([0x02, 0x10, 0x18, 0x1e, 0x06, 0x31, 0x0a]);
    expect(f.crypto).toEqual([{ offset: 5, data: Uint8Array.from([1, 2, 3]) }]);
    expect(f).toMatchObject({ complete: true, ackEliciting: true });
    // STREAM without a length runs to the end of the packet.
    expect(frames([0x08, 0x00, 1, 2, 3, 4]).complete).toBe(true);
  });

  it('a payload cut by the snaplen ends the walk without throwing, keeping what was read', () => {
    const whole = [...ackFrame([[10, 20]]), ...streamFrame(500)];
    const f = parseFrames(Uint8Array.from(whole.slice(0, 30)));
    expect(f.complete).toBe(false);
    expect(f.acks).toHaveLength(1);
    expect(f.ackEliciting).toBe(true);
    const onlyAck = parseFrames(Uint8Array.from(ackFrame([[10, 20], [1, 5]]).slice(0, 4)));
    expect(onlyAck).toMatchObject({ complete: false, acks: [] });
  });

  it('an ACK frame cut by the snaplen keeps the ranges read before the cut (the newest), marked truncated', () => {
    // Clients list ranges from the largest down; under heavy loss the frame outgrows a 128-byte
    // capture. Dropping it lost the ACK (quinn-bbr on nebby-100: 12 ACKs in one run).
    const whole = ackFrame([[95, 100], [80, 90], [60, 70], [3, 3]], 7, [1, 2, 3]);
    const cut = parseFrames(Uint8Array.from(whole.slice(0, 9))); // type, largest, delay, count, first, gap+len, gap+len(partial)
    expect(cut.acks).toEqual([{ largest: 100, delay: 7, ranges: [{ lo: 95, hi: 100 }, { lo: 80, hi: 90 }], truncated: true }]);
    expect(cut.complete).toBe(false);
    // All ranges read, ECN counts cut: the ranges are whole.
    const ecnCut = parseFrames(Uint8Array.from(whole.slice(0, whole.length - 1)));
    expect(ecnCut.acks[0]).toMatchObject({ ranges: [{ lo: 95, hi: 100 }, { lo: 80, hi: 90 }, { lo: 60, hi: 70 }, { lo: 3, hi: 3 }], truncated: true });
    expect(ecnCut.acks[0].ecn).toBeUndefined();
  });

  it('unknown frame types stop the walk and count as ack-eliciting; impossible ranges are malformed', () => {
    expect(frames([0x40, 0x70])).toMatchObject({ unknownType: 0x70, ackEliciting: true, complete: false });
    const bad = frames([0x02, 5, 0, 1, 2, 10, 0]); // second range below packet 0
    expect(bad.malformed).toMatch(/below packet 0/);
  });
});

describe('parseKeyLog', () => {
  it('keeps the four QUIC secrets per client random, skips other labels, counts bad lines', () => {
    const r = 'ab'.repeat(32);
    const log = parseKeyLog([
      '# comment', '',
      `CLIENT_HANDSHAKE_TRAFFIC_SECRET ${r} ${'01'.repeat(32)}`,
      `SERVER_HANDSHAKE_TRAFFIC_SECRET ${r.toUpperCase()} ${'02'.repeat(32)}`,
      `CLIENT_TRAFFIC_SECRET_0 ${r} ${'03'.repeat(48)}`,
      `SERVER_TRAFFIC_SECRET_0 ${r} ${'04'.repeat(48)}`,
      `EXPORTER_SECRET ${r} ${'05'.repeat(32)}`,
      'CLIENT_RANDOM nothex zz',
    ].join('\r\n'));
    expect(log.badLines).toBe(1);
    const s = log.byRandom.get(r)!;
    expect(s.clientHandshake![0]).toBe(1);
    expect(s.serverHandshake![0]).toBe(2);
    expect(s.client0!.length).toBe(48);
    expect(s.server0![0]).toBe(4);
  });
});

describe('coalesced datagrams and the ClientHello random', () => {
  it('splits long-header packets by Length and treats trailing zeros as padding', () => {
    const initial = [0xc0, 0, 0, 0, 1, 0, 1, 0xaa, 0, 0x40, 20, ...new Array(20).fill(1)];
    const handshake = [0xe0, 0, 0, 0, 1, 0, 1, 0xaa, 0x40, 20, ...new Array(20).fill(2)];
    const dgram = Uint8Array.from([...initial, ...handshake, ...new Array(30).fill(0)]);
    const s = splitDatagram(dgram, dgram.length, 0);
    expect(s.packets.map((p) => [p.type, p.start, p.length])).toEqual([['initial', 0, 31], ['handshake', 31, 30]]);
    expect(s.trailingPadding).toBe(30);
    // Cut after the first packet: the rest is opaque (size known, header not).
    const cut = splitDatagram(dgram.subarray(0, 36), dgram.length, 0); // first byte + version captured
    expect(cut.packets).toHaveLength(1);
    expect(cut.opaqueTail).toBe(60);
    expect(cut.opaqueType).toBe('handshake');
  });

  it('reassembles the ClientHello random from out-of-order CRYPTO pieces, and not from a gap', () => {
    const hello = [1, 0, 1, 0, 3, 3, ...Array.from({ length: 32 }, (_, i) => i)];
    const s = new CryptoStream();
    s.add(20, Uint8Array.from(hello.slice(20)));
    expect(clientHelloRandom(s)).toBeUndefined();
    s.add(0, Uint8Array.from(hello.slice(0, 20)));
    expect(clientHelloRandom(s)).toBe(Buffer.from(hello.slice(6, 38)).toString('hex'));
  });
});
