import { describe, expect, it } from 'vitest';
import { hostDelayedProbes, oneWayMs, probeRttsMs, probeTimings, type TaggedUdpPacket } from '../../../src/capture/probe-times.js';

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

  it('records when each probe and its echo entered the shaper', () => {
    const atClient = [probe(1.000, 1, true), probe(1.0202, 1, false)];
    const atServer = [probe(1.010, 1, true), probe(1.0102, 1, false)];
    expect(probeTimings(atClient, ECHO, atServer)[0].enteredShaperAt).toEqual([1.000, 1.0102]);
    expect(probeTimings(atClient, ECHO)[0].enteredShaperAt).toEqual([1.000]);
  });
});

describe('probes held back by host stalls', () => {
  // 10 ms one-way delay: a leg entering at t falls due at t + 10 ms.
  const timing = (sentAt: number, echoAt: number) => ({ seq: 0, rttMs: 20, enteredShaperAt: [sentAt, echoAt] });
  const us = (s: number) => Math.round(s * 1e6);

  it('flags a probe whose outbound or return leg fell due inside a late-release window', () => {
    const probes = [timing(1.000, 1.011), timing(2.000, 2.011), timing(3.000, 3.011)];
    // Window 1: the outbound leg of probe 1 (due 1.010) left at 1.016. Window 2: the return
    // leg of probe 2 (due 2.021). Probe 3 is due at 3.010 and 3.021: no window near.
    const windows: [number, number][] = [[us(1.0095), us(1.016)], [us(2.0205), us(2.025)]];
    expect(hostDelayedProbes(probes, 10, windows)).toEqual([true, true, false]);
  });

  it('leaves probes due just outside a window alone (allowing the slack at its start)', () => {
    const probes = [timing(1.000, 1.5), timing(1.0003, 1.5), timing(1.0071, 1.5)];
    // Window [1.0102, 1.017]: due 1.010 is within 200 us of its start, 1.0103 inside,
    // 1.0171 just after its end.
    const windows: [number, number][] = [[us(1.0102), us(1.017)]];
    expect(hostDelayedProbes(probes, 10, windows)).toEqual([true, true, false]);
  });

  it('finds a due time in an earlier, longer window that a later one overlaps', () => {
    const windows: [number, number][] = [[us(1.000), us(1.020)], [us(1.005), us(1.006)]];
    expect(hostDelayedProbes([timing(0.9985, 5)], 10, windows)).toEqual([true]);
    expect(hostDelayedProbes([timing(0.9985, 5)], 10, [])).toEqual([false]);
  });
});
