import { describe, expect, it } from 'vitest';
import { hostStalledProbes, oneWayMs, probeRttsMs, probeTimings, type TaggedUdpPacket } from '../../../src/capture/probe-times.js';

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

describe('probes a host stall may explain', () => {
  // 10 ms one-way delay (20 ms RTT): a leg entering at t falls due at t + 10 ms.
  const timing = (sentAt: number, echoAt: number, rttMs: number) => ({ seq: 0, rttMs, enteredShaperAt: [sentAt, echoAt] });
  const us = (s: number) => Math.round(s * 1e6);

  it('sets aside a late probe when a late-release window overlaps a leg while it was late', () => {
    const probes = [
      timing(1.000, 1.011, 26), // outbound due 1.010, 6 ms late: window [1.0095, 1.016] overlaps
      timing(2.000, 2.011, 24), // return due 2.021, 4 ms late: window [2.023, 2.030] begins inside [2.021, 2.025]
      timing(3.000, 3.011, 24), // due 3.010 and 3.021, 4 ms late: nothing until 3.030
      timing(4.000, 4.011, 20), // on time, though a window covers its outbound due time
    ];
    const windows: [number, number][] = [[us(1.0095), us(1.016)], [us(2.023), us(2.030)], [us(3.030), us(3.040)], [us(4.005), us(4.015)]];
    expect(hostStalledProbes(probes, 10, windows)).toEqual([true, true, false, false]);
  });

  it('allows for the slack before a leg is due, not more', () => {
    const windows: [number, number][] = [[us(1.000), us(1.0099)]];
    expect(hostStalledProbes([timing(1.000, 5, 25)], 10, windows)).toEqual([true]); // ends 100 us before due
    expect(hostStalledProbes([timing(1.0003, 5, 25)], 10, windows)).toEqual([false]); // ends 400 us before
  });

  it('reads nested and overlapping windows by the latest end among those begun', () => {
    const windows: [number, number][] = [[us(1.000), us(1.020)], [us(1.005), us(1.006)]];
    expect(hostStalledProbes([timing(1.0, 5, 22)], 10, windows)).toEqual([true]); // due 1.010, inside the long one
    expect(hostStalledProbes([timing(1.0, 5, 22)], 10, [])).toEqual([false]);
  });
});
