/**
 * The lab for real: origins in namespaces with their configured controllers (seen from the
 * server side), probes through the bottleneck for TCP and HTTP/3, a region's added RTT, the
 * lab sites playing in Chromium through the bottleneck, and nothing left after teardown.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { canOwnTcpHashTable, newRunId } from '../../src/net/netns.js';
import { createTopology } from '../../src/net/topology.js';
import { applyShaper } from '../../src/shaper/shaper.js';
import { loadProfile } from '../../src/shaper/profile.js';
import { loadLabConfig } from '../../src/lab/config.js';
import { startLab, regionHostMap, type LabState } from '../../src/lab/lab.js';
import { connectRunToLab } from '../../src/lab/network.js';
import { labChromiumArgs } from '../../src/lab/sites/chromium.js';
import { launchInNamespace } from '../../src/browser/launch.js';
import { probeOnce, resolveProbeTarget } from '../../src/probe/probe.js';
import { entryFromProbe } from '../../src/train/dataset.js';
import { traceFile } from '../../src/trace/index.js';
import { bulkFlow } from '../../src/validate/run-dir.js';
import { ADDR } from '../../src/net/topology.js';
import { execFileSync } from 'node:child_process';
import { isRoot, listNamespaces, pidAlive } from '../helpers/system.js';

type GtLine = { cc: string; min_rtt_us?: number; min_rtt_ms?: number; inflight_bytes?: number };
const readGt = (dir: string): GtLine[] =>
  readFileSync(join(dir, 'ground-truth.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as GtLine);

describe.skipIf(!isRoot)('the lab', () => {
  const stack = new CleanupStack(`test-lab-${process.pid}`);
  let lab: LabState & { pid: number };
  const out = mkdtempSync(join(tmpdir(), 'ccb-labtest-'));

  beforeAll(async () => {
    const cfg = await loadLabConfig('tests/fixtures/labs/small.ts');
    lab = { ...(await startLab(stack, cfg)), pid: process.pid };
  }, 300_000);

  afterAll(async () => {
    const labId = lab?.labId;
    const pids = lab?.origins.map((o) => o.pid) ?? [];
    await stack.unwind();
    if (labId) {
      expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${labId}`))).toEqual([]);
      expect(pids.filter(pidAlive)).toEqual([]);
    }
  }, 120_000);

  it('serves each TCP origin with its configured controller, per region (server-side evidence)', async () => {
    const profile = await loadProfile('nebby-50');
    const cases = [
      { url: 'https://www.lab.ccb.test/bytes/60000', region: 'local', cc: 'cubic' },
      { url: 'https://media.lab.ccb.test/bytes/60000', region: 'local', cc: 'bbr' },
      { url: 'https://vegas.tcp.lab.ccb.test/bytes/60000', region: 'local', cc: 'ccb_vegas' },
      { url: 'https://media.lab.ccb.test/bytes/60000', region: 'far', cc: 'cubic' },
    ];
    for (const c of cases) {
      const r = await probeOnce(lab, resolveProbeTarget(lab, c.url, c.region), profile, { region: c.region, outDir: out });
      expect(r.status, r.error).toBe('complete');
      expect(r.bytes).toBe(60000);
      const gt = readGt(r.dir);
      expect(gt.length).toBeGreaterThan(50); // ~10 ms samples over a few seconds
      expect(new Set(gt.map((g) => g.cc))).toEqual(new Set([c.cc]));
      if (c.region === 'far') {
        // nebby-50 adds 100 ms RTT, the far region 80 ms more.
        const minRtt = Math.min(...gt.map((g) => g.min_rtt_us ?? Infinity)) / 1000;
        expect(minRtt).toBeGreaterThan(178);
        expect(minRtt).toBeLessThan(200);
      }
    }
  }, 300_000);

  it("gives each origin's namespace a TCP hash table of its own (its sampler's dumps stay cheap), the router the host's", async (ctx) => {
    const ehash = (ns: string) => Number(execFileSync('ip', ['netns', 'exec', ns, 'sysctl', '-n', 'net.ipv4.tcp_ehash_entries'], { encoding: 'utf8' }).trim());
    const origins = [...new Set(lab.origins.map((o) => o.netns))];
    expect(origins.length).toBeGreaterThan(1);
    if (!canOwnTcpHashTable()) return ctx.skip('this kernel (< 6.1) gives namespaces no TCP hash table of their own');
    for (const ns of origins) expect(ehash(ns), ns).toBe(1024);
    // A negative size is how the kernel shows a namespace sharing the host's table (unless the
    // host itself asks for tables of their own: then every new namespace has one).
    if (readFileSync('/proc/sys/net/ipv4/tcp_child_ehash_entries', 'utf8').trim() === '0') expect(ehash(lab.routerNs)).toBeLessThan(0);
  });

  it('serves HTTP/3 with the configured QUIC controller through the bottleneck', async () => {
    const profile = await loadProfile('nebby-50');
    const r = await probeOnce(lab, resolveProbeTarget(lab, 'https://img.lab.ccb.test/bytes/60000', 'local'), profile, { region: 'local', outDir: out });
    expect(r.status, r.error).toBe('complete');
    expect(r.bytes).toBe(60000);
    const gt = readGt(r.dir);
    expect(gt.length).toBeGreaterThan(20);
    expect(new Set(gt.map((g) => g.cc))).toEqual(new Set(['cubic']));
  }, 180_000);

  it.for<{ protocol: 'tcp' | 'quic'; url: string }>([
    { protocol: 'tcp', url: 'https://www.lab.ccb.test/bytes/1500000' },
    { protocol: 'quic', url: 'https://img.lab.ccb.test/bytes/1500000' },
  ])('a $protocol download its time limit ends is incomplete and timed out; a dataset keeps it only when it spans the trace length kept', { timeout: 120_000 }, async ({ protocol, url }) => {
    const profile = await loadProfile('nebby-50');
    const target = resolveProbeTarget(lab, url, 'local');
    // 1.5 MB at 200 kbit/s takes ~60 s: a 4 s limit ends it with the origin still sending.
    const r = await probeOnce(lab, target, profile, { region: 'local', outDir: out, timeoutSeconds: 4 });
    expect(r.status).toBe('incomplete');
    expect(r.timedOut, r.error).toBe(true);
    const stack = target.origin.serve === 'tcp' ? 'tcp' : target.origin.stack!;
    const outcome = { target: { origin: target.origin.name, protocol, stack, cca: target.origin.cca, label: 'x', host: '' }, region: 'local', profile, path: '', rep: 0, result: r } as const;
    expect(await entryFromProbe(outcome)).toBeNull();
    const kept = await entryFromProbe(outcome, { timedOutMinSeconds: 2 });
    expect(kept?.t.at(-1)).toBeGreaterThan(2);
  });

  it('a download from an origin that never answers is incomplete, not timed out: nothing was sent', async () => {
    const profile = await loadProfile('nebby-50');
    const r = await probeOnce(lab, resolveProbeTarget(lab, 'https://www.lab.ccb.test/bytes/60000', 'mute'), profile, { region: 'mute', outDir: out, timeoutSeconds: 4 });
    expect(r.status).toBe('incomplete');
    expect(r.error).toMatch(/exit 28/);
    expect(r.timedOut).toBeUndefined();
  }, 60_000);

  it('cross traffic: a probe competes with a download from another origin through one shared queue, and the download is stopped after', async () => {
    const profile = await loadProfile('nebby-50');
    const crossTraffic = { target: resolveProbeTarget(lab, 'https://media.lab.ccb.test/bytes/3000000', 'local'), leadSeconds: 2 };
    const r = await probeOnce(lab, resolveProbeTarget(lab, 'https://www.lab.ccb.test/bytes/150000', 'local'), profile, { region: 'local', outDir: out, crossTraffic });
    expect(r.status, r.error).toBe('complete');
    expect(r.profile.queue).toBe('shared');
    // Still downloading when the probe ended: it competed the whole time.
    expect(r.crossTraffic?.exitCode).toBeNull();
    const tr = await traceFile(join(r.dir, 'capture.pcap'), { clientIps: [ADDR.client] });
    const tcp = tr.flows.filter((f) => f.kind === 'tcp' && f.series);
    expect(tcp).toHaveLength(2);
    const probeFlow = bulkFlow(tr.flows, 'tcp', { originIp: r.origin.ip, afterCrossTraffic: true });
    expect(probeFlow?.paths[0]).toContain(`-${r.origin.ip}:443`);
    const cross = tcp.find((f) => f !== probeFlow)!;
    expect(probeFlow!.startSeconds - cross.startSeconds).toBeGreaterThan(1.5);
    // One queue for both: the probe gets well under what the link alone would give it (nebby-50:
    // 114.3 kbit/s of TCP goodput), and the download kept getting its share.
    const kbit = (f: typeof cross, seconds: number) => (f.toClient.payloadBytes * 8) / seconds / 1000;
    const probeKbit = kbit(probeFlow!, probeFlow!.durationSeconds);
    expect(probeKbit).toBeLessThan(0.8 * 114.3);
    expect(probeKbit).toBeGreaterThan(5);
    expect(kbit(cross, cross.durationSeconds)).toBeGreaterThan(5);
    expect(kbit(cross, cross.durationSeconds)).toBeLessThan(1.05 * 114.3);
    // The competing curl was stopped with the probe's cleanup.
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes('media.lab.ccb.test/bytes/3000000'));
    expect(left).toEqual([]);
  }, 240_000);

  it('lab sites play in Chromium through the bottleneck (static loads, VOD/live/audio advance)', async () => {
    const runStack = new CleanupStack(`test-labsites-${newRunId()}`);
    try {
      const runId = newRunId();
      const topo = await createTopology(runStack, runId);
      await applyShaper(runStack, topo, await loadProfile('video'));
      await connectRunToLab(runStack, { runId, upstreamNs: topo.upstreamNs, routerNs: lab.routerNs });
      const args = [...labChromiumArgs({ hosts: regionHostMap(lab, 'local'), spki: [lab.certs.spki] }),
        '--enable-quic', '--origin-to-force-quic-on=img.lab.ccb.test:443'];
      const b = await launchInNamespace(runStack, { netns: topo.clientNs, args });
      const page = await b.browser.newPage();
      const failed: string[] = [];
      page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
      await page.goto('https://www.lab.ccb.test/static/', { waitUntil: 'load', timeout: 120_000 });
      expect(failed).toEqual([]);
      const media = async (path: string, selector: string) => {
        await page.goto(`https://www.lab.ccb.test/${path}`, { waitUntil: 'load', timeout: 60_000 });
        await page.waitForFunction((sel) => ((document.querySelector(sel) as HTMLMediaElement | null)?.currentTime ?? 0) > 4,
          selector, { timeout: 60_000 });
      };
      await media('vod/', 'video');
      await media('live/', 'video');
      await media('audio/', 'audio');
      await b.close();
    } finally {
      await runStack.unwind();
    }
  }, 300_000);
});
