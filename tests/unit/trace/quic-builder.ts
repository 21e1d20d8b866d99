/**
 * Builds real QUIC v1 packets for tests (protected with node:crypto exactly as a sender would:
 * AEAD over the payload, then header protection), and a whole connection's datagrams with a
 * matching key log. The decoder under test shares only the key derivation with this file.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { headerMask, initialSecrets, INITIAL_SUITE, nonceFor, packetKeys, QUIC_V1, SUITES, type PacketKeys } from '../../../src/trace/quic/crypto.js';

export function varint(v: number): number[] {
  if (v < 64) return [v];
  if (v < 16384) return [0x40 | (v >> 8), v & 255];
  if (v < 2 ** 30) return [0x80 | (v >>> 24), (v >> 16) & 255, (v >> 8) & 255, v & 255];
  const hi = Math.floor(v / 2 ** 32);
  return [0xc0 | (hi >>> 24), (hi >> 16) & 255, (hi >> 8) & 255, hi & 255, (v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** ACK frame (type 2) from ranges given largest-first as [lo, hi]. */
export function ackFrame(ranges: Array<[number, number]>, delay = 0, ecn?: [number, number, number]): number[] {
  const [lo0, hi0] = ranges[0];
  const out = [ecn ? 0x03 : 0x02, ...varint(hi0), ...varint(delay), ...varint(ranges.length - 1), ...varint(hi0 - lo0)];
  let smallest = lo0;
  for (const [lo, hi] of ranges.slice(1)) {
    out.push(...varint(smallest - hi - 2), ...varint(hi - lo));
    smallest = lo;
  }
  if (ecn) out.push(...varint(ecn[0]), ...varint(ecn[1]), ...varint(ecn[2]));
  return out;
}

export const streamFrame = (len: number): number[] => [0x0a, 0x00, ...varint(len), ...new Array(len).fill(0x78)];
export const cryptoFrame = (offset: number, data: number[]): number[] => [0x06, ...varint(offset), ...varint(data.length), ...data];

function aeadSeal(k: PacketKeys, pn: number, header: Uint8Array, payload: Uint8Array): Buffer {
  const nonce = nonceFor(k.iv, pn);
  const algo = k.suite.hp === 'chacha' ? 'chacha20-poly1305' : k.suite.keyLen === 16 ? 'aes-128-gcm' : 'aes-256-gcm';
  const c = createCipheriv(algo as 'aes-128-gcm', k.key, nonce, { authTagLength: 16 });
  c.setAAD(header);
  const body = Buffer.concat([c.update(payload), c.final()]);
  return Buffer.concat([body, c.getAuthTag()]);
}

/** Protects one packet: `header` ends with the packet number (pnLen bytes). */
export function protect(k: PacketKeys, header: number[], pnLen: number, pn: number, payload: number[]): Buffer {
  const hdr = Buffer.from(header);
  const sealed = aeadSeal(k, pn, hdr, Buffer.from(payload));
  const pkt = Buffer.concat([hdr, sealed]);
  const pnOffset = hdr.length - pnLen;
  const mask = headerMask(k, pkt.subarray(pnOffset + 4, pnOffset + 20));
  pkt[0] ^= mask[0] & ((pkt[0] & 0x80) ? 0x0f : 0x1f);
  for (let i = 0; i < pnLen; i++) pkt[pnOffset + i] ^= mask[1 + i];
  return pkt;
}

const pnBytes = (pn: number, len: number) => Array.from({ length: len }, (_, i) => (pn >> (8 * (len - 1 - i))) & 255);

/** Long header packet (Initial or Handshake), pn encoded in 2 bytes; payload padded to >= 20 bytes. */
export function longPacket(k: PacketKeys, type: 'initial' | 'handshake', dcid: number[], scid: number[], pn: number, payload: number[], padTo = 0): Buffer {
  const body = [...payload];
  while (body.length < Math.max(padTo, 20)) body.push(0);
  const length = 2 + body.length + 16;
  const header = [0xc0 | ((type === 'initial' ? 0 : 2) << 4) | 1, 0, 0, 0, 1, dcid.length, ...dcid, scid.length, ...scid,
    ...(type === 'initial' ? [0] : []), 0x40 | (length >> 8), length & 255, ...pnBytes(pn, 2)];
  return protect(k, header, 2, pn, body);
}

/** Short header packet, pn in 2 bytes, key phase bit as given. */
export function shortPacket(k: PacketKeys, dcid: number[], pn: number, payload: number[], keyPhase = 0): Buffer {
  const body = [...payload];
  while (body.length < 20) body.push(0);
  return protect(k, [0x41 | (keyPhase << 2), ...dcid, ...pnBytes(pn, 2)], 2, pn, body);
}

export interface Dgram {
  t: number;
  fromServer: boolean;
  data: Buffer;
}

/**
 * A small connection: Chromium-like (empty client CID, 8-byte server CID), AES-128-GCM, a
 * ClientHello with a known random, the server's Initial/Handshake flight, then 1-RTT data
 * from the server and ACKs from the client. `events` describe the 1-RTT part.
 */
export class ConnectionBuilder {
  readonly odcid = [0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08];
  readonly scid = [0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58];
  readonly random = randomBytes(32);
  readonly secrets = { ch: randomBytes(32), sh: randomBytes(32), c0: randomBytes(32), s0: randomBytes(32) };
  readonly dgrams: Dgram[] = [];
  readonly keys;
  constructor(readonly suiteId = 0x1301) {
    const init = initialSecrets(Uint8Array.from(this.odcid), QUIC_V1);
    const suite = SUITES[suiteId];
    this.keys = {
      ci: packetKeys(init.client, INITIAL_SUITE, QUIC_V1), si: packetKeys(init.server, INITIAL_SUITE, QUIC_V1),
      ch: packetKeys(this.secrets.ch, suite, QUIC_V1), sh: packetKeys(this.secrets.sh, suite, QUIC_V1),
      c0: packetKeys(this.secrets.c0, suite, QUIC_V1), s0: packetKeys(this.secrets.s0, suite, QUIC_V1),
    };
  }

  keylog(): string {
    const r = this.random.toString('hex');
    const s = this.secrets;
    return [`CLIENT_HANDSHAKE_TRAFFIC_SECRET ${r} ${s.ch.toString('hex')}`, `SERVER_HANDSHAKE_TRAFFIC_SECRET ${r} ${s.sh.toString('hex')}`,
      `CLIENT_TRAFFIC_SECRET_0 ${r} ${s.c0.toString('hex')}`, `SERVER_TRAFFIC_SECRET_0 ${r} ${s.s0.toString('hex')}`, ''].join('\n');
  }

  /** Client Initial (ClientHello), server Initial (ServerHello) + Handshake, client Handshake (Finished). */
  handshake(t0 = 0, rtt = 0.1): this {
    const hello = [0x01, 0x00, 0x01, 0x00, 0x03, 0x03, ...this.random, 0x00];
    this.dgrams.push({ t: t0, fromServer: false, data: longPacket(this.keys.ci, 'initial', this.odcid, [], 0, cryptoFrame(0, hello), 1162) });
    const sh = [0x02, 0x00, 0x00, 0x56, 0x03, 0x03, ...new Array(32).fill(7), 0x00, (this.suiteId >> 8) & 255, this.suiteId & 255, 0x00];
    const si = longPacket(this.keys.si, 'initial', [], this.scid, 0, [...ackFrame([[0, 0]]), ...cryptoFrame(0, sh)]);
    const hs = longPacket(this.keys.sh, 'handshake', [], this.scid, 0, cryptoFrame(0, new Array(200).fill(1)));
    this.dgrams.push({ t: t0 + 0.001, fromServer: true, data: Buffer.concat([si, hs]) });
    const ci2 = longPacket(this.keys.ci, 'initial', this.scid, [], 1, ackFrame([[0, 0]]), 1100);
    const ch = longPacket(this.keys.ch, 'handshake', this.scid, [], 0, [...ackFrame([[0, 0]]), ...cryptoFrame(0, new Array(36).fill(2))]);
    this.dgrams.push({ t: t0 + rtt, fromServer: false, data: Buffer.concat([ci2, ch]) });
    return this;
  }

  serverData(t: number, pn: number, len = 1000, keyPhase = 0, keys = this.keys.s0): this {
    this.dgrams.push({ t, fromServer: true, data: shortPacket(keys, [], pn, streamFrame(len), keyPhase) });
    return this;
  }

  clientAck(t: number, pn: number, ranges: Array<[number, number]>, delay = 0, keyPhase = 0, keys = this.keys.c0): this {
    this.dgrams.push({ t, fromServer: false, data: shortPacket(keys, this.scid, pn, ackFrame(ranges, delay), keyPhase) });
    return this;
  }
}
