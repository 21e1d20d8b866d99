import { describe, expect, it } from 'vitest';
import { hostStalledProbes, oneWayMs, probeTimings, type TaggedUdpPacket } from '../../../src/capture/probe-times.js';

const ECHO = 5002;
const probeRttsMs = (...args: Parameters<typeof probeTimings>) => probeTimings(...args).map((p) => p.rttMs);
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

  it('splits a probe into its two ways through the shaper at the server-side tap', () => {
    const atClient = [probe(1.000, 1, true), probe(1.0202, 1, false)];
    const atServer = [probe(1.010, 1, true), probe(1.0102, 1, false)];
    const [leg1, leg2] = probeTimings(atClient, ECHO, atServer)[0].legs;
    expect(leg1.enteredAt).toBe(1.000);
    expect(leg1.ms).toBeCloseTo(10, 6);
    expect(leg1.delays).toBe(1);
    expect(leg2.enteredAt).toBe(1.0102);
    expect(leg2.ms).toBeCloseTo(10, 6);
    // Without that tap the round trip is one leg across both delays.
    const [whole] = probeTimings(atClient, ECHO)[0].legs;
    expect(whole.ms).toBeCloseTo(20.2, 6);
    expect(whole.delays).toBe(2);
  });
});

describe('probes a host stall may explain', () => {
  // 10 ms one-way delay: a leg entering at t falls due at t + 10 ms.
  const probeOf = (out: [number, number], back: [number, number]) => ({ seq: 0, rttMs: out[1] + back[1],
    legs: [{ enteredAt: out[0], ms: out[1], delays: 1 as const }, { enteredAt: back[0], ms: back[1], delays: 1 as const }] });
  const us = (s: number) => Math.round(s * 1e6);

  it('sets aside a probe when a late-release window overlaps a leg while that leg was late', () => {
    const probes = [
      probeOf([1.000, 16], [1.017, 10]), // outbound due 1.010, 6 ms late: window [1.0095, 1.016] overlaps
      probeOf([2.000, 10], [2.011, 14]), // return due 2.021, 4 ms late: window [2.023, 2.030] begins inside
      probeOf([3.000, 14], [3.015, 10]), // outbound 4 ms late, no window until 3.030
      probeOf([4.000, 10], [4.011, 10]), // on time, though a window covers its outbound due time
      probeOf([5.000, 14], [5.015, 10]), // late outbound; the window meets only the on-time return
    ];
    const windows: [number, number][] = [[us(1.0095), us(1.016)], [us(2.023), us(2.030)], [us(3.030), us(3.040)],
      [us(4.005), us(4.015)], [us(5.025), us(5.027)]];
    expect(hostStalledProbes(probes, 10, windows)).toEqual([true, true, false, false, false]);
  });

  it('allows for the slack before a leg is due, not more', () => {
    const windows: [number, number][] = [[us(1.000), us(1.0099)]];
    expect(hostStalledProbes([probeOf([1.000, 15], [2, 10])], 10, windows)).toEqual([true]); // ends 100 us before due
    expect(hostStalledProbes([probeOf([1.0003, 15], [2, 10])], 10, windows)).toEqual([false]); // ends 400 us before
  });

  it('reads nested and overlapping windows by the latest end among those begun', () => {
    const windows: [number, number][] = [[us(1.000), us(1.020)], [us(1.005), us(1.006)]];
    expect(hostStalledProbes([probeOf([1.0, 12], [2, 10])], 10, windows)).toEqual([true]); // due 1.010, inside the long one
    expect(hostStalledProbes([probeOf([1.0, 12], [2, 10])], 10, [])).toEqual([false]);
  });

  it('without the server-side tap, judges the round trip as one leg across both delays', () => {
    const whole = { seq: 0, rttMs: 25, legs: [{ enteredAt: 1.000, ms: 25, delays: 2 as const }] };
    expect(hostStalledProbes([whole], 10, [[us(1.012), us(1.014)]])).toEqual([true]); // due 1.010, late until 1.015
    expect(hostStalledProbes([{ ...whole, rttMs: 20, legs: [{ ...whole.legs[0], ms: 20 }] }], 10, [[us(1.012), us(1.014)]])).toEqual([false]);
  });
});
