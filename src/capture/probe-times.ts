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

/** One probe's round trip, timed by the kernel at the client's tap. */
export interface ProbeTiming {
  seq: number;
  /** Client's send to the echo's arrival, less the turnaround at the server-side tap if given. */
  rttMs: number;
  /**
   * The ways through the shaper: client -> server-side tap and back when that tap is given,
   * else the whole round trip as one leg. A delay stage that wakes late at a leg's entry + one
   * delay holds that leg back.
   */
  legs: ProbeLeg[];
}

export interface ProbeLeg {
  /** Capture time (s) at which the leg entered the shaper. */
  enteredAt: number;
  /** How long it took (ms). */
  ms: number;
  /** One-way delays it crosses: 1, or 2 for a whole round trip. */
  delays: 1 | 2;
}

/**
 * Round trips of probes: client's send to the echo's arrival, both seen at the client.
 * With `atServerSide` (a tap between the delay stage and the echo server), each probe's
 * turnaround there (the echo process's own scheduling, not the network's) is taken off, so a
 * busy host does not pass for a slow link.
 */
export function probeTimings(packets: TaggedUdpPacket[], echoPort: number, atServerSide?: TaggedUdpPacket[]): ProbeTiming[] {
  const atClient = probeRoundTrips(packets, echoPort);
  const atServer = atServerSide ? probeRoundTrips(atServerSide, echoPort) : new Map<number, RoundTrip>();
  return [...atClient].map(([seq, c]) => {
    const s = atServer.get(seq);
    const legs: ProbeLeg[] = s
      ? [{ enteredAt: c.sentAt, ms: (s.sentAt - c.sentAt) * 1000, delays: 1 }, { enteredAt: s.echoAt, ms: (c.echoAt - s.echoAt) * 1000, delays: 1 }]
      : [{ enteredAt: c.sentAt, ms: (c.echoAt - c.sentAt) * 1000, delays: 2 }];
    return { seq, rttMs: (c.echoAt - c.sentAt) * 1000 - (s ? (s.echoAt - s.sentAt) * 1000 : 0), legs };
  });
}

interface RoundTrip { sentAt: number; echoAt: number }

/** Per probe sequence number: when one tap saw the probe, and its echo. */
function probeRoundTrips(packets: TaggedUdpPacket[], echoPort: number): Map<number, RoundTrip> {
  const sent = new Map<number, number>();
  const trips = new Map<number, RoundTrip>();
  for (const p of packets) {
    if (p.tag !== 'PROB') continue;
    if (p.dstPort === echoPort) { if (!sent.has(p.seq)) sent.set(p.seq, p.time); }
    else if (p.srcPort === echoPort) {
      const t0 = sent.get(p.seq);
      if (t0 !== undefined && !trips.has(p.seq)) trips.set(p.seq, { sentAt: t0, echoAt: p.time });
    }
  }
  return trips;
}

/**
 * Which probes a stall of the host may explain. ccb-delayline logs each late release as a
 * window [due, released] (us, CLOCK_REALTIME). A stall delays more than the release itself
 * (the packet's way through the stack after the verdict stalls too; measured: probes released
 * on time but 15 ms late at the tap, inside a cluster of such windows), so a probe counts as
 * host-stalled when a window overlaps one of its legs while that leg was late: from its due
 * time (entry + one-way delay; less `slackUs` for the tap-to-stamp gap) to due + that leg's
 * own excess over its configured delay. A leg on time is never host-stalled; a constant excess
 * on every probe is only set aside where a window happens to fall within it.
 */
export function hostStalledProbes(probes: ProbeTiming[], delayMs: number, lateWindowsUs: [number, number][], slackUs = 200): boolean[] {
  const windows = [...lateWindowsUs].sort((a, b) => a[0] - b[0]);
  // Latest end among the windows begun by each one: windows may nest or overlap.
  const reach: number[] = [];
  for (const [i, w] of windows.entries()) reach.push(Math.max(w[1], i ? reach[i - 1] : -Infinity));
  const overlaps = (fromUs: number, toUs: number) => {
    let lo = 0; let hi = windows.length - 1; let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (windows[mid][0] <= toUs) { last = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return last >= 0 && reach[last] >= fromUs;
  };
  return probes.map((p) => p.legs.some((leg) => {
    const excessUs = (leg.ms - leg.delays * delayMs) * 1000;
    if (excessUs <= 0) return false;
    const dueUs = leg.enteredAt * 1e6 + delayMs * 1000;
    return overlaps(dueUs - slackUs, dueUs + excessUs);
  }));
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
