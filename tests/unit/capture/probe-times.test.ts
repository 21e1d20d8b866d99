import { describe, expect, it } from 'vitest';
import { oneWayMs, probeRttsMs, type TaggedUdpPacket } from '../../../src/capture/probe-times.js';

const ECHO = 5002;
const probe = (time: number, seq: number, toEcho: boolean): TaggedUdpPacket =>
  ({ time, tag: 'PROB', seq, srcPort: toEcho ? 40000 : ECHO, dstPort: toEcho ? ECHO : 40000 });

describe('probe round trips from kernel timestamps', () => {
  it('pairs each probe with its first echo and ignores unanswered probes', () => {
    const atClient = [probe(1.000, 1, true), probe(1.050, 2, true), probe(1.021, 1, false), probe(1.030, 1, false)];
    expect(probeRttsMs(atClient, ECHO).map((x) => Math.round(x))).toEqual([21]);
  });

  it("takes the echo process's turnaround seen at the server-side tap off the round trip", () => {
    // Probe 1: 20 ms of network, 0.2 ms turnaround. Probe 2: the echo process stalled 6 ms.
    const atClient = [probe(1.000, 1, true), probe(1.0202, 1, false), probe(2.000, 2, true), probe(2.026, 2, false)];
    const atServer = [probe(1.010, 1, true), probe(1.0102, 1, false), probe(2.010, 2, true), probe(2.016, 2, false)];
    const rtts = probeRttsMs(atClient, ECHO, atServer);
    expect(rtts[0]).toBeCloseTo(20, 6);
    expect(rtts[1]).toBeCloseTo(20, 6);
    // Without the server-side tap the stall would read as 6 ms of extra delay.
    expect(probeRttsMs(atClient, ECHO)[1]).toBeCloseTo(26, 6);
  });

  it('one-way delays pair overload packets by sequence number', () => {
    const blst = (time: number, seq: number): TaggedUdpPacket => ({ time, tag: 'BLST', seq, srcPort: 1, dstPort: 2 });
    expect(oneWayMs([blst(1, 1), blst(1.001, 2), blst(1.002, 3)], [blst(1.030, 1), blst(1.033, 3)]).map((x) => Math.round(x))).toEqual([30, 31]);
  });
});
