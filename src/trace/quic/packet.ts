/**
 * QUIC packets inside one UDP datagram (RFC 9000 section 17): splitting coalesced packets by
 * their Length fields, header-protection removal, packet-number decoding (appendix A.3), and
 * payload decryption (authenticated when the capture holds the whole packet, an unverified
 * prefix when the snaplen cut it). Works on the captured bytes plus the datagram's wire length.
 */
import { aeadOpen, AEAD_TAG_LENGTH, decryptPrefix, headerMask, QUIC_V2, type PacketKeys } from './crypto.js';
import { VarReader } from './frames.js';

export type PacketType = 'initial' | '0rtt' | 'handshake' | 'retry' | 'vn' | 'short';
/** Packet-number spaces (RFC 9000 section 12.3): Initial, Handshake, application data. */
export type Space = 0 | 1 | 2;
export const SPACE_NAMES = ['initial', 'handshake', 'appData'] as const;

export function spaceOf(type: PacketType): Space | undefined {
  if (type === 'initial') return 0;
  if (type === 'handshake') return 1;
  if (type === 'short' || type === '0rtt') return 2;
  return undefined;
}

/** One packet's place in the datagram, before header protection is removed. */
export interface RawPacket {
  type: PacketType;
  version: number;
  /** Offset of the first byte in the captured payload. */
  start: number;
  /** Bytes on the wire (header + payload + tag). */
  length: number;
  dcid: Uint8Array;
  scid: Uint8Array;
  /** Offset of the packet number field. */
  pnOffset: number;
}

const V1_TYPES: PacketType[] = ['initial', '0rtt', 'handshake', 'retry'];
const V2_TYPES: PacketType[] = ['retry', 'initial', '0rtt', 'handshake'];

export interface SplitResult {
  packets: RawPacket[];
  /**
   * Wire bytes at the end of the datagram whose header the capture does not hold (a coalesced
   * packet past the snaplen): their size is known, their number is not.
   */
  opaqueTail: number;
  /** The long header type of the opaque tail when its first byte was captured. */
  opaqueType?: PacketType;
  /**
   * Bytes after the last packet that cannot start one (fixed bit clear, e.g. the zeros aioquic
   * appends to pad a datagram with Initials): neither a packet nor in flight (RFC 9002 2).
   */
  trailingPadding: number;
}

/**
 * Splits a datagram into packets. `cap` is the captured UDP payload, `wireLen` its length on
 * the wire; short headers need the DCID length (from the connection IDs seen in long headers).
 */
export function splitDatagram(cap: Uint8Array, wireLen: number, shortDcidLen: number | undefined): SplitResult {
  const packets: RawPacket[] = [];
  let off = 0;
  const done = (opaqueTail: number, opaqueType?: PacketType, trailingPadding = 0): SplitResult => ({ packets, opaqueTail, opaqueType, trailingPadding });
  while (off < wireLen) {
    if (off >= cap.length) return done(wireLen - off);
    const first = cap[off];
    // v1 and v2 packets set the fixed bit; what follows the last packet without it is padding.
    if ((first & 0x40) === 0 && off > 0) return done(0, undefined, wireLen - off);
    if ((first & 0x80) === 0) {
      // Short header: always the last packet of its datagram.
      if ((first & 0x40) === 0 || shortDcidLen === undefined) return done(wireLen - off);
      const dcidEnd = off + 1 + shortDcidLen;
      if (dcidEnd > cap.length) return done(wireLen - off, 'short');
      packets.push({ type: 'short', version: 0, start: off, length: wireLen - off, dcid: cap.subarray(off + 1, dcidEnd), scid: new Uint8Array(0), pnOffset: dcidEnd });
      return done(0);
    }
    const r = new VarReader(cap, off + 1);
    if (r.left < 4) return done(wireLen - off);
    const version = ((cap[off + 1] << 24) | (cap[off + 2] << 16) | (cap[off + 3] << 8) | cap[off + 4]) >>> 0;
    r.pos += 4;
    const typeBits = (first >> 4) & 3;
    const type: PacketType = version === 0 ? 'vn' : (version === QUIC_V2 ? V2_TYPES : V1_TYPES)[typeBits];
    const opaque = (): SplitResult => done(wireLen - off, type);
    const dl = r.u8();
    if (dl < 0 || dl > 20 || !r.skip(dl)) return opaque();
    const dcid = cap.subarray(r.pos - dl, r.pos);
    const sl = r.u8();
    if (sl < 0 || sl > 20 || !r.skip(sl)) return opaque();
    const scid = cap.subarray(r.pos - sl, r.pos);
    if (type === 'vn' || type === 'retry') {
      packets.push({ type, version, start: off, length: wireLen - off, dcid, scid, pnOffset: -1 });
      return done(0);
    }
    if (type === 'initial') {
      const tl = r.varint();
      if (tl < 0 || !r.skip(tl)) return opaque();
    }
    const len = r.varint();
    if (len < 0) return opaque();
    const end = r.pos + len;
    if (end > wireLen) return opaque(); // a Length beyond the datagram: not a packet we can use
    packets.push({ type, version, start: off, length: end - off, dcid, scid, pnOffset: r.pos });
    off = end;
  }
  return done(0);
}

/** A packet with header protection removed. */
export interface OpenHeader {
  /** The unprotected header (first byte through packet number): the AEAD's associated data. */
  header: Uint8Array;
  pnLength: number;
  truncatedPn: number;
  /** Short headers: the key phase bit. */
  keyPhase: 0 | 1;
  /** Reserved bits, which must be 0 after unmasking (a cheap wrong-key check). */
  reserved: number;
}

/** Removes header protection; undefined when the 16-byte sample lies beyond the captured bytes. */
export function openHeader(cap: Uint8Array, p: RawPacket, keys: PacketKeys): OpenHeader | undefined {
  const sampleAt = p.pnOffset + 4;
  if (p.pnOffset < 0 || sampleAt + 16 > cap.length || sampleAt + 16 > p.start + p.length) return undefined;
  const mask = headerMask(keys, cap.subarray(sampleAt, sampleAt + 16));
  const long = p.type !== 'short';
  const first = cap[p.start] ^ (mask[0] & (long ? 0x0f : 0x1f));
  const pnLength = (first & 3) + 1;
  const header = Uint8Array.from(cap.subarray(p.start, p.pnOffset + pnLength));
  header[0] = first;
  let pn = 0;
  for (let i = 0; i < pnLength; i++) {
    const b = cap[p.pnOffset + i] ^ mask[1 + i];
    header[p.pnOffset - p.start + i] = b;
    pn = pn * 256 + b;
  }
  return {
    header,
    pnLength,
    truncatedPn: pn,
    keyPhase: long ? 0 : (((first >> 2) & 1) as 0 | 1),
    reserved: long ? (first >> 2) & 3 : (first >> 3) & 3,
  };
}

/** The full packet number from its truncated encoding and the largest number seen (RFC 9000 A.3). */
export function decodePacketNumber(largest: number, truncated: number, pnLength: number): number {
  const expected = largest + 1;
  const win = 2 ** (pnLength * 8);
  const hwin = win / 2;
  const candidate = expected - (expected % win) + truncated;
  if (candidate <= expected - hwin && candidate < 2 ** 62 - win) return candidate + win;
  if (candidate > expected + hwin && candidate >= win) return candidate - win;
  return candidate;
}

export interface Opened {
  plaintext: Uint8Array;
  /** True when the AEAD tag was checked; false for a snaplen-cut prefix (unverified). */
  verified: boolean;
}

/**
 * Decrypts the payload: whole packet -> authenticated (null when the tag fails); a cut one
 * -> the captured prefix without the tag check (never the tag bytes).
 */
export function openPayload(cap: Uint8Array, p: RawPacket, h: OpenHeader, keys: PacketKeys, pn: number): Opened | null {
  const from = p.pnOffset + h.pnLength;
  const end = p.start + p.length;
  if (end <= cap.length) {
    const pt = aeadOpen(keys, pn, h.header, cap.subarray(from, end));
    return pt ? { plaintext: pt, verified: true } : null;
  }
  const upto = Math.min(cap.length, end - AEAD_TAG_LENGTH);
  if (upto <= from) return { plaintext: new Uint8Array(0), verified: false };
  return { plaintext: decryptPrefix(keys, pn, cap.subarray(from, upto)), verified: false };
}
