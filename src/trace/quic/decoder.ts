/**
 * Decrypts one connection's packets in capture order with the keys it has: Initial keys (from
 * the DCID), and once matched to the key log, Handshake and 1-RTT keys. 1-RTT keys follow key
 * updates (RFC 9001 section 6): a flipped key phase bit on a packet newer than the current
 * phase's first one moves that direction to the next generation ("quic ku"); an older packet
 * with the previous phase uses the previous keys. Never throws on hostile input: a packet it
 * cannot open is reported without frames.
 */
import { nextGeneration, type PacketKeys } from './crypto.js';
import type { ConnectionView, QuicDatagram } from './connection.js';
import { parseFrames, type FrameSummary } from './frames.js';
import { decodePacketNumber, openHeader, openPayload, spaceOf, splitDatagram, type PacketType, type Space } from './packet.js';

export interface DecodedPacket {
  /** Index of the datagram in the input. */
  datagram: number;
  t: number;
  fromServer: boolean;
  type: PacketType;
  space: Space;
  /** Full packet number; a guess (`guessed`) when the capture does not hold its header. */
  pn: number;
  /** Bytes on the wire (header, payload, tag): what the sender counts in flight. */
  size: number;
  /** Undefined when the payload could not be decrypted. */
  frames?: FrameSummary;
  /** AEAD tag checked (the whole packet was captured). */
  verified: boolean;
  guessed: boolean;
  /** 1-RTT only: key generation used (0 = *_TRAFFIC_SECRET_0). */
  keyGeneration?: number;
  /** Why the packet could not be opened. */
  problem?: 'no-keys' | 'header-not-captured' | 'reserved-bits' | 'tag-mismatch';
}

/** Keys per direction: index 0 = client's packets, 1 = server's. */
export interface KeySet {
  initial: [PacketKeys, PacketKeys];
  handshake?: [PacketKeys, PacketKeys];
  /** 1-RTT generation 0. */
  appData?: [PacketKeys, PacketKeys];
}

export interface DecodeStats {
  packets: number;
  opened: number;
  verified: number;
  guessed: number;
  noKeys: number;
  headerNotCaptured: number;
  failed: number;
  /** Key updates seen per direction [client, server]. */
  keyUpdates: [number, number];
}

/** 1-RTT key generations of one direction. */
class PhaseTracker {
  readonly gens: PacketKeys[];
  /** First packet number sent with each generation. */
  readonly firstPn: number[] = [0];
  cur = 0;
  constructor(first: PacketKeys) {
    this.gens = [first];
  }
  keys(g: number): PacketKeys {
    while (this.gens.length <= g) this.gens.push(nextGeneration(this.gens[this.gens.length - 1]));
    return this.gens[g];
  }
  /** Generation a packet with this phase bit and number was protected with (a guess to verify). */
  pick(phase: 0 | 1, pn: number): number {
    if (phase === (this.cur & 1)) return this.cur;
    if (this.cur > 0 && pn < this.firstPn[this.cur]) return this.cur - 1; // late packet from before the update
    return this.cur + 1;
  }
  accept(g: number, pn: number): boolean {
    if (g <= this.cur) return false;
    this.cur = g;
    this.firstPn[g] = pn;
    return true;
  }
}

export function decodePackets(dgrams: QuicDatagram[], view: ConnectionView, keys: KeySet): { packets: DecodedPacket[]; stats: DecodeStats } {
  const largest: number[][] = [[-1, -1, -1], [-1, -1, -1]]; // [dir][space]
  const phases = keys.appData ? [new PhaseTracker(keys.appData[0]), new PhaseTracker(keys.appData[1])] : undefined;
  const stats: DecodeStats = { packets: 0, opened: 0, verified: 0, guessed: 0, noKeys: 0, headerNotCaptured: 0, failed: 0, keyUpdates: [0, 0] };
  const out: DecodedPacket[] = [];

  dgrams.forEach((d, di) => {
    const dir = d.fromServer ? 1 : 0;
    // Client short headers carry a server CID, server short headers a client CID.
    const split = splitDatagram(d.data, d.wireLen, d.fromServer ? view.clientCidLength : view.serverCidLength);
    let lastSpace: Space | undefined;
    for (const p of split.packets) {
      const space = spaceOf(p.type);
      if (space === undefined) continue; // Retry, Version Negotiation: no packet number space
      lastSpace = space;
      stats.packets++;
      const base = { datagram: di, t: d.t, fromServer: d.fromServer, type: p.type, space, size: p.length, verified: false, guessed: false };
      const k = p.type === 'initial' ? keys.initial[dir] : p.type === 'handshake' ? keys.handshake?.[dir] : p.type === 'short' ? keys.appData?.[dir] : undefined;
      if (!k) {
        stats.noKeys++;
        out.push({ ...base, pn: guessPn(largest[dir], space), guessed: true, problem: 'no-keys' });
        continue;
      }
      const h = openHeader(d.data, p, k);
      if (!h) {
        stats.headerNotCaptured++;
        stats.guessed++;
        out.push({ ...base, pn: guessPn(largest[dir], space), guessed: true, problem: 'header-not-captured' });
        continue;
      }
      const pn = decodePacketNumber(largest[dir][space], h.truncatedPn, h.pnLength);
      if (h.reserved !== 0) {
        // Wrong keys or not QUIC: the unmasked reserved bits must be zero (RFC 9000 17.2).
        stats.failed++;
        out.push({ ...base, pn, problem: 'reserved-bits' });
        continue;
      }
      let payloadKeys = k;
      let gen: number | undefined;
      if (p.type === 'short' && phases) {
        gen = phases[dir].pick(h.keyPhase, pn);
        payloadKeys = phases[dir].keys(gen);
      }
      const opened = openPayload(d.data, p, h, payloadKeys, pn);
      if (!opened) {
        stats.failed++;
        out.push({ ...base, pn, keyGeneration: gen, problem: 'tag-mismatch' });
        continue;
      }
      if (gen !== undefined && phases![dir].accept(gen, pn)) stats.keyUpdates[dir]++;
      if (pn > largest[dir][space]) largest[dir][space] = pn;
      stats.opened++;
      if (opened.verified) stats.verified++;
      out.push({ ...base, pn, frames: parseFrames(opened.plaintext), verified: opened.verified, keyGeneration: gen });
    }
    if (split.opaqueTail > 0) {
      // A coalesced packet past the snaplen: its size is known, its number is not (renumbered
      // below). An unknown type after Initial is Handshake (servers coalesce Initial + Handshake).
      const space = (split.opaqueType && spaceOf(split.opaqueType)) ?? (lastSpace === undefined ? 1 : (Math.min(lastSpace + 1, 2) as Space));
      stats.packets++;
      stats.guessed++;
      stats.headerNotCaptured++;
      const pn = guessPn(largest[dir], space);
      out.push({ datagram: di, t: d.t, fromServer: d.fromServer, type: split.opaqueType ?? (space === 1 ? 'handshake' : 'short'), space, size: split.opaqueTail, pn, verified: false, guessed: true, problem: 'header-not-captured' });
    }
  });
  renumberGuesses(out);
  return { packets: out, stats };
}

/**
 * Packets whose header lay past the snaplen got "next number" guesses. Senders number
 * sequentially (per space, or per connection like aioquic), so when the next readable packet
 * of the same space and direction leaves a gap at least as large as the run of guesses before
 * it, the guesses are the numbers just below it.
 */
function renumberGuesses(packets: DecodedPacket[]): void {
  for (const fromServer of [false, true]) {
    for (const space of [0, 1, 2] as Space[]) {
      let prev = -1;
      let run: DecodedPacket[] = [];
      for (const p of packets) {
        if (p.fromServer !== fromServer || p.space !== space) continue;
        if (p.guessed) {
          run.push(p);
          continue;
        }
        if (p.problem) continue; // a failed decryption: its number is not trustworthy
        if (run.length > 0 && p.pn - prev - 1 >= run.length) run.forEach((g, i) => (g.pn = p.pn - run.length + i));
        run = [];
        prev = p.pn;
      }
    }
  }
}

/** Next number of the space (and remember it, so two unknown packets get two numbers). */
function guessPn(largest: number[], space: Space): number {
  return ++largest[space];
}
