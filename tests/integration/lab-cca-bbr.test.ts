/**
 * The lab's BBRv2 and BBRv3 (BPF struct_ops, src/lab/bpf/ccb_bbr.h) against kernel BBRv1,
 * on real namespaces with a real propagation delay (tests/helpers/cca-path.ts):
 *   server-ns -- router-ns (delay line 20 ms each way; HTB 20 Mbit/s + bfifo) -- client-ns
 * BDP ~66 packets. Ground truth is the sender's own tcp_info every 10 ms (ccb-bulk): the
 * pacing rate it set reads as its gain cycle (rate / cruise rate), its window as ProbeRTT.
 * Each test says what sets the versions apart and where the number comes from
 * (docs/lab-cca.md, "BBRv2 and BBRv3").
 *
 * Timing on this shared 2-core host: ProbeRTT comes 5 s after the last new minimum RTT,
 * and a late delay-line release can hand the sender a new minimum, so periods are
 * checked as windows, not exact values.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/util/exec.js';
import { bpfSourceDir, ensureRegistered } from '../../src/lab/cca.js';
import { goodputBps, median } from '../../src/lab/cca/tcpinfo.js';
import { bdpPackets, cruiseRate, gainEpisodes, intervalsUs, probeRttDelays, steadySamples, windowDips, type WindowDip } from '../../src/lab/cca/bbr-trace.js';
import { createCcaPath, type CcaPath, type Transfer } from '../helpers/cca-path.js';
import { isRoot } from '../helpers/system.js';

if (!isRoot) console.warn('lab-cca-bbr: skipped, needs root (network namespaces, tc, NFQUEUE, BPF struct_ops)');

const RATE_MBIT = 20;
const RTT_MS = 40;
const DEEP_BUF = 200_000; // ~138 packets, 2 BDP
const SHALLOW_BUF = 30_000; // ~20 packets, 0.3 BDP
const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const s = (us: number) => fmt(us / 1e6);

/** The transfer used `kernelName` (accepted socket at start and end, ss mid-transfer). */
function expectUsed(r: Transfer, kernelName: string): void {
  expect(r.ccAtStart).toBe(kernelName);
  expect(r.ccAtEnd).toBe(kernelName);
  expect(r.ssMidTransfer).toMatch(new RegExp(`\\b${kernelName}\\b`));
  expect(r.samples.length).toBeGreaterThan(100);
}

function describeRun(name: string, r: Transfer): string {
  const up = gainEpisodes(r.samples, { above: 1.12 });
  const down = gainEpisodes(r.samples, { below: 0.95 });
  const dips = windowDips(r.samples);
  return `[lab-cca-bbr] ${name}: goodput ${fmt(goodputBps(r.samples) / 1e6)} Mbit/s, BDP ${fmt(bdpPackets(r.samples), 1)} pkts, ` +
    `probes at ${up.map((e) => `${s(e.tStartUs)}s(${fmt((e.tEndUs - e.tStartUs) / 1e3, 0)}ms x${fmt(e.gain)})`).join(' ')}; ` +
    `drains x${down.map((e) => fmt(e.gain)).join(',')}; ProbeRTT ${dips.map((d) => `${s(d.tStartUs)}s to ${d.cwndMin}/${d.cwndTypical}`).join(' ')}; ` +
    `retrans ${r.samples.at(-1)?.totalRetrans}; host: ${r.hostStalls}`;
}

// One retry, on transfers measured again: a host stall (CI: a sampler stall of 18 ms, bursty ACKs)
// can move one reading of these shapes out of its window, while a controller that lacks the
// behaviour fails both times.
describe.skipIf(!isRoot)('lab BBRv2/BBRv3 against kernel BBRv1 (real namespaces, delay line, root)', { retry: 1 }, () => {
  let path: CcaPath;
  const clean: Record<string, Transfer> = {};

  beforeEach((ctx) => {
    if (!ctx.task.result?.retryCount) return;
    console.log(`[lab-cca-bbr] retrying '${ctx.task.name}' on fresh transfers`);
    for (const cca of Object.keys(clean)) delete clean[cca];
  });

  beforeAll(async () => {
    await run('make', ['-C', bpfSourceDir()], { timeoutMs: 300_000 });
    path = await createCcaPath({ rateMbit: RATE_MBIT, bufferBytes: DEEP_BUF, rttMs: RTT_MS });
  }, 300_000);

  afterAll(async () => {
    if (path) expect(await path.close()).toEqual([]);
  }, 120_000);

  async function cleanRun(cca: string): Promise<Transfer> {
    if (!clean[cca]) {
      await path.configure({ bufferBytes: DEEP_BUF });
      // v1's ProbeRTT comes 10 s after its last new minimum RTT: a longer run sees one.
      clean[cca] = await path.transfer(cca, cca === 'bbr' ? 18 : 12);
      console.log(describeRun(`${cca}/200KB`, clean[cca]));
    }
    return clean[cca];
  }

  it('registers ccb_bbr2 and ccb_bbr3, selectable by namespaces', async () => {
    for (const name of ['bbr2', 'bbr3']) {
      const cca = await ensureRegistered(name, path.stack);
      const allowed = (await run('cat', ['/proc/sys/net/ipv4/tcp_allowed_congestion_control'])).stdout.split(/\s+/);
      expect(allowed).toContain(cca.kernelName); // .flags = TCP_CONG_NON_RESTRICTED
    }
  }, 60_000);

  it.each([['bbr', 'bbr'], ['bbr2', 'ccb_bbr2'], ['bbr3', 'ccb_bbr3']])('%s: the connection used it, paced at ~1.0 x the bandwidth it delivers, in flight held near the BDP below cwnd', async (cca, kernelName) => {
    const r = await cleanRun(cca);
    expectUsed(r, kernelName);
    const mbit = goodputBps(r.samples) / 1e6;
    expect(mbit, `goodput ${fmt(mbit)} Mbit/s; host: ${r.hostStalls}`).toBeGreaterThan(RATE_MBIT * 0.75);
    // Pacing on: the rate the controller set is finite and ~ the delivery rate...
    const steady = steadySamples(r.samples);
    const cruiseMbit = (cruiseRate(r.samples) * 8) / 1e6;
    expect(steady.every((x) => x.pacingRateBps > 0 && x.pacingRateBps < 1e12)).toBe(true);
    expect(cruiseMbit / mbit).toBeGreaterThan(0.85);
    expect(cruiseMbit / mbit).toBeLessThan(1.2);
    // ...and it, not the window, limits what is in flight (cwnd is ~2 BDP). A window-limited
    // sender keeps ~all of cwnd out; pacing keeps ~1 BDP (0.5 cwnd) on a quiet host, more when
    // ACKs come in bursts (a loaded CI host: v1 at 0.76, its max-filtered bandwidth inflated).
    const inFlightShare = median(steady.map((x) => x.unacked)) / median(steady.map((x) => x.cwnd));
    expect(inFlightShare, describeRun(cca, r)).toBeLessThan(0.85);
  }, 90_000);

  it('ProbeBW: v1 probes (x1.25) every 8 RTTs; v2 and v3 cruise and probe only every 2-3 s', async () => {
    const v1 = gainEpisodes((await cleanRun('bbr')).samples, { above: 1.12 });
    const v1Gap = median(intervalsUs(v1));
    expect(v1.length).toBeGreaterThanOrEqual(15);
    expect(v1Gap).toBeGreaterThan(6 * RTT_MS * 1000); // 8 x ~41 ms
    expect(v1Gap).toBeLessThan(11 * RTT_MS * 1000);
    expect(median(v1.map((e) => e.gain))).toBeCloseTo(1.25, 1);
    for (const cca of ['bbr2', 'bbr3']) {
      const r = await cleanRun(cca);
      const up = gainEpisodes(r.samples, { above: 1.12 });
      const gaps = intervalsUs(up);
      expect(up.length, describeRun(cca, r)).toBeGreaterThanOrEqual(2);
      expect(up.length).toBeLessThanOrEqual(6); // ~10.5 s of ProbeBW / 2-3 s
      expect(median(up.map((e) => e.gain))).toBeCloseTo(1.25, 1);
      // Wall clock 2-3 s, or min(63, BDP) rounds = ~2.7 s; a ProbeRTT in between restarts it.
      for (const g of gaps) expect(g, describeRun(cca, r)).toBeGreaterThan(1_800_000);
      expect(Math.min(...gaps)).toBeLessThan(5_500_000);
    }
  }, 120_000);

  it('ProbeBW_DOWN: v3 drains at 0.91 x bw after a probe, v2 at 0.75 (v1 too: its 8-phase cycle)', async () => {
    const gainOfDown = (r: Transfer) => median(gainEpisodes(r.samples, { below: 0.97 }).filter((e) => e.samples >= 2).map((e) => e.gain));
    const v1 = gainOfDown(await cleanRun('bbr'));
    const v2 = gainOfDown(await cleanRun('bbr2'));
    const v3 = gainOfDown(await cleanRun('bbr3'));
    console.log(`[lab-cca-bbr] DOWN gains: v1 ${fmt(v1)}, v2 ${fmt(v2)}, v3 ${fmt(v3)}`);
    expect(v1).toBeCloseTo(0.75, 1);
    expect(v2).toBeCloseTo(0.75, 1);
    expect(v3).toBeGreaterThan(0.87);
    expect(v3).toBeLessThan(0.95);
  }, 120_000);

  it('ProbeBW_UP: v3 probes until the bandwidth stops growing (>= 3 rounds), v2 until a quarter-BDP queue builds (~1-2 rounds)', async () => {
    const upMs = (r: Transfer) => median(gainEpisodes(r.samples, { above: 1.12 }).map((e) => (e.tEndUs - e.tStartUs) / 1000));
    const v2 = upMs(await cleanRun('bbr2'));
    const v3 = upMs(await cleanRun('bbr3'));
    console.log(`[lab-cca-bbr] UP durations: v2 ${fmt(v2, 0)} ms, v3 ${fmt(v3, 0)} ms (RTT ${RTT_MS} ms)`);
    expect(v3).toBeGreaterThan(2.5 * RTT_MS);
    expect(v2).toBeLessThan(2.2 * RTT_MS);
    expect(v3).toBeGreaterThan(1.5 * v2);
  }, 120_000);

  // ProbeRTT is due one window after BBR's min-RTT clock last restarted: at a new minimum
  // RTT or at the end of the previous ProbeRTT. tcp_info shows the all-time minimum, so it
  // shows every restart of the first kind that lowers that minimum but not a sample that
  // only lowers BBR's own windowed minimum: a dip can come later than the period after the
  // visible clock, never earlier. Hence lower bounds for all, and the 5 s vs 10 s
  // difference as "v2/v3 have a dip well before 10 s of their clock".
  it('ProbeRTT: v1 every 10 s down to 4 packets; v2 and v3 every ~5 s down to half the BDP, for >= 200 ms', async () => {
    const cases: [string, number, (d: WindowDip, bdp: number) => void][] = [
      ['bbr', 10_000_000, (d) => expect(d.cwndMin).toBeLessThanOrEqual(5)],
      ['bbr2', 5_000_000, (d, bdp) => { expect(d.cwndMin / bdp).toBeGreaterThan(0.35); expect(d.cwndMin / bdp).toBeLessThan(0.65); }],
      ['bbr3', 5_000_000, (d, bdp) => { expect(d.cwndMin / bdp).toBeGreaterThan(0.35); expect(d.cwndMin / bdp).toBeLessThan(0.65); }],
    ];
    for (const [cca, periodUs, depth] of cases) {
      const r = await cleanRun(cca);
      const dips = windowDips(r.samples);
      const { delaysUs } = probeRttDelays(r.samples, dips, periodUs);
      console.log(`[lab-cca-bbr] ${cca}: ProbeRTT ${dips.map((d, i) => `${s(d.tStartUs)}s (${s(delaysUs[i])} s after the min-RTT clock started) to ${d.cwndMin}`).join(', ')}`);
      expect(dips.length, describeRun(cca, r)).toBeGreaterThanOrEqual(1);
      for (const [i, d] of dips.entries()) {
        expect(delaysUs[i], describeRun(cca, r)).toBeGreaterThan(periodUs - 200_000);
        // max(200 ms, 1 round): between the samples around the dip, since a stall of the 10 ms
        // sampler at an edge hides part of it (one run saw 159 ms inside a dip). A dip the
        // transfer's end cut short (CI: one began 120 ms before it) has no length to check.
        if (!d.cutByTraceEnd) expect(d.tAfterUs - d.tBeforeUs, describeRun(cca, r)).toBeGreaterThanOrEqual(200_000);
        depth(d, bdpPackets(r.samples));
      }
      expect(Math.min(...delaysUs), describeRun(cca, r)).toBeLessThan(periodUs === 5_000_000 ? 7_000_000 : 11_500_000);
    }
  }, 120_000);

  it('after loss in a shallow buffer: v2 and v3 bound in flight by inflight_hi (~BDP + buffer) and stop losing; v1 keeps 2 BDP and keeps losing', async () => {
    await path.configure({ bufferBytes: SHALLOW_BUF });
    const runs: Record<string, Transfer> = {};
    for (const cca of ['bbr', 'bbr2', 'bbr3']) {
      runs[cca] = await path.transfer(cca, 10);
      console.log(describeRun(`${cca}/30KB`, runs[cca]));
    }
    const bufPkts = SHALLOW_BUF / 1514;
    const after = (r: Transfer) => r.samples.filter((x) => x.tUs > 2_000_000);
    const lossAfter = (r: Transfer) => { const a = after(r); return a[a.length - 1].totalRetrans - a[0].totalRetrans; };
    const v1 = runs.bbr;
    const bdp = bdpPackets(v1.samples);
    // Typical window once Startup's losses are behind: v2/v3 probe above inflight_hi for a
    // round or a few every 2-3 s (v3 until losses say stop), then cut back to it.
    const typicalCwnd = (r: Transfer) => median(after(r).map((x) => x.cwnd));
    console.log(`[lab-cca-bbr] bbr/30KB: typical cwnd after 2 s ${typicalCwnd(v1)}, retrans after 2 s ${lossAfter(v1)}`);
    expect(typicalCwnd(v1)).toBeGreaterThan(2 * bdp);
    for (const cca of ['bbr2', 'bbr3']) {
      const r = runs[cca];
      console.log(`[lab-cca-bbr] ${cca}/30KB: typical cwnd after 2 s ${typicalCwnd(r)} (BDP ${fmt(bdp, 1)} + buffer ${fmt(bufPkts, 1)}), retrans after 2 s ${lossAfter(r)} vs v1 ${lossAfter(v1)}`);
      expect(typicalCwnd(r), describeRun(cca, r)).toBeLessThan(1.15 * (bdp + bufPkts));
      expect(lossAfter(r)).toBeLessThan(0.75 * lossAfter(v1));
    }
  }, 180_000);

  it('under 5% random loss: v1 ignores it (full rate); v2 and v3 (loss > 2% per round) cut their bounds and slow down', async () => {
    await path.configure({ bufferBytes: DEEP_BUF });
    const mbit: Record<string, number> = {};
    for (const cca of ['bbr', 'bbr2', 'bbr3']) {
      const r = await path.transfer(cca, 8, { loss: 0.05 });
      mbit[cca] = goodputBps(r.samples) / 1e6;
      console.log(describeRun(`${cca}/5% loss`, r));
    }
    // Measured: v1 17.8, v3 11.7-12.0, v2 5.7 Mbit/s (v2 also conserves packets in recovery).
    expect(mbit.bbr).toBeGreaterThan(RATE_MBIT * 0.75);
    expect(mbit.bbr2).toBeLessThan(0.8 * mbit.bbr);
    expect(mbit.bbr3).toBeLessThan(0.8 * mbit.bbr);
  }, 180_000);
});
