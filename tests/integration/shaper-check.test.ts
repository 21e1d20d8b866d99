/**
 * The bottleneck, measured for real: namespaces, HTB, the delay stage and tcpdump, with
 * bulk TCP flows, UDP probes and a UDP overload (see src/shaper/check.ts for tolerances).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile, parseProfile } from '../../src/shaper/profile.js';
import { runShaperCheck, type ShaperCheckReport } from '../../src/shaper/check.js';
import { describeHostStalls } from '../../src/shaper/host-stalls.js';
import { isNoisyHost } from '../helpers/quiet-host.js';
import { isRoot, listNamespaces } from '../helpers/system.js';

function failedChecks(r: ShaperCheckReport): string {
  return r.checks.filter((c) => !c.ok).map((c) => `${c.name}: configured ${c.configured}, measured ${c.measured}`).join('\n');
}

describe.skipIf(!isRoot)('shaper check through a real bottleneck', () => {
  for (const name of ['nebby-50', 'nebby-100', 'fast-20m']) {
    // Timing on a shared VM. Probes a host stall explains are judged apart inside the check
    // (src/shaper/check.ts). Stalls also cost a fast link rate and the queue-full delay, so an
    // attempt that fails while the check's own host sampler saw a noisy host is tried again
    // (3 at most); an attempt that fails on a quiet host fails the test at once. If every
    // attempt met a noisy host the shaper could not be verified here: the test is skipped
    // with the figures, not passed.
    it(`${name}: added RTT, per-flow rate, isolation, capture and buffer within tolerance`, { timeout: 240_000 }, async (ctx) => {
      const profile = await loadProfile(name);
      const nsBefore = listNamespaces();
      const noisy: string[] = [];
      let report: ShaperCheckReport | undefined;
      const runIds: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        report = await runShaperCheck({ profile, flows: 3, phaseSeconds: 10 });
        runIds.push(report.runId!);
        const m = report.measured;
        const host = m.hostStalls ? describeHostStalls(m.hostStalls) : 'not sampled';
        console.log(`${name}: RTT median ${m.rttMedianMs.toFixed(2)} ms, p99 ${m.rttP99Ms.toFixed(2)} ms ` +
          `(${m.rttP99AllMs.toFixed(2)} ms with the ${m.probesHostDelayed} of ${m.probesReceived} host-stalled probes); host: ${host}`);
        if (report.ok || !m.hostStalls || !isNoisyHost(m.hostStalls)) break;
        noisy.push(`attempt ${attempt + 1}: ${failedChecks(report).replace(/\n/g, '; ')} (host: ${host})`);
        console.log(`${name}: trying again after a noisy host: ${noisy.at(-1)}`);
      }
      // Nothing of these runs is left behind (theirs only: other labs and runs share the machine).
      expect(listNamespaces().filter((n) => !nsBefore.includes(n) && runIds.some((id) => n.startsWith(`ccb-${id}-`)))).toEqual([]);
      if (!report!.ok && noisy.length === 3) ctx.skip(`host too noisy to verify the shaper: ${noisy.join(' | ')}`);
      expect(failedChecks(report!)).toBe('');
      expect(report!.ok).toBe(true);
      expect(report!.measured.concurrentGoodputKbit).toHaveLength(3);
    });
  }

  // How two TCP flows split a drop-tail queue is TCP's business, and it is often unfair: with a
  // 2-BDP queue (~3 packets at 400 kbit/s) one flow was once locked out for the whole 8 s window
  // (0 kbit/s after warm-up), and with 6 BDP the split measured 323/51, 342/14, 315/51, 367/9
  // kbit/s. So the split is not asserted; what separates a shared queue from per-flow queues is
  // the total: one link's rate, where per-flow queues would give each flow the full rate (2x).
  it('shared mode: concurrent flows split one queue instead of each getting the full rate', { retry: 1, timeout: 120_000 }, async () => {
    const profile = parseProfile({ name: 'shared-test', rateKbit: 400, delayMs: 20, buffer: { bdp: 6 }, queue: 'shared' }, 'inline');
    const report = await runShaperCheck({ profile, flows: 2, phaseSeconds: 8 });
    expect(failedChecks(report)).toBe('');
    expect(report.measured.concurrentGoodputKbit).toHaveLength(2);
    const [a, b] = report.measured.concurrentGoodputKbit;
    const full = report.configured.expectedGoodputKbit;
    console.log(`shared queue: ${a.toFixed(0)} + ${b.toFixed(0)} kbit/s of ${full.toFixed(0)}`);
    expect(a + b).toBeGreaterThan(full * 0.9);
    expect(a + b).toBeLessThan(full * 1.1);
  });

  it('capture point sees data before the queue (incl. later-dropped packets) and ACKs after the delay', async () => {
    const profile = await loadProfile('nebby-50');
    const pcap = join(mkdtempSync(join(tmpdir(), 'ccb-cap-')), 'check.pcap');
    await runShaperCheck({ profile, flows: 1, phaseSeconds: 6, pcapOut: pcap });
    const fields = (filter: string, field: string) => execFileSync('tshark', ['-r', pcap, '-Y', filter, '-T', 'fields', '-e', field],
      { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n').filter(Boolean).map(Number);
    // Every ACK is seen at least one added RTT after the data it acknowledges: it crossed the
    // delay twice and the queue once before the capture point saw it.
    const ackRtts = fields('tcp.analysis.ack_rtt && tcp.srcport != 5001', 'tcp.analysis.ack_rtt');
    expect(ackRtts.length).toBeGreaterThan(50);
    expect(Math.min(...ackRtts) * 1000).toBeGreaterThan(2 * profile.delayMs - 1);
    // The 2-BDP queue overflows under a bulk flow; the dropped packets were captured anyway,
    // so their retransmissions show up at the capture point.
    const retransmissions = fields('tcp.analysis.retransmission && tcp.srcport == 5001', 'frame.number');
    expect(retransmissions.length).toBeGreaterThan(0);
  }, 120_000);
});
