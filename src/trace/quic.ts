/**
 * QUIC recognition from the unencrypted invariants of its headers (RFC 8999/9000), and the
 * grouping of one connection's UDP 5-tuples: a client that migrates to a new port keeps
 * addressing the server by a server-chosen connection ID, so a short-header packet whose
 * Destination CID matches a CID seen in the handshake belongs to that connection.
 */
import type { PacketRecord } from './packet.js';

export const QuicPacketType = { initial: 0, zeroRtt: 1, handshake: 2, retry: 3, versionNegotiation: 4, short: 5 } as const;
export type QuicPacketTypeValue = (typeof QuicPacketType)[keyof typeof QuicPacketType];

const QUIC_V1 = 0x00000001;
const QUIC_V2 = 0x6b3343cf;

/** Versions we accept as QUIC: v1, v2, IETF drafts, Google QUIC with IETF invariants, VN (0). */
export function isKnownQuicVersion(v: number): boolean {
  if (v === 0 || v === QUIC_V1 || v === QUIC_V2) return true;
  if (v >>> 8 === 0xff0000) return true; // draft-xx
  const hi = v >>> 24;
  // "Q046".."Q099" and "T0xx" (Google QUIC over TLS), ASCII letters then digits.
  if ((hi === 0x51 || hi === 0x54) && ((v >>> 16) & 0xff) === 0x30) return true;
  return (v & 0x0f0f0f0f) === 0x0a0a0a0a; // reserved greasing versions
}

/** Parsed long header (reused object: copy what you keep). */
export class QuicLongHeader {
  version = 0;
  type: QuicPacketTypeValue = QuicPacketType.initial;
  dcidOffset = 0;
  dcidLen = 0;
  scidOffset = 0;
  scidLen = 0;
}

/**
 * Parses the long header at the start of the UDP payload. Returns false when it does not look
 * like QUIC (unknown version, impossible CID lengths, cut by the snaplen).
 */
export function parseLongHeader(p: PacketRecord, out: QuicLongHeader): boolean {
  const d = p.data;
  const o = p.payloadOffset;
  const cap = p.payloadCapLen;
  if (cap < 7 || (d[o] & 0x80) === 0) return false;
  const version = p.view.getUint32(o + 1);
  if (!isKnownQuicVersion(version)) return false;
  const dcidLen = d[o + 5];
  // v1/v2 cap CIDs at 20 bytes; only Version Negotiation may carry longer ones (invariants).
  if (version !== 0 && dcidLen > 20) return false;
  if (cap < 7 + dcidLen) return false;
  const scidLen = d[o + 6 + dcidLen];
  if (version !== 0 && scidLen > 20) return false;
  if (cap < 7 + dcidLen + scidLen) return false;
  if (version !== 0 && (d[o] & 0x40) === 0) return false; // fixed bit
  out.version = version;
  out.dcidOffset = o + 6;
  out.dcidLen = dcidLen;
  out.scidOffset = o + 7 + dcidLen;
  out.scidLen = scidLen;
  if (version === 0) out.type = QuicPacketType.versionNegotiation;
  else {
    const bits = (d[o] >> 4) & 3;
    // QUIC v2 permutes the long packet types (RFC 9369).
    out.type = (version === QUIC_V2 ? [3, 0, 1, 2][bits] : bits) as QuicPacketTypeValue;
  }
  return true;
}

/** A short header has the form bit clear and the fixed bit set. */
export function looksLikeShortHeader(p: PacketRecord): boolean {
  return p.payloadCapLen >= 1 && (p.data[p.payloadOffset] & 0xc0) === 0x40;
}

function serverKey(ip: Uint32Array, port: number): string {
  return `${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}:${port}`;
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function cidHex(d: Uint8Array, off: number, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += HEX[d[off + i]];
  return s;
}

/** What one UDP 5-tuple looked like, and the QUIC connection it was assigned to. */
export class UdpPathState {
  longHeaders = 0;
  shortHeaders = 0;
  other = 0;
  /** Direction (0: first sender) that sent the first Initial, or matched a server CID: the client. */
  clientDir: -1 | 0 | 1 = -1;
  connection: QuicConnection | undefined;
  /** Short headers tried against known CIDs without a match (we give up after a few). */
  unmatchedShort = 0;
  /** How this path joined its connection. */
  joinedBy: 'handshake' | 'cid' | 'timing' | 'none' = 'none';
  versions = new Set<number>();
}

export class QuicConnection {
  readonly paths: UdpPathState[] = [];
  readonly cids = new Set<string>();
  handshakeSeen = false;
  constructor(readonly index: number) {}
}

/** Assigns UDP paths to QUIC connections as packets arrive. */
export class QuicConnectionTable {
  readonly connections: QuicConnection[] = [];
  /** CID -> connection, and whether the server chose it (the client addresses the server by it). */
  private readonly byCid = new Map<string, { conn: QuicConnection; serverCid: boolean }>();
  /** CID lengths seen in handshakes: short headers carry no length, so we try these. */
  private readonly cidLengths: number[] = [];
  private readonly hdr = new QuicLongHeader();

  onPacket(path: UdpPathState, p: PacketRecord, dir: 0 | 1): void {
    if (parseLongHeader(p, this.hdr)) {
      path.longHeaders++;
      this.onLongHeader(path, p, dir);
    } else if (looksLikeShortHeader(p)) {
      path.shortHeaders++;
      // Not QUIC, or a CID we cannot know: stop paying for lookups after a few tries.
      if (path.connection === undefined && path.unmatchedShort < 16) this.matchShortHeader(path, p, dir);
    } else {
      path.other++;
    }
  }

  private onLongHeader(path: UdpPathState, p: PacketRecord, dir: 0 | 1): void {
    const h = this.hdr;
    path.versions.add(h.version);
    const dcid = h.dcidLen > 0 ? cidHex(p.data, h.dcidOffset, h.dcidLen) : '';
    const scid = h.scidLen > 0 ? cidHex(p.data, h.scidOffset, h.scidLen) : '';
    let conn = path.connection;
    if (conn === undefined) {
      // Either side may be the server here; a CID known for that server joins its connection.
      const lookup = (cid: string) =>
        cid ? (this.byCid.get(`${serverKey(p.dst, p.dstPort)}|${cid}`) ?? this.byCid.get(`${serverKey(p.src, p.srcPort)}|${cid}`))?.conn : undefined;
      conn = lookup(scid) ?? lookup(dcid);
      if (conn === undefined) {
        conn = new QuicConnection(this.connections.length);
        this.connections.push(conn);
        path.joinedBy = 'handshake';
      } else {
        path.joinedBy = 'cid';
      }
      conn.paths.push(path);
      path.connection = conn;
    }
    // The client sends the first Initial (to a DCID it chose at random).
    if (path.clientDir === -1 && h.type === QuicPacketType.initial) path.clientDir = dir;
    if (h.type === QuicPacketType.initial || h.type === QuicPacketType.handshake) conn.handshakeSeen = true;
    // From the client, DCID is a server-side CID and SCID the client's; the other way round from the server.
    const fromClient = path.clientDir === -1 || path.clientDir === dir;
    const server = fromClient ? serverKey(p.dst, p.dstPort) : serverKey(p.src, p.srcPort);
    this.register(conn, server, dcid, h.dcidLen, fromClient);
    this.register(conn, server, scid, h.scidLen, !fromClient);
  }

  /** CIDs are only unique per server, so the key includes the server's address and port. */
  private register(conn: QuicConnection, server: string, cid: string, len: number, serverCid: boolean): void {
    const key = `${server}|${cid}`;
    if (len === 0 || this.byCid.has(key)) return;
    this.byCid.set(key, { conn, serverCid });
    conn.cids.add(cid);
    if (!this.cidLengths.includes(len)) this.cidLengths.push(len);
  }

  private matchShortHeader(path: UdpPathState, p: PacketRecord, dir: 0 | 1): void {
    const toServer = serverKey(p.dst, p.dstPort);
    const fromServer = serverKey(p.src, p.srcPort);
    for (const len of this.cidLengths) {
      if (p.payloadCapLen < 1 + len) continue;
      const cid = cidHex(p.data, p.payloadOffset + 1, len);
      // To the server it carries a server CID; from the server, a client CID.
      let hit = this.byCid.get(`${toServer}|${cid}`);
      if (hit && !hit.serverCid) hit = undefined;
      const back = this.byCid.get(`${fromServer}|${cid}`);
      if (!hit && back && !back.serverCid) hit = back;
      if (hit === undefined) continue;
      hit.conn.paths.push(path);
      path.connection = hit.conn;
      path.joinedBy = 'cid';
      // A packet addressed to a server CID comes from the client, and vice versa.
      if (path.clientDir === -1) path.clientDir = hit.serverCid ? dir : ((1 - dir) as 0 | 1);
      return;
    }
    path.unmatchedShort++;
  }

  /** Starts a connection for a path with QUIC-looking traffic but no handshake or known CID. */
  adopt(path: UdpPathState): QuicConnection {
    const conn = new QuicConnection(this.connections.length);
    this.connections.push(conn);
    conn.paths.push(path);
    path.connection = conn;
    return conn;
  }

  /** Moves a path into another connection (the timing fallback for migrations). */
  merge(path: UdpPathState, into: QuicConnection): void {
    const from = path.connection;
    if (from === into) return;
    if (from) {
      from.paths.splice(from.paths.indexOf(path), 1);
    }
    into.paths.push(path);
    path.connection = into;
    path.joinedBy = 'timing';
  }
}
