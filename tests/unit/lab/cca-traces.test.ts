/**
 * The trace readers that validate the lab's BBR, FAST, Copa and LP senders
 * (src/lab/cca/bbr-trace.ts, trace-shape.ts), on synthetic tcp_info series with known phases.
 */
import { describe, expect, it } from 'vitest';
import type { TcpInfoSample } from '../../../src/lab/cca/tcpinfo.js';
import { bdpPackets, cruiseRate, gainEpisodes, intervalsUs, minRttDecreases, probeRttDelays, windowDips } from '../../../src/lab/cca/bbr-trace.js';
import { level, losslessCuts, oscillationPeriod, pathEstimate } from '../../../src/lab/cca/trace-shape.js';

const MSS = 1448;
const RATE = 2_400_000; // bytes/s (~19.2 Mbit/s)

function sample(tUs: number, over: Partial<TcpInfoSample> = {}): TcpInfoSample {
  return {
    tUs, cwnd: 140, ssthresh: 70, unacked: 66, srttUs: 40_000, minRttUs: 40_000, totalRetrans: 0,
    bytesAcked: Math.round((RATE * tUs) / 1e6), caState: 0, mss: MSS, deliveryRateBps: RATE, lost: 0,
    pacingRateBps: RATE * 0.99, ...over,
  };
}

/** 12 s of a BBRv2-like sender: Startup to 0.5 s, probes (x1.25 then x0.75) every 2.5 s, a
 * ProbeRTT at 5.5 s (cwnd 33 for 250 ms). */
function bbrLike(): TcpInfoSample[] {
  const out: TcpInfoSample[] = [];
  for (let t = 0; t <= 12_000_000; t += 10_000) {
    if (t < 500_000) { out.push(sample(t, { ssthresh: 0x7fffffff, pacingRateBps: RATE * 2.5, minRttUs: t < 300_000 ? 41_000 : 40_000 })); continue; }
    const inCycle = (t - 1_000_000) % 2_500_000;
    let gain = 1;
    if (t >= 1_000_000 && inCycle < 40_000) gain = 1.25;
    else if (t >= 1_000_000 && inCycle >= 40_000 && inCycle < 80_000) gain = 0.75;
    const probeRtt = t >= 5_500_000 && t < 5_750_000;
    out.push(sample(t, { pacingRateBps: RATE * 0.99 * gain, cwnd: probeRtt ? 33 : 140, minRttUs: t < 300_000 ? 41_000 : 40_000 }));
  }
  return out;
}

describe('bbr-trace', () => {
  it('reads the cruise rate, the probes and drains with their gains, and their spacing', () => {
    const s = bbrLike();
    expect(cruiseRate(s)).toBeCloseTo(RATE * 0.99, -3);
    const up = gainEpisodes(s, { above: 1.12 });
    expect(up.map((e) => e.tStartUs)).toEqual([1_000_000, 3_500_000, 6_000_000, 8_500_000, 11_000_000].filter((t) => t >= 1_000_000));
    expect(up.every((e) => Math.abs(e.gain - 1.25) < 0.01)).toBe(true);
    expect(intervalsUs(up)).toEqual([2_500_000, 2_500_000, 2_500_000, 2_500_000]);
    const down = gainEpisodes(s, { below: 0.95 });
    expect(down).toHaveLength(5);
    expect(down[0].gain).toBeCloseTo(0.75, 2);
  });

  it('finds the ProbeRTT dip, its depth against the BDP, and its delay after the min-RTT clock', () => {
    const s = bbrLike();
    const dips = windowDips(s);
    expect(dips).toHaveLength(1);
    expect(dips[0]).toMatchObject({ tStartUs: 5_500_000, cwndMin: 33, cwndTypical: 140 });
    // The samples around it bound it from above (10 ms apart here).
    expect(dips[0].tBeforeUs).toBe(dips[0].tStartUs - 10_000);
    expect(dips[0].tAfterUs).toBe(dips[0].tEndUs + 10_000);
    expect(bdpPackets(s)).toBeCloseTo((RATE * 0.04) / MSS, 0);
    expect(minRttDecreases(s)).toEqual([0, 300_000]);
    const { delaysUs, dueUs } = probeRttDelays(s, dips, 5_000_000);
    expect(delaysUs).toEqual([5_200_000]);
    expect(dueUs).toBe(dips[0].tEndUs + 5_000_000);
    expect(dips[0].cutByTraceEnd).toBe(false);
  });

  it('marks a dip the end of the trace cut short', () => {
    const dips = windowDips(bbrLike().filter((x) => x.tUs < 5_650_000));
    expect(dips).toHaveLength(1);
    expect(dips[0].cutByTraceEnd).toBe(true);
  });

  it('does not take a loss recovery cut for a ProbeRTT', () => {
    const s = bbrLike().map((x) => (x.tUs >= 5_500_000 && x.tUs < 5_750_000 ? { ...x, caState: 3 } : x));
    expect(windowDips(s)).toHaveLength(0);
  });
});

describe('trace-shape', () => {
  it('estimates the path and a flat level (FAST-like: BDP + 20 packets)', () => {
    const s = Array.from({ length: 800 }, (_, i) => sample(i * 10_000, { unacked: 86 + (i % 3 === 0 ? 1 : 0) }));
    const p = pathEstimate(s);
    expect(p.minRttUs).toBe(40_000);
    expect(p.bdpPackets).toBeCloseTo(66.3, 0);
    const l = level(s, 'unacked', 1_000_000);
    expect(l.median).toBe(86);
    expect(l.spread).toBeLessThan(0.02);
  });

  it('finds a 5-RTT oscillation (Copa-like) through drift and noise, and none in a flat level', () => {
    const periodUs = 200_000; // 5 RTTs of 40 ms
    const s = Array.from({ length: 1000 }, (_, i) => {
      const t = i * 10_000;
      // +-3 packets every 5 RTTs, on a slow drift, with +-1 of sampling noise
      return sample(t, { cwnd: Math.round(70 + 3 * Math.sin((2 * Math.PI * t) / periodUs) + 10 * Math.sin((2 * Math.PI * t) / 4_000_000) + ((i * 7919) % 3) - 1) });
    });
    const p = oscillationPeriod(s, 'cwnd', { detrendUs: 320_000, hysteresis: 0.5 });
    expect(p.cycles).toBeGreaterThan(40);
    expect(p.periodUs).toBeGreaterThan(180_000);
    expect(p.periodUs).toBeLessThan(220_000);
    const flat = Array.from({ length: 1000 }, (_, i) => sample(i * 10_000, { cwnd: 86 }));
    expect(oscillationPeriod(flat, 'cwnd', { detrendUs: 320_000, hysteresis: 0.5 }).cycles).toBe(0);
  });

  it('counts window cuts without a loss, not those with one', () => {
    const s = [sample(0, { cwnd: 80 }), sample(10_000, { cwnd: 40 }), sample(20_000, { cwnd: 41 }), sample(30_000, { cwnd: 20, totalRetrans: 3 }), sample(40_000, { cwnd: 2, totalRetrans: 3 })];
    expect(losslessCuts(s).map((c) => [c.cwndBefore, c.cwndAfter])).toEqual([[80, 40], [20, 2]]);
  });
});
