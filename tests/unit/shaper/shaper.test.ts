import { describe, expect, it } from 'vitest';
import { htbBatch, htbBurstBytes } from '../../../src/shaper/shaper.js';
import { parseProfile } from '../../../src/shaper/profile.js';
import { parseTcpdumpStats } from '../../../src/capture/tcpdump.js';
import { evaluate, expectedTcpGoodputKbit, goodputKbit, lateTimeMs } from '../../../src/shaper/check.js';
import type { MeasureResult } from '../../../src/shaper/check-agent.js';

const profile = parseProfile({ name: 't', rateKbit: 200, delayMs: 50, buffer: { bdp: 2 } }, 't');

describe('HTB set-up script', () => {
  it('has a valid default class, a shared class and one class + byte FIFO per flow slot', () => {
    const script = htbBatch('eth9', profile, 4, 5000, 1500);
    expect(script).toMatch(/^qdisc add dev eth9 root handle 1: htb default 2$/m);
    const classes = script.match(/^class add .*$/gm)!;
    expect(classes).toHaveLength(2 + 4);
    expect(script).toContain('classid 1:100 htb rate 200kbit ceil 200kbit');
    expect(script).toContain('classid 1:103 ');
    expect(script).not.toContain('classid 1:104 ');
    expect(script.match(/bfifo limit 5000/g)).toHaveLength(6);
  });

  it('keeps HTB bursts to about one frame at low rates, 1 ms of data at high rates', () => {
    expect(htbBurstBytes(200, 1500)).toBe(1614);
    expect(htbBurstBytes(100_000, 1500)).toBe(12_500);
  });
});

describe('measurement arithmetic', () => {
  it('parses tcpdump closing statistics', () => {
    const s = parseTcpdumpStats('tcpdump: listening on x\n1234 packets captured\n1240 packets received by filter\n6 packets dropped by kernel\n');
    expect(s).toEqual({ captured: 1234, receivedByFilter: 1240, droppedByKernel: 6 });
  });

  it('computes goodput after the warm-up and the TCP goodput a wire rate allows', () => {
    const samples: [number, number][] = [[0, 0], [1, 100], [2, 25_100], [3, 50_100]];
    expect(goodputKbit(samples, 1.5)).toBeCloseTo(200, 5);
    // 1448 payload bytes in a 1514-byte frame.
    expect(expectedTcpGoodputKbit(200, 1448)).toBeCloseTo((200 * 1448) / 1514, 6);
  });
});

describe('judging the added RTT on a host that stalls', () => {
  // 400 probes at the configured 100 ms RTT (50 ms each way), flows at the expected rate.
  const expected = expectedTcpGoodputKbit(200, 1448);
  const flow = (phase: string, i: number) => ({ phase, flow: i,
    samples: [0, 1, 2, 3, 4].map((t) => [t, (t * expected * 1000) / 8] as [number, number]) });
  const measure = (rtts: number[]): MeasureResult => ({ flows: [flow('alone', 0), flow('concurrent', 0)], probeRttMs: rtts, probesSent: rtts.length });
  const capture = { captured: 100, receivedByFilter: 100, droppedByKernel: 0, packetsSentAndReceivedByServer: 100 };
  const judge = (rtts: number[], hostStalled: boolean[]) =>
    evaluate({ profile, flows: 1 }, 'nfqueue', measure(rtts), hostStalled, capture, undefined, 1);
  const check = (r: ReturnType<typeof judge>, name: string) => r.checks.find((c) => c.name.startsWith(name))!;
  const onTime = Array.from({ length: 400 }, (_, i) => 100 + (i % 10) * 0.05);
  // 13 probes (3%) 8-15 ms over.
  const stalled = onTime.map((x, i) => (i % 33 === 0 ? 108 + (i % 8) : x));

  it('judges the p99 without probes that were late while the delay stage was, and says so', () => {
    const r = judge(stalled, stalled.map((_, i) => i % 33 === 0));
    expect(check(r, 'added RTT, p99').ok).toBe(true);
    expect(r.measured.rttP99Ms).toBeLessThan(101);
    expect(r.measured.rttP99AllMs).toBeGreaterThan(107);
    expect(r.measured.probesHostDelayed).toBe(13);
    expect(r.ok).toBe(true);
    expect(r.warnings.join(' ')).toMatch(/host stalled: 13 of 400 probes/);
  });

  it('fails the same excess when no late release explains it (the link itself is off)', () => {
    const r = judge(stalled, stalled.map(() => false));
    expect(check(r, 'added RTT, p99').ok).toBe(false);
    expect(r.ok).toBe(false);
    expect(r.warnings).toEqual([]);
  });

  it('still fails an excess on most probes when a few of them were host-stalled', () => {
    // The link adds 5 ms to every probe; 13 of them happened to meet a late release.
    const r = judge(onTime.map((x) => x + 5), onTime.map((_, i) => i % 33 === 0));
    expect(r.measured.probesHostDelayed).toBe(13);
    expect(check(r, 'added RTT, p99').ok).toBe(false);
    expect(check(r, 'added RTT, median').ok).toBe(false);
  });

  it('cannot judge the link when half the probes or more were held back', () => {
    const r = judge(onTime, onTime.map((_, i) => i % 2 === 0));
    expect(check(r, 'host stalls: probes').ok).toBe(false);
    expect(r.ok).toBe(false);
    expect(check(judge(onTime, onTime.map((_, i) => i % 3 === 0)), 'host stalls: probes').ok).toBe(true);
  });

  it("does not take a delay stage's own lateness for the host's (an independent sampler bounds it)", () => {
    // 50 windows of 10 ms: the stage was 500 ms late in all.
    const stats = { packets: 1, maxHeld: 1, lateReleasesOver1ms: 50, enobufs: 0,
      lateWindowsUs: Array.from({ length: 50 }, (_, i) => [i * 1e6, i * 1e6 + 10_000] as [number, number]) };
    const host = (lateMs: number) => ({ cpus: 2, wakeups: 20_000, lateOver1ms: 10, lateOver3ms: 5, maxLateUs: 9000, lateOver1msTotalMs: lateMs,
      startedAtUs: 0, stoppedAtUs: 60e6 });
    const withHost = (lateMs: number) => evaluate({ profile, flows: 1 }, 'nfqueue', measure(onTime), onTime.map(() => false), capture, stats, 1, host(lateMs));
    expect(check(withHost(48), 'host stalls: delay stage late').ok).toBe(false); // quiet host: the stage fell behind
    expect(withHost(48).ok).toBe(false);
    expect(check(withHost(700), 'host stalls: delay stage late').ok).toBe(true); // the host stalled as much
  });

  it('counts late time once where windows overlap, and only while the sampler ran', () => {
    const w: [number, number][] = [[1000, 5000], [4000, 9000], [20_000, 21_000], [2000, 3000], [90_000, 99_000]];
    expect(lateTimeMs(w, 0, 50_000)).toBeCloseTo(9, 6); // 1000-9000 and 20000-21000
    expect(lateTimeMs(w, 10_000, 200_000)).toBeCloseTo(10, 6); // 20000-21000 and 90000-99000
  });
});
