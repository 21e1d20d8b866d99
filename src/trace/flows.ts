/**
 * Flow table keyed by the 5-tuple, direction-agnostic: both directions of a connection land in
 * the same FlowRecord, with `dir` 0 for packets from the side seen first and 1 for the other.
 * Lookup hashes the address words and ports into a number and compares words on a hit, so
 * no key string is built per packet.
 */
import { F64Column, U32Column, U8Column } from './buffers.js';
import { formatEndpoint, formatIp } from './ip.js';
import { TcpFlag, type PacketRecord } from './packet.js';
import { UdpPathState } from './quic.js';
import { TcpConnection } from './tcp-bif.js';

/** Per-packet UDP events, kept so QUIC BiF can be computed once totals are known. */
export class UdpEvents {
  readonly t = new F64Column(64);
  readonly dir = new U8Column(64);
  readonly bytes = new U32Column(64);
}

export class FlowRecord {
  readonly a = new Uint32Array(4);
  readonly b = new Uint32Array(4);
  aPort = 0;
  bPort = 0;
  /** Index of the first packet in the capture: flow ids follow first appearance. */
  firstPacket = 0;
  firstTime = 0;
  lastTime = 0;
  readonly packets = [0, 0];
  readonly payloadBytes = [0, 0];
  readonly ipBytes = [0, 0];
  /** Direction that sent a SYN without ACK (the client), -1 if none seen. */
  synFrom: -1 | 0 | 1 = -1;
  private synAckSeen = false;
  handshake = false;
  readonly fins = [false, false];
  /**
   * Opening exchange as the capture point saw it: the opener's first packet, the first reply,
   * and the opener's next packet after that reply (TCP: SYN, SYN-ACK, ACK; QUIC: Initial, the
   * server's first packet, the client's next). The reply's delay is the round trip on the server's
   * side of the capture point, the next packet's the round trip on the client's side.
   */
  readonly opening = { firstDir: -1 as -1 | 0 | 1, first: NaN, reply: NaN, next: NaN };
  tcp: TcpConnection | undefined;
  udp: UdpPathState | undefined;
  udpEvents: UdpEvents | undefined;
  /** Next record in the same hash bucket. */
  next: FlowRecord | undefined;

  constructor(
    readonly index: number,
    readonly protocol: number,
    readonly ipVersion: number,
  ) {}

  endpoint(dir: 0 | 1): string {
    return dir === 0 ? formatEndpoint(this.ipVersion, this.a, this.aPort) : formatEndpoint(this.ipVersion, this.b, this.bPort);
  }

  ip(dir: 0 | 1): string {
    return formatIp(this.ipVersion, dir === 0 ? this.a : this.b);
  }

  port(dir: 0 | 1): number {
    return dir === 0 ? this.aPort : this.bPort;
  }

  /** Counters every packet updates, whatever the protocol. */
  count(p: PacketRecord, dir: 0 | 1, t: number): void {
    this.packets[dir]++;
    this.payloadBytes[dir] += p.payloadLen;
    this.ipBytes[dir] += p.ipLen;
    this.lastTime = t;
    const o = this.opening;
    if (o.firstDir === -1) {
      o.firstDir = dir;
      o.first = t;
    } else if (Number.isNaN(o.reply)) {
      if (dir !== o.firstDir) o.reply = t;
    } else if (Number.isNaN(o.next) && dir === o.firstDir) o.next = t;
    if (this.protocol !== 6) return;
    const f = p.tcpFlags;
    if (f & TcpFlag.syn) {
      if (f & TcpFlag.ack) {
        if (this.synFrom === 1 - dir) this.synAckSeen = true;
      } else if (this.synFrom === -1) this.synFrom = dir;
    } else if (this.synAckSeen && dir === this.synFrom && f & TcpFlag.ack) {
      this.handshake = true;
    }
    if (f & TcpFlag.fin) this.fins[dir] = true;
  }
}

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x9e3779b1);
  return h ^ (h >>> 15);
}

function endpointHash(w: Uint32Array, port: number): number {
  let h = mix(0x2545f491, w[0]);
  h = mix(h, w[1]);
  h = mix(h, w[2]);
  h = mix(h, w[3]);
  return mix(h, port);
}

function sameIp(x: Uint32Array, y: Uint32Array): boolean {
  return x[0] === y[0] && x[1] === y[1] && x[2] === y[2] && x[3] === y[3];
}

export class FlowTable {
  readonly flows: FlowRecord[] = [];
  /** Direction of the packet passed to the last `lookup`. */
  dir: 0 | 1 = 0;
  private readonly buckets = new Map<number, FlowRecord>();
  private last: FlowRecord | undefined;

  private match(f: FlowRecord, p: PacketRecord): boolean {
    if (f.protocol !== p.protocol || f.ipVersion !== p.ipVersion) return false;
    if (f.aPort === p.srcPort && f.bPort === p.dstPort && sameIp(f.a, p.src) && sameIp(f.b, p.dst)) {
      this.dir = 0;
      return true;
    }
    if (f.aPort === p.dstPort && f.bPort === p.srcPort && sameIp(f.a, p.dst) && sameIp(f.b, p.src)) {
      this.dir = 1;
      return true;
    }
    return false;
  }

  /** The flow of a TCP/UDP packet, created on first sight; sets `dir`. */
  lookup(p: PacketRecord, t: number): FlowRecord {
    const last = this.last;
    if (last !== undefined && this.match(last, p)) return last;
    // Symmetric: a + b is the same whichever side sent the packet.
    const h = mix((endpointHash(p.src, p.srcPort) + endpointHash(p.dst, p.dstPort)) | 0, p.protocol);
    const head = this.buckets.get(h);
    for (let f = head; f !== undefined; f = f.next) {
      if (this.match(f, p)) {
        this.last = f;
        return f;
      }
    }
    const f = new FlowRecord(this.flows.length, p.protocol, p.ipVersion);
    f.a.set(p.src);
    f.b.set(p.dst);
    f.aPort = p.srcPort;
    f.bPort = p.dstPort;
    f.firstPacket = p.index;
    f.firstTime = t;
    f.lastTime = t;
    f.next = head;
    this.buckets.set(h, f);
    this.flows.push(f);
    this.dir = 0;
    this.last = f;
    return f;
  }
}
