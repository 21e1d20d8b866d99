/**
 * The conditions grid's path and sender axes are real (issue 16): a lab region that loses or
 * reorders packets on the server-side path, one whose origins start with a larger initial window
 * and pace, one whose server-side path is shared with cross traffic, and a bottleneck that
 * aggregates ACKs; each checked on the capture (what the trace's own conditions read) or the
 * server's tcp_info, through the real lab and the real bottleneck.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { unwindLab } from '../helpers/lab.js';
import { parseLabConfig } from '../../src/lab/config.js';
import { startLab, type LabState } from '../../src/lab/lab.js';
import { probeOnce, resolveProbeTarget } from '../../src/probe/probe.js';
import { loadProfile, withOverrides } from '../../src/shaper/profile.js';
import { traceProbeDir } from '../../src/train/dataset.js';
import { bulkFlow, PROBE_CLIENT_IP } from '../../src/validate/run-dir.js';
import { isRoot } from '../helpers/system.js';

describe.skipIf(!isRoot)('conditions grid: path, sender and ACK axes', () => {
  const stack = new CleanupStack(`test-labcond-${process.pid}`);
  let lab: LabState & { pid: number };
  const out = mkdtempSync(join(tmpdir(), 'ccb-labcond-'));

  beforeAll(async () => {
    const cfg = parseLabConfig({
      name: 'cond-test',
      origins: [{ name: 'tcp-cubic', hosts: ['cubic.tcp.lab.ccb.test'], cca: 'cubic' }, { name: 'tcp-reno', hosts: ['reno.tcp.lab.ccb.test'], cca: 'reno' }],
      regions: [
        { name: 'lossy', rttMs: 10, loss: { percent: 3 } },
        { name: 'reord', rttMs: 10, reorder: { percent: 10, extraMs: 5 } },
        { name: 'sender', rttMs: 10, sender: { initcwnd: 40, pacing: true } },
        { name: 'xpath', rttMs: 10, crossTraffic: { pathRateKbit: 2000, bufferMs: 30, from: 'tcp-reno' } },
      ],
      tcpInfoIntervalMs: 10,
    }, 'test');
    lab = { ...(await startLab(stack, cfg)), pid: process.pid };
  }, 300_000);

  afterAll(() => unwindLab(stack, lab), 120_000);

  const probe = async (region: string, bytes: number, profileName = 'nebby-50', over = {}) => {
    const profile = withOverrides(await loadProfile(profileName), over);
    const t = resolveProbeTarget(lab, `https://cubic.tcp.lab.ccb.test/bytes/${bytes}`, region);
    const r = await probeOnce(lab, t, profile, { region, outDir: out, timeoutSeconds: 150 });
    if (r.status !== 'complete') throw new Error(`probe through ${region} incomplete: ${r.error}`);
    expect(r.status).toBe('complete');
    const f = bulkFlow((await traceProbeDir(r.dir)).flows, 'tcp', { originIp: r.origin.ip, afterCrossTraffic: false })!;
    return { r, f };
  };

  it('loss on the server-side path: the capture sees gaps the server fills a round trip later, counted as the sender\'s loss', async () => {
    const { f } = await probe('lossy', 120_000);
    const c = f.conditions!;
    // 3% of the data packets lost before the capture point (binomial over ~1400 packets: 1.7-4.5%).
    expect(c.upstreamLossShare!).toBeGreaterThan(0.015);
    expect(c.upstreamLossShare!).toBeLessThan(0.05);
    expect(f.tcp!.server.upstreamLostPackets).toBeGreaterThan(10);
    expect(f.series!.loss!.lostBytes).toBeGreaterThanOrEqual(f.tcp!.server.upstreamLostBytes);
  }, 180_000);

  it('reordering on the server-side path: gaps filled within half an RTT, not losses', async () => {
    const { f } = await probe('reord', 120_000);
    const c = f.conditions!;
    // 10% of packets held 5 ms: one counts only when a later packet overtakes it, so the share
    // seen is below 10% and moves with the host's timing (measured 3.8-5%); a clean path shows 0.
    expect(c.reorderShare!).toBeGreaterThan(0.02);
    expect(c.upstreamLossShare!).toBeLessThan(0.005);
  }, 180_000);

  it('sender details: the first flight is 40 segments, paced (not back to back)', async () => {
    const { r } = await probe('sender', 60_000);
    const gt = readFileSync(join(r.dir, 'ground-truth.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { cwnd: number });
    expect(gt[0].cwnd).toBe(40);
    // Pacing: the data packets of the first flight leave spread out, most gaps over 1 ms (unpaced: microseconds).
    const tr = await traceProbeDir(r.dir);
    const f = bulkFlow(tr.flows, 'tcp', { originIp: r.origin.ip, afterCrossTraffic: false })!;
    const flags = f.sampleFlags!;
    const t = f.series!.t;
    const sends: number[] = [];
    for (let i = 0; i < t.length && sends.length < 30; i++) if (flags[i] & 16) sends.push(t[i]);
    const gaps = sends.slice(1).map((x, i) => x - sends[i]);
    // Unpaced, all 29 gaps are microseconds; paced, most are over 1 ms on a quiet host. A host
    // stall makes the pacing timer release what fell due at once (session 37 saw a third fail),
    // so a fifth is asked: still never met by a back-to-back flight.
    const ms = gaps.map((g) => (g * 1000).toFixed(2)).join(' ');
    expect(gaps.filter((g) => g > 0.001).length, `first-flight gaps (ms): ${ms}`).toBeGreaterThan(gaps.length / 5);
  }, 180_000);

  it('cross traffic on the server-side path: the region link is loaded and shared', async () => {
    const { f } = await probe('xpath', 60_000);
    // A loaded 2 Mbit/s link with a 30 ms queue in front of the capture point: the server side of the round trip grows.
    expect(f.conditions!.serverSideRttSeconds!).toBeGreaterThan(0.005);
    const ns = lab.routerNs;
    const { execFileSync } = await import('node:child_process');
    const stats = execFileSync('tc', ['-n', ns, '-s', 'class', 'show', 'dev', 'ifb3'], { encoding: 'utf8' });
    const sent = Number(/Sent (\d+) bytes/.exec(stats)?.[1] ?? 0);
    expect(sent).toBeGreaterThan(1_000_000);
  }, 180_000);

  it('aggregated ACKs: the client\'s ACKs reach the capture point in batches every 20 ms', async () => {
    const { f } = await probe('lossy', 40_000, 'nebby-50', { ackAggregationMs: 20 });
    const flags = f.sampleFlags!;
    const t = f.series!.t;
    const acks: number[] = [];
    for (let i = 0; i < t.length; i++) if (!(flags[i] & 16)) acks.push(t[i]);
    const gaps = acks.slice(1).map((x, i) => x - acks[i]).filter((g) => g > 0.0005);
    // Between batches: about 20 ms (or a multiple), never a few ms as one ACK per packet would give at 200 kbit/s.
    const offGrid = gaps.filter((g) => Math.abs(g / 0.02 - Math.round(g / 0.02)) * 0.02 > 0.003);
    expect(gaps.length).toBeGreaterThan(20);
    expect(offGrid.length).toBeLessThan(gaps.length * 0.1);
    expect(PROBE_CLIENT_IP).toBeTruthy();
  }, 180_000);
});
