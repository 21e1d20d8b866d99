/**
 * The one packet record the reader fills for every packet. It is allocated once per read and
 * overwritten in place (no per-packet objects in the hot loop), so a visitor must copy out
 * whatever it wants to keep: `data`/`view` point into the reader's chunk buffer and are only
 * valid during the callback.
 */

/** What the decoder made of a frame. */
export const PacketKind = {
  /** Not IPv4/IPv6 (ARP, LLDP, ...): skipped silently. */
  notIp: 0,
  tcp: 1,
  udp: 2,
  /** IP, but neither TCP nor UDP (ICMP, ...). */
  otherIp: 3,
  /** Headers inconsistent or cut short: skipped and counted. `malformedReason` says why. */
  malformed: 4,
  /** An IP fragment: no usable transport header (TCP/QUIC set DF, so these are rare). */
  fragment: 5,
} as const;
export type PacketKindValue = (typeof PacketKind)[keyof typeof PacketKind];

export const TcpFlag = { fin: 0x01, syn: 0x02, rst: 0x04, psh: 0x08, ack: 0x10, urg: 0x20, ece: 0x40, cwr: 0x80 } as const;

/** Bits of `PacketRecord.tcpOptions`: which options the segment carried. */
export const TcpOpt = { mss: 1, wscale: 2, sackPermitted: 4, sack: 8, timestamps: 16 } as const;

export class PacketRecord {
  /** 0-based number of the packet in the file (frame number - 1 in Wireshark). */
  index = 0;
  /** Byte offset of the record's header in the file: what error messages cite. */
  fileOffset = 0;
  linkType = 0;
  /** Capture time: whole seconds since the epoch, and nanoseconds within that second. */
  tsSec = 0;
  tsNsec = 0;
  /** Bytes captured (<= snaplen) and bytes the packet had on the wire. */
  capLen = 0;
  origLen = 0;

  /** The chunk the frame lives in; valid only during the visitor callback. */
  data: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(new ArrayBuffer(0));
  /** Offset of the frame's first byte (link header) within `data`. */
  frameOffset = 0;

  kind: PacketKindValue = PacketKind.notIp;
  /** Constant string naming the problem when kind is malformed. */
  malformedReason = '';
  /** 4 or 6 once an IP header was found, else 0. */
  ipVersion = 0;
  /** Addresses as 32-bit words in network order; IPv4 uses word 0 only (others 0). */
  readonly src = new Uint32Array(4);
  readonly dst = new Uint32Array(4);
  /** IP protocol / IPv6 next header of the transport (6 TCP, 17 UDP). */
  protocol = 0;
  /** Length of the IP packet according to its own header (not the capture). */
  ipLen = 0;

  srcPort = 0;
  dstPort = 0;
  /** Transport payload bytes on the wire, from the IP length (snaplen does not shrink it). */
  payloadLen = 0;
  /** Where the payload starts in `data`, and how much of it was captured. */
  payloadOffset = 0;
  payloadCapLen = 0;

  // TCP only.
  seq = 0;
  ack = 0;
  tcpFlags = 0;
  window = 0;
  tcpHeaderLen = 0;
  tcpOptions = 0;
  mss = 0;
  wscale = 0;
  tsVal = 0;
  tsEcr = 0;
  /** SACK blocks as [left0, right0, left1, right1, ...] raw sequence numbers. */
  readonly sack = new Uint32Array(8);
  sackCount = 0;

  /** Capture time as float seconds since the epoch (sub-microsecond rounding at today's dates). */
  get time(): number {
    return this.tsSec + this.tsNsec * 1e-9;
  }

  /** Clears what the decoder sets, so a skipped frame never shows stale fields. */
  resetDecoded(): void {
    this.kind = PacketKind.notIp;
    this.malformedReason = '';
    this.ipVersion = 0;
    this.protocol = 0;
    this.ipLen = 0;
    this.srcPort = 0;
    this.dstPort = 0;
    this.payloadLen = 0;
    this.payloadOffset = 0;
    this.payloadCapLen = 0;
    this.tcpFlags = 0;
    this.tcpOptions = 0;
    this.sackCount = 0;
  }
}

export type PacketVisitor = (p: PacketRecord) => void;
