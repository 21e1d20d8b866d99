/**
 * Test helper: builds frames (Ethernet / SLL / SLL2 / raw IP, IPv4 / IPv6, TCP with options,
 * UDP) and writes them as pcap or pcapng, so tests can assert exact results for a packet
 * sequence they constructed. Payload bytes beyond what a test gives are zeros; like a
 * `tcpdump -s 128` capture, frames can be cut to a snaplen while the IP length keeps the
 * full size.
 */
import { mulberry32 } from '../../../src/util/random.js';
import { parseIp } from '../../../src/trace/ip.js';

export interface Frame {
  /** Seconds since the epoch (float) or exact [sec, nsec]. */
  time: number | [number, number];
  /** Captured bytes. */
  bytes: Uint8Array;
  /** Length on the wire. */
  origLen: number;
  /** pcapng interface (default 0). */
  iface?: number;
}

export type Link = 'ethernet' | 'sll' | 'sll2' | 'raw' | 'raw4' | 'null';
export const LINKTYPE: Record<Link, number> = { ethernet: 1, sll: 113, sll2: 276, raw: 101, raw4: 228, null: 0 };

export interface TcpOptionsSpec {
  mss?: number;
  wscale?: number;
  sackPermitted?: boolean;
  /** Raw sequence-number edges [left, right). */
  sack?: Array<[number, number]>;
  ts?: [number, number];
}

export interface TcpSpec {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  seq: number;
  ack?: number;
  /** Letters S A F R P, e.g. "SA". */
  flags: string;
  window?: number;
  payloadLen?: number;
  options?: TcpOptionsSpec;
}

export interface UdpSpec {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  /** Bytes at the start of the payload (e.g. a QUIC header); the rest is zeros. */
  payload?: Uint8Array;
  payloadLen: number;
}

export interface FrameOptions {
  link?: Link;
  /** Bytes of the frame captured (default 128, the project's tcpdump -s 128). */
  snaplen?: number;
  /** Override the IP length field (e.g. 0 to mimic TSO captures). */
  ipLenField?: number;
}

const flagBits = (f: string) =>
  (f.includes('F') ? 1 : 0) | (f.includes('S') ? 2 : 0) | (f.includes('R') ? 4 : 0) | (f.includes('P') ? 8 : 0) | (f.includes('A') ? 16 : 0);

function tcpOptionBytes(o: TcpOptionsSpec | undefined): number[] {
  if (!o) return [];
  const out: number[] = [];
  const u16 = (n: number) => [(n >>> 8) & 255, n & 255];
  const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  if (o.mss !== undefined) out.push(2, 4, ...u16(o.mss));
  if (o.sackPermitted) out.push(4, 2);
  if (o.wscale !== undefined) out.push(1, 3, 3, o.wscale);
  if (o.ts) out.push(1, 1, 8, 10, ...u32(o.ts[0]), ...u32(o.ts[1]));
  if (o.sack && o.sack.length > 0) {
    out.push(1, 1, 5, 2 + 8 * o.sack.length);
    for (const [l, r] of o.sack) out.push(...u32(l >>> 0), ...u32(r >>> 0));
  }
  while (out.length % 4 !== 0) out.push(0);
  return out;
}

function ipAndLink(
  srcText: string,
  dstText: string,
  protocol: number,
  l4: number[],
  l4PayloadLen: number,
  capturedPayload: Uint8Array,
  fo: FrameOptions,
): { bytes: Uint8Array; origLen: number } {
  const src = parseIp(srcText);
  const dst = parseIp(dstText);
  if (!src || !dst || src.version !== dst.version) throw new Error(`bad addresses ${srcText} ${dstText}`);
  const ip: number[] = [];
  const l4Total = l4.length + l4PayloadLen;
  if (src.version === 4) {
    const total = fo.ipLenField ?? 20 + l4Total;
    ip.push(0x45, 0, total >>> 8, total & 255, 0, 0, 0x40, 0, 64, protocol, 0, 0);
    for (const w of [src.words[0], dst.words[0]]) ip.push(w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255);
  } else {
    const plen = fo.ipLenField ?? l4Total;
    ip.push(0x60, 0, 0, 0, plen >>> 8, plen & 255, protocol, 64);
    for (const ws of [src.words, dst.words]) for (const w of ws) ip.push(w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255);
  }
  const etherType = src.version === 4 ? 0x0800 : 0x86dd;
  const link = fo.link ?? 'ethernet';
  let linkHdr: number[] = [];
  if (link === 'ethernet') linkHdr = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, etherType >>> 8, etherType & 255];
  else if (link === 'sll') linkHdr = [0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, etherType >>> 8, etherType & 255];
  else if (link === 'sll2') linkHdr = [etherType >>> 8, etherType & 255, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
  else if (link === 'null') linkHdr = src.version === 4 ? [2, 0, 0, 0] : [30, 0, 0, 0];
  const headers = [...linkHdr, ...ip, ...l4];
  const origLen = headers.length + l4PayloadLen;
  // Like tcpdump -s SNAPLEN: the capture holds the first bytes of the frame, payload included.
  const capLen = Math.min(origLen, fo.snaplen ?? 128);
  const bytes = new Uint8Array(Math.max(capLen, headers.length));
  bytes.set(headers);
  bytes.set(capturedPayload.subarray(0, Math.min(l4PayloadLen, bytes.length - headers.length)), headers.length);
  return { bytes: bytes.subarray(0, capLen), origLen };
}

export function tcpFrame(s: TcpSpec, fo: FrameOptions = {}): { bytes: Uint8Array; origLen: number } {
  const opts = tcpOptionBytes(s.options);
  const hdrLen = 20 + opts.length;
  const win = s.window ?? 65535;
  const seq = s.seq >>> 0;
  const ack = (s.ack ?? 0) >>> 0;
  const flags = flagBits(s.flags);
  const tcp = [
    s.sport >>> 8, s.sport & 255, s.dport >>> 8, s.dport & 255,
    seq >>> 24, (seq >>> 16) & 255, (seq >>> 8) & 255, seq & 255,
    ack >>> 24, (ack >>> 16) & 255, (ack >>> 8) & 255, ack & 255,
    (hdrLen / 4) << 4, flags, win >>> 8, win & 255, 0, 0, 0, 0,
    ...opts,
  ];
  return ipAndLink(s.src, s.dst, 6, tcp, s.payloadLen ?? 0, new Uint8Array(0), fo);
}

export function udpFrame(s: UdpSpec, fo: FrameOptions = {}): { bytes: Uint8Array; origLen: number } {
  const len = 8 + s.payloadLen;
  const udp = [s.sport >>> 8, s.sport & 255, s.dport >>> 8, s.dport & 255, (len >>> 8) & 255, len & 255, 0, 0];
  return ipAndLink(s.src, s.dst, 17, udp, s.payloadLen, s.payload ?? new Uint8Array(0), fo);
}

function splitTime(t: number | [number, number]): [number, number] {
  if (Array.isArray(t)) return t;
  const sec = Math.floor(t);
  return [sec, Math.round((t - sec) * 1e9)];
}

export interface PcapOptions {
  link?: Link;
  linkType?: number;
  nanos?: boolean;
  bigEndian?: boolean;
  snaplen?: number;
}

export function writePcap(frames: Frame[], o: PcapOptions = {}): Buffer {
  const le = !o.bigEndian;
  const size = 24 + frames.reduce((n, f) => n + 16 + f.bytes.length, 0);
  const buf = Buffer.alloc(size);
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  v.setUint32(0, o.nanos ? 0xa1b23c4d : 0xa1b2c3d4, le);
  v.setUint16(4, 2, le);
  v.setUint16(6, 4, le);
  v.setUint32(16, o.snaplen ?? 262144, le);
  v.setUint32(20, o.linkType ?? LINKTYPE[o.link ?? 'ethernet'], le);
  let p = 24;
  for (const f of frames) {
    const [sec, nsec] = splitTime(f.time);
    v.setUint32(p, sec, le);
    v.setUint32(p + 4, o.nanos ? nsec : Math.round(nsec / 1000), le);
    v.setUint32(p + 8, f.bytes.length, le);
    v.setUint32(p + 12, f.origLen, le);
    buf.set(f.bytes, p + 16);
    p += 16 + f.bytes.length;
  }
  return buf;
}

export interface PcapngInterface {
  linkType: number;
  snaplen?: number;
  /** if_tsresol byte: 6 = microseconds (default), 9 = nanoseconds, 0x80|n = 2^-n. */
  tsresol?: number;
}

export interface PcapngOptions {
  bigEndian?: boolean;
  interfaces?: PcapngInterface[];
  link?: Link;
  /** Add a name-resolution block and a custom block, which the reader must skip. */
  extraBlocks?: boolean;
}

export function writePcapng(frames: Frame[], o: PcapngOptions = {}): Buffer {
  const le = !o.bigEndian;
  const blocks: Buffer[] = [];
  const block = (type: number, body: Buffer) => {
    const padded = Buffer.alloc((body.length + 3) & ~3);
    body.copy(padded);
    const b = Buffer.alloc(12 + padded.length);
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    v.setUint32(0, type, le);
    v.setUint32(4, b.length, le);
    padded.copy(b, 8);
    v.setUint32(b.length - 4, b.length, le);
    blocks.push(b);
  };
  const shb = Buffer.alloc(16);
  const sv = new DataView(shb.buffer);
  sv.setUint32(0, 0x1a2b3c4d, le);
  sv.setUint16(4, 1, le);
  sv.setBigInt64(8, -1n, le);
  block(0x0a0d0d0a, shb);
  const ifaces = o.interfaces ?? [{ linkType: LINKTYPE[o.link ?? 'ethernet'] }];
  for (const i of ifaces) {
    const body = Buffer.alloc(8 + 8 + 4);
    const v = new DataView(body.buffer);
    v.setUint16(0, i.linkType, le);
    v.setUint32(4, i.snaplen ?? 262144, le);
    v.setUint16(8, 9, le); // if_tsresol
    v.setUint16(10, 1, le);
    v.setUint8(12, i.tsresol ?? 6);
    v.setUint16(16, 0, le); // opt_endofopt
    v.setUint16(18, 0, le);
    block(1, body);
  }
  if (o.extraBlocks) {
    block(4, Buffer.from([1, 0, 8, 0, 10, 0, 0, 1, 0x61, 0x2e, 0x74, 0, 0, 0, 0, 0]));
    block(0x00000bad, Buffer.from('custom block payload'));
  }
  for (const f of frames) {
    const iface = ifaces[f.iface ?? 0];
    const [sec, nsec] = splitTime(f.time);
    const r = iface.tsresol ?? 6;
    let units: bigint;
    if (r & 0x80) units = (BigInt(sec) << BigInt(r & 0x7f)) + (BigInt(nsec) << BigInt(r & 0x7f)) / 1_000_000_000n;
    else units = BigInt(sec) * 10n ** BigInt(r) + (BigInt(nsec) * 10n ** BigInt(r)) / 1_000_000_000n;
    const body = Buffer.alloc(20 + f.bytes.length);
    const v = new DataView(body.buffer);
    v.setUint32(0, f.iface ?? 0, le);
    v.setUint32(4, Number(units >> 32n), le);
    v.setUint32(8, Number(units & 0xffffffffn), le);
    v.setUint32(12, f.bytes.length, le);
    v.setUint32(16, f.origLen, le);
    body.set(f.bytes, 20);
    block(6, body);
  }
  return Buffer.concat(blocks);
}

/**
 * Scripted TCP conversation with sequence numbers relative to each side's ISN (data byte 0 is
 * ISN+1), so tests read like "server sends bytes 0-999, client acks 1000".
 */
export class TcpConversation {
  readonly frames: Frame[] = [];
  private readonly client: { ip: string; port: number };
  private readonly server: { ip: string; port: number };

  constructor(
    readonly o: {
      client: string;
      server: string;
      clientPort: number;
      serverPort: number;
      isnClient?: number;
      isnServer?: number;
      timestamps?: boolean;
      sack?: boolean;
      link?: Link;
      snaplen?: number;
    },
  ) {
    this.client = { ip: o.client, port: o.clientPort };
    this.server = { ip: o.server, port: o.serverPort };
  }

  get isnC(): number {
    return this.o.isnClient ?? 1000;
  }
  get isnS(): number {
    return this.o.isnServer ?? 5000;
  }
  /** Raw sequence number of the server's relative byte `rel`. */
  s(rel: number): number {
    return (this.isnS + 1 + rel) >>> 0;
  }
  c(rel: number): number {
    return (this.isnC + 1 + rel) >>> 0;
  }

  private push(time: number, fromServer: boolean, spec: Omit<TcpSpec, 'src' | 'dst' | 'sport' | 'dport'>): void {
    const a = fromServer ? this.server : this.client;
    const b = fromServer ? this.client : this.server;
    const f = tcpFrame(
      { ...spec, src: a.ip, dst: b.ip, sport: a.port, dport: b.port },
      { link: this.o.link, snaplen: this.o.snaplen },
    );
    this.frames.push({ time, ...f });
  }

  private ts(time: number, echo: number | undefined): [number, number] | undefined {
    if (!this.o.timestamps) return undefined;
    // TSval = ms clock; tests pass the echo they want.
    return [Math.floor(time * 1000) >>> 0, echo ?? 0];
  }

  handshake(t: number, rtt: number, o: { mss?: number; wscale?: number } = {}): void {
    const opts = { mss: o.mss ?? 1460, wscale: o.wscale, sackPermitted: this.o.sack };
    this.push(t, false, { seq: this.isnC, flags: 'S', options: { ...opts, ts: this.ts(t, 0) } });
    this.push(t + 0.0001, true, {
      seq: this.isnS,
      ack: this.c(0),
      flags: 'SA',
      options: { ...opts, ts: this.ts(t + 0.0001, Math.floor(t * 1000)) },
    });
    this.push(t + 0.0001 + rtt, false, {
      seq: this.c(0),
      ack: this.s(0),
      flags: 'A',
      options: { ts: this.ts(t + 0.0001 + rtt, Math.floor((t + 0.0001) * 1000)) },
    });
  }

  /** Server data: relative bytes [rel, rel+len). `tsval` overrides the TSval. */
  serverData(time: number, rel: number, len: number, o: { ack?: number; tsval?: number; flags?: string } = {}): void {
    const ts = this.o.timestamps ? ([o.tsval ?? Math.floor(time * 1000), 0] as [number, number]) : undefined;
    this.push(time, true, { seq: this.s(rel), ack: this.c(o.ack ?? 0), flags: o.flags ?? 'PA', payloadLen: len, options: { ts } });
  }

  clientData(time: number, rel: number, len: number): void {
    this.push(time, false, { seq: this.c(rel), ack: this.s(0), flags: 'PA', payloadLen: len, options: { ts: this.ts(time, 0) } });
  }

  /** Client ACK of server byte `rel` (cumulative), SACK blocks as relative [l, r). */
  clientAck(time: number, rel: number, o: { sack?: Array<[number, number]>; tsecr?: number; window?: number; clientSeq?: number } = {}): void {
    this.push(time, false, {
      seq: this.c(o.clientSeq ?? 0),
      ack: this.s(rel),
      flags: 'A',
      window: o.window,
      options: {
        ts: this.o.timestamps ? [Math.floor(time * 1000), o.tsecr ?? 0] : undefined,
        sack: o.sack?.map(([l, r]) => [this.s(l), this.s(r)] as [number, number]),
      },
    });
  }

  serverFin(time: number, rel: number): void {
    this.push(time, true, { seq: this.s(rel), ack: this.c(0), flags: 'FA' });
  }
}

/** Deterministic PRNG (the project's mulberry32) so fuzz tests are reproducible. */
export const prng = mulberry32;
