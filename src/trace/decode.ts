/**
 * Frame decoding: link header -> IPv4/IPv6 -> TCP/UDP, into the reused PacketRecord.
 * Every read is bounds-checked against the captured length, because the reader's DataView
 * spans a whole chunk: reading past a frame would not throw, it would silently read the
 * next record. A frame that does not add up becomes kind=malformed, never an exception.
 */
import { PacketKind, TcpOpt, type PacketRecord } from './packet.js';

export const LinkType = {
  null: 0,
  ethernet: 1,
  raw: 101,
  loop: 108,
  linuxSll: 113,
  linuxSll2: 276,
  ipv4: 228,
  ipv6: 229,
} as const;

const SUPPORTED = new Set<number>(Object.values(LinkType));

export function isSupportedLinkType(linkType: number): boolean {
  return SUPPORTED.has(linkType);
}

export function linkTypeName(linkType: number): string {
  const names: Record<number, string> = {
    0: 'BSD loopback',
    1: 'Ethernet',
    101: 'raw IP',
    108: 'OpenBSD loopback',
    113: 'Linux cooked (SLL)',
    276: 'Linux cooked v2 (SLL2)',
    228: 'raw IPv4',
    229: 'raw IPv6',
    105: '802.11',
    127: '802.11 radiotap',
    220: 'USB',
  };
  return names[linkType] ?? `link type ${linkType}`;
}

const ETH_IPV4 = 0x0800;
const ETH_IPV6 = 0x86dd;

function malformed(p: PacketRecord, reason: string): void {
  p.kind = PacketKind.malformed;
  p.malformedReason = reason;
}

/** Decodes the frame at p.frameOffset (p.capLen bytes captured) according to p.linkType. */
export function decodeFrame(p: PacketRecord): void {
  p.resetDecoded();
  const start = p.frameOffset;
  const end = start + p.capLen;
  const v = p.view;
  let off = start;
  let ethertype = 0;
  switch (p.linkType) {
    case LinkType.ethernet: {
      if (end - off < 14) return malformed(p, 'Ethernet header cut short');
      ethertype = v.getUint16(off + 12);
      off += 14;
      // 802.1Q / 802.1ad / QinQ tags: skip each 4-byte tag.
      while (ethertype === 0x8100 || ethertype === 0x88a8 || ethertype === 0x9100) {
        if (end - off < 4) return malformed(p, 'VLAN tag cut short');
        ethertype = v.getUint16(off + 2);
        off += 4;
      }
      break;
    }
    case LinkType.linuxSll:
      if (end - off < 16) return malformed(p, 'SLL header cut short');
      ethertype = v.getUint16(off + 14);
      off += 16;
      break;
    case LinkType.linuxSll2:
      if (end - off < 20) return malformed(p, 'SLL2 header cut short');
      ethertype = v.getUint16(off);
      off += 20;
      break;
    case LinkType.raw:
    case LinkType.ipv4:
    case LinkType.ipv6: {
      if (end - off < 1) return malformed(p, 'empty raw IP frame');
      const version = p.data[off] >> 4;
      ethertype = version === 4 ? ETH_IPV4 : version === 6 ? ETH_IPV6 : 0;
      if (ethertype === 0) return malformed(p, 'raw frame is neither IPv4 nor IPv6');
      break;
    }
    case LinkType.null:
    case LinkType.loop: {
      if (end - off < 4) return malformed(p, 'loopback header cut short');
      // Address family: host byte order of the writer for DLT_NULL, network order for LOOP.
      let af = v.getUint32(off, p.linkType === LinkType.null);
      if (af > 0xffff) af = v.getUint32(off, p.linkType !== LinkType.null);
      ethertype = af === 2 ? ETH_IPV4 : af === 24 || af === 28 || af === 30 ? ETH_IPV6 : 0;
      off += 4;
      break;
    }
    default:
      return; // the reader rejects unsupported link types before decoding
  }
  if (ethertype === ETH_IPV4) decodeIpv4(p, off, end, start);
  else if (ethertype === ETH_IPV6) decodeIpv6(p, off, end, start);
}

/** Wire length of the IP packet when its header says 0 (TSO/GSO captures): frame minus link header. */
function wireIpLen(p: PacketRecord, ipOff: number, frameStart: number): number {
  return p.origLen - (ipOff - frameStart);
}

function decodeIpv4(p: PacketRecord, off: number, end: number, frameStart: number): void {
  const v = p.view;
  if (end - off < 20) return malformed(p, 'IPv4 header cut short');
  const b0 = p.data[off];
  if (b0 >> 4 !== 4) return malformed(p, 'IPv4 version field is not 4');
  const ihl = (b0 & 0x0f) * 4;
  if (ihl < 20) return malformed(p, 'IPv4 header length < 20');
  if (end - off < ihl) return malformed(p, 'IPv4 options cut short');
  p.ipVersion = 4;
  let totalLen = v.getUint16(off + 2);
  if (totalLen === 0) totalLen = wireIpLen(p, off, frameStart);
  if (totalLen < ihl) return malformed(p, 'IPv4 total length < header length');
  if (totalLen > wireIpLen(p, off, frameStart)) return malformed(p, 'IPv4 total length exceeds the frame');
  p.ipLen = totalLen;
  p.protocol = p.data[off + 9];
  p.src[0] = v.getUint32(off + 12);
  p.dst[0] = v.getUint32(off + 16);
  p.src[1] = p.src[2] = p.src[3] = 0;
  p.dst[1] = p.dst[2] = p.dst[3] = 0;
  const frag = v.getUint16(off + 6);
  if ((frag & 0x3fff) !== 0) {
    // More-fragments set or a non-zero offset: the transport header is absent or partial.
    p.kind = PacketKind.fragment;
    return;
  }
  decodeTransport(p, off + ihl, end, totalLen - ihl);
}

function decodeIpv6(p: PacketRecord, off: number, end: number, frameStart: number): void {
  const v = p.view;
  if (end - off < 40) return malformed(p, 'IPv6 header cut short');
  if (p.data[off] >> 4 !== 6) return malformed(p, 'IPv6 version field is not 6');
  p.ipVersion = 6;
  let payloadLen = v.getUint16(off + 4);
  // 0 means a jumbogram or a GSO super-packet: take the length from the wire.
  if (payloadLen === 0) payloadLen = wireIpLen(p, off, frameStart) - 40;
  if (payloadLen < 0 || payloadLen + 40 > wireIpLen(p, off, frameStart)) {
    return malformed(p, 'IPv6 payload length exceeds the frame');
  }
  p.ipLen = payloadLen + 40;
  for (let i = 0; i < 4; i++) {
    p.src[i] = v.getUint32(off + 8 + 4 * i);
    p.dst[i] = v.getUint32(off + 24 + 4 * i);
  }
  let next = p.data[off + 6];
  let pos = off + 40;
  let remaining = payloadLen;
  // Walk extension headers until the transport header.
  for (let hops = 0; hops < 16; hops++) {
    if (next === 6 || next === 17) break;
    if (next === 0 || next === 43 || next === 60 || next === 135 || next === 139 || next === 140) {
      if (end - pos < 2) return malformed(p, 'IPv6 extension header cut short');
      const len = (p.data[pos + 1] + 1) * 8;
      next = p.data[pos];
      pos += len;
      remaining -= len;
    } else if (next === 44) {
      if (end - pos < 8) return malformed(p, 'IPv6 fragment header cut short');
      const fragField = v.getUint16(pos + 2);
      next = p.data[pos];
      pos += 8;
      remaining -= 8;
      if ((fragField & 0xfff9) !== 0) {
        p.protocol = next;
        p.kind = PacketKind.fragment;
        return;
      }
    } else if (next === 51) {
      if (end - pos < 2) return malformed(p, 'IPv6 AH header cut short');
      const len = (p.data[pos + 1] + 2) * 4;
      next = p.data[pos];
      pos += len;
      remaining -= len;
    } else {
      break; // ICMPv6, ESP, no-next-header, ...
    }
    if (remaining < 0) return malformed(p, 'IPv6 extension headers exceed the payload length');
  }
  p.protocol = next;
  decodeTransport(p, pos, end, remaining);
}

/** `l4Len`: transport bytes according to the IP header. */
function decodeTransport(p: PacketRecord, off: number, end: number, l4Len: number): void {
  const proto = p.protocol;
  if (proto === 6) decodeTcp(p, off, end, l4Len);
  else if (proto === 17) decodeUdp(p, off, end, l4Len);
  else p.kind = PacketKind.otherIp;
}

function decodeUdp(p: PacketRecord, off: number, end: number, l4Len: number): void {
  if (l4Len < 8) return malformed(p, 'UDP length < 8');
  if (end - off < 8) return malformed(p, 'UDP header cut short');
  const v = p.view;
  p.srcPort = v.getUint16(off);
  p.dstPort = v.getUint16(off + 2);
  p.payloadLen = l4Len - 8;
  p.payloadOffset = off + 8;
  p.payloadCapLen = Math.min(p.payloadLen, end - off - 8);
  p.kind = PacketKind.udp;
}

function decodeTcp(p: PacketRecord, off: number, end: number, l4Len: number): void {
  if (end - off < 20) return malformed(p, 'TCP header cut short');
  const v = p.view;
  const hdrLen = (p.data[off + 12] >> 4) * 4;
  if (hdrLen < 20) return malformed(p, 'TCP data offset < 5');
  if (hdrLen > l4Len) return malformed(p, 'TCP header longer than the IP payload');
  p.srcPort = v.getUint16(off);
  p.dstPort = v.getUint16(off + 2);
  p.seq = v.getUint32(off + 4);
  p.ack = v.getUint32(off + 8);
  p.tcpFlags = p.data[off + 13];
  p.window = v.getUint16(off + 14);
  p.tcpHeaderLen = hdrLen;
  p.payloadLen = l4Len - hdrLen;
  p.payloadOffset = off + hdrLen;
  p.payloadCapLen = Math.max(0, Math.min(p.payloadLen, end - off - hdrLen));
  // Options: parse what was captured (snaplen 128 keeps them all in practice).
  parseTcpOptions(p, off + 20, Math.min(off + hdrLen, end));
  p.kind = PacketKind.tcp;
}

function parseTcpOptions(p: PacketRecord, pos: number, end: number): void {
  const d = p.data;
  const v = p.view;
  while (pos < end) {
    const kind = d[pos];
    if (kind === 0) return; // end of options
    if (kind === 1) {
      pos++;
      continue;
    }
    if (pos + 1 >= end) return;
    const len = d[pos + 1];
    if (len < 2 || pos + len > end) return; // garbled or cut: keep what we have
    switch (kind) {
      case 2:
        if (len === 4) {
          p.mss = v.getUint16(pos + 2);
          p.tcpOptions |= TcpOpt.mss;
        }
        break;
      case 3:
        if (len === 3) {
          p.wscale = Math.min(d[pos + 2], 14);
          p.tcpOptions |= TcpOpt.wscale;
        }
        break;
      case 4:
        p.tcpOptions |= TcpOpt.sackPermitted;
        break;
      case 5: {
        const n = Math.min(4, (len - 2) >> 3);
        for (let i = 0; i < n; i++) {
          p.sack[2 * i] = v.getUint32(pos + 2 + 8 * i);
          p.sack[2 * i + 1] = v.getUint32(pos + 6 + 8 * i);
        }
        p.sackCount = n;
        if (n > 0) p.tcpOptions |= TcpOpt.sack;
        break;
      }
      case 8:
        if (len === 10) {
          p.tsVal = v.getUint32(pos + 2);
          p.tsEcr = v.getUint32(pos + 6);
          p.tcpOptions |= TcpOpt.timestamps;
        }
        break;
    }
    pos += len;
  }
}
