/**
 * `probe --stop-when-stable` for real (issue 20): lab BBR origins (kernel TCP, and quinn over
 * HTTP/3) under the grid's base conditions, probed through nebby-50 for a transfer twice as long
 * as the 30 s ceiling. The watcher reads the growing capture (for HTTP/3 with Chromium's TLS key
 * log as it grows), classifies the flow with the shipped model, and ends the transfer once the
 * verdict is stable: before the ceiling, naming the lab's controller.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { unwindLab } from '../helpers/lab.js';
import { parseLabConfig } from '../../src/lab/config.js';
import { startLab, type LabState } from '../../src/lab/lab.js';
import { probeOnce, resolveProbeTarget } from '../../src/probe/probe.js';
import { loadProfile } from '../../src/shaper/profile.js';
import { loadModel } from '../../src/classify/index.js';
import { DEFAULT_STOP_RULE } from '../../src/classify/early-stop.js';
import { stableVerdictWatch } from '../../src/train/stop-when-stable.js';
import { labelFor } from '../../src/train/labels.js';
import { traceProbeDir } from '../../src/train/dataset.js';
import { bulkFlow } from '../../src/validate/run-dir.js';
import { disturbedReason } from '../../src/classify/disturbance.js';
import type { Disturbance } from '../../src/shaper/disturbance.js';
import { isRoot } from '../helpers/system.js';

describe.skipIf(!isRoot)('probe --stop-when-stable', () => {
  const stack = new CleanupStack(`test-earlystop-${process.pid}`);
  let lab: LabState & { pid: number };
  const out = mkdtempSync(join(tmpdir(), 'ccb-earlystop-'));

  beforeAll(async () => {
    // The grid's base conditions (build/grid/g1/lab-base.json): 10 ms server-side RTT, no pacing, no TSO.
    const cfg = parseLabConfig({
      name: 'early-stop',
      origins: [
        { name: 'tcp-bbr', hosts: ['bbr.tcp.lab.ccb.test'], cca: 'bbr' },
        { name: 'quinn-bbr', hosts: ['bbr.quinn.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'bbr' },
      ],
      regions: [{ name: 'base', rttMs: 10, sender: { pacing: false, tso: false } }],
    }, 'test');
    lab = { ...(await startLab(stack, cfg)), pid: process.pid };
  }, 300_000);

  afterAll(() => unwindLab(stack, lab), 120_000);

  it.for<{ protocol: 'tcp' | 'quic'; host: string }>([
    { protocol: 'tcp', host: 'bbr.tcp.lab.ccb.test' },
    { protocol: 'quic', host: 'bbr.quinn.lab.ccb.test' },
  ])('ends the $protocol transfer once the verdict is stable, before the ceiling, naming the lab\'s controller', { timeout: 420_000 }, async ({ protocol, host }, ctx) => {
    const profile = await loadProfile('nebby-50');
    const model = loadModel('models/ccbrowse-model.json');
    const rule = { ...DEFAULT_STOP_RULE, minConfidence: model.calibration?.minAnswer ?? DEFAULT_STOP_RULE.minConfidence };
    // 1.5 MB at 200 kbit/s is about 60 s: only the watcher can end it before then.
    const target = resolveProbeTarget(lab, `https://${host}/bytes/1500000`, 'base');
    const seen: string[] = [];
    let quietProbes = 0;
    // Up to five probes: on a host loaded by others (load average ~30 on 2 cores when this was
    // written), the delay line stalls for 100 ms at times and a disturbed stretch of the flow reads
    // Unknown, so a probe may honestly run to the ceiling. On a quiet host, too, quinn's BBR flow
    // reads Unknown for all 30 s in about half the probes (the suites of sessions 40-41: the first
    // probe of four runs, three in a row once): the rule is what this tests, the classifier's
    // reach is the lab bench's. Every probe must stop by the ceiling.
    for (let attempt = 0; attempt < 5; attempt++) {
      const watch = stableVerdictWatch({ model, rule, originIp: target.origin.ip, protocol, rateKbit: profile.rateKbit });
      const r = await probeOnce(lab, target, profile, { region: 'base', outDir: out, timeoutSeconds: 120, watch });
      expect(r.status, r.error).toBe('complete');
      const s = r.earlyStop!;
      expect(s, 'probe.json keeps the watcher\'s record').toBeDefined();
      const d = r.disturbance;
      const noisy = noisyHost(d);
      if (!noisy) quietProbes++;
      seen.push(`${s.why} ${s.label} after ${s.neededSeconds} s (${s.checkpoints.map((c) => `${c.seconds}:${c.label}`).join(' ')}; host: ${d ? `${d.stalls} stalls, longest ${d.maxStallMs.toFixed(0)} ms, load ${d.loadAverage ?? '?'}` : 'not sampled'}${noisy ? ', noisy' : ''})`);
      // The watcher ended the 60 s transfer, at the latest one look after the ceiling.
      expect(s.stoppedTransfer).toBe(true);
      expect(r.bytes).toBeGreaterThan(0);
      // The capture's count (sent less resent or declared lost): the transfer was cut, short of
      // the 1.5 MB body. Over TCP it is near what reached the client, at 200 kbit/s for at most
      // ~35 s, under 1 MB. Over QUIC it also holds what quinn's BBR had in flight and not yet
      // declared lost, several times what the bottleneck delivers: 1.03 MB after a ~30 s stop
      // (CI of stop 49), so only the body bounds it.
      expect(r.bytes).toBeLessThan(protocol === 'tcp' ? 1_000_000 : 1_500_000);
      const f = bulkFlow((await traceProbeDir(r.dir)).flows, protocol, { originIp: r.origin.ip, afterCrossTraffic: false })!;
      if (protocol === 'quic') expect(f.bifMethod, 'read exactly with the key log the probe kept').toBe('quic-keylog-exact');
      const traced = f.series!.t[f.series!.t.length - 1];
      expect(traced).toBeLessThan(rule.ceilingSeconds + 5);
      expect(traced).toBeGreaterThanOrEqual(s.neededSeconds! - 0.5);
      // Stable only at the ceiling's own checkpoint (4 in a row ending there) ended nothing early:
      // measured like a probe that ran to the ceiling (CI of f98c8d1: a flow that read Unknown at
      // 16-22 s, then BBRv1 from 24 s on, was stable exactly at 30 s).
      if (s.why !== 'stable' || s.neededSeconds! >= rule.ceilingSeconds) continue;
      expect(s.label).toBe(labelFor(protocol, 'bbr'));
      expect(s.confidence).toBeGreaterThanOrEqual(rule.minConfidence);
      expect(s.neededSeconds!).toBeLessThan(rule.ceilingSeconds);
      expect(s.checkpoints.length).toBeGreaterThanOrEqual(rule.stableCheckpoints);
      expect(traced).toBeLessThan(rule.ceilingSeconds);
      return;
    }
    // As the shaper check does: when every probe met a noisy host, the rule could not be verified
    // here (a disturbed stretch reads Unknown by design): skipped with the figures, not passed.
    // A probe on a quiet host that ran to the ceiling fails the test.
    if (quietProbes === 0) {
      console.log(`skipped: every probe met a noisy host: ${seen.join('; ')}`);
      ctx.skip();
    }
    expect.fail(`no probe stopped on a stable verdict: ${seen.join('; ')}`);
  });
});

/**
 * A host too busy for this test's verdict: the delay line held the bottleneck back for more than
 * half of nebby-50's ~60 ms round trip at once or > 2% of the time (the classifier's own
 * disturbance bounds), or the load average was above twice the 2 cores CI has.
 */
function noisyHost(d: Disturbance | undefined): boolean {
  if (!d) return false;
  return disturbedReason({ windowSeconds: d.windowSeconds, stalls: d.stalls, stalledMs: d.stalledMs, maxStallMs: d.maxStallMs }, 0.06) !== null || (d.loadAverage ?? 0) > 4;
}
