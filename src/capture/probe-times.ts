/**
 * Reads the shaper check's own UDP probes out of a capture, with the kernel's capture
 * timestamps. Timing probes by the kernel rather than in the agent keeps the measurement
 * about the network: a busy machine delays a userspace timestamp, not a packet tap.
 * (A deliberately small reader: Ethernet, IPv4/IPv6, UDP only; the full reader is src/trace.)
 */
import { readFileSync } from 'node:fs';
import { BadInputError } from '../util/errors.js';

export interface TaggedUdpPacket {
  /** Capture time in seconds (CLOCK_REALTIME of the capturing host). */
  time: number;
  /** "PROB" (probe), "BLST" (overload), anything else is skipped. */
  tag: string;
  seq: number;
  srcPort: number;
  dstPort: number;
}

export function readTaggedUdp(file: string): TaggedUdpPacket[] {
  const buf = readFileSync(file);
  if (buf.length < 24) throw new BadInputError(`${file}: not a pcap file (too short)`);
  const magic = buf.readUInt32LE(0);
  let le: boolean; let nano: boolean;
  if (magic === 0xa1b2c3d4) { le = true; nano = false; }
  else if (magic === 0xa1b23c4d) { le = true; nano = true; }
  else if (magic === 0xd4c3b2a1) { le = false; nano = false; }
  else if (magic === 0x4d3cb2a1) { le = false; nano = true; }
  else throw new BadInputError(`${file}: not a pcap file (magic 0x${magic.toString(16)})`);
  const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const out: TaggedUdpPacket[] = [];
  let off = 24;
  while (off + 16 <= buf.length) {
    const sec = u32(off); const frac = u32(off + 4); const caplen = u32(off + 8);
    const rec = off + 16;
    off = rec + caplen;
    if (off > buf.length) break; // truncated last record (capture stopped mid-write)
    if (caplen < 14) continue;
    const etherType = buf.readUInt16BE(rec + 12);
    let l4: number; let proto: number;
    if (etherType === 0x0800) { proto = buf[rec + 23]; l4 = rec + 14 + (buf[rec + 14] & 0x0f) * 4; }
    else if (etherType === 0x86dd) { proto = buf[rec + 20]; l4 = rec + 54; }
    else continue;
    if (proto !== 17 || l4 + 16 > off) continue;
    const tag = buf.toString('latin1', l4 + 8, l4 + 12);
    if (tag !== 'PROB' && tag !== 'BLST') continue;
    out.push({ time: sec + frac / (nano ? 1e9 : 1e6), tag, seq: buf.readUInt32BE(l4 + 12),
      srcPort: buf.readUInt16BE(l4), dstPort: buf.readUInt16BE(l4 + 2) });
  }
  return out;
}

/**
 * Round-trip times (ms) of probes: client's send to the echo's arrival, both seen at the client.
 * With `atServerSide` (a tap between the delay stage and the echo server), each probe's
 * turnaround there (the echo process's own scheduling, not the network's) is taken off, so a
 * busy host does not pass for a slow link.
 */
export function probeRttsMs(packets: TaggedUdpPacket[], echoPort: number, atServerSide?: TaggedUdpPacket[]): number[] {
  const turnaround = atServerSide ? probeRoundTrips(atServerSide, echoPort) : new Map<number, number>();
  return [...probeRoundTrips(packets, echoPort)].map(([seq, ms]) => ms - (turnaround.get(seq) ?? 0));
}

/** Per probe sequence number: ms from the probe to its echo, both seen by one tap. */
function probeRoundTrips(packets: TaggedUdpPacket[], echoPort: number): Map<number, number> {
  const sent = new Map<number, number>();
  const rtts = new Map<number, number>();
  for (const p of packets) {
    if (p.tag !== 'PROB') continue;
    if (p.dstPort === echoPort) { if (!sent.has(p.seq)) sent.set(p.seq, p.time); }
    else if (p.srcPort === echoPort) {
      const t0 = sent.get(p.seq);
      if (t0 !== undefined && !rtts.has(p.seq)) rtts.set(p.seq, (p.time - t0) * 1000);
    }
  }
  return rtts;
}

/** One-way delays (ms) of overload packets from the capture point to the client. */
export function oneWayMs(atCapturePoint: TaggedUdpPacket[], atClient: TaggedUdpPacket[]): number[] {
  const seen = new Map<number, number>();
  for (const p of atCapturePoint) if (p.tag === 'BLST') seen.set(p.seq, p.time);
  const delays: number[] = [];
  for (const p of atClient) {
    if (p.tag !== 'BLST') continue;
    const t0 = seen.get(p.seq);
    if (t0 !== undefined) delays.push((p.time - t0) * 1000);
  }
  return delays;
}
