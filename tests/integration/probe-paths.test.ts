/**
 * A crawl's kept probe paths (src/probe/paths.ts) on real namespaces and a real lab origin: a
 * second probe through the same profile measures through the first one's path (no namespace
 * made or removed), its capture and ground truth hold its own transfer only; another profile
 * gets its own path; a path lent again has an empty late-window log; a path whose delay line
 * died while idle is removed rather than lent again, one whose probe was interrupted is kept;
 * close() removes everything. The tests are one scenario, in order: each goes on with the paths
 * the ones before it left.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack, ownersDir } from '../../src/net/cleanup.js';
import { parseLabConfig } from '../../src/lab/config.js';
import { startLab, type LabState } from '../../src/lab/lab.js';
import { probeOnce, resolveProbeTarget, type ProbeResult } from '../../src/probe/probe.js';
import { KeptProbePaths } from '../../src/probe/paths.js';
import { loadProfile, type Profile } from '../../src/shaper/profile.js';
import { traceProbeDir } from '../../src/train/dataset.js';
import { unwindLab } from '../helpers/lab.js';
import { isRoot, listNamespaces } from '../helpers/system.js';

const HOST = 'cubic.tcp.lab.ccb.test';
/** 60 kB: about 3 s at nebby-50's 200 kbit/s. */
const BYTES = 60_000;

describe.skipIf(!isRoot)('kept probe paths', () => {
  const stack = new CleanupStack(`test-paths-${process.pid}`);
  let lab: LabState & { pid: number };
  const out = mkdtempSync(join(tmpdir(), 'ccb-paths-'));
  const paths = new KeptProbePaths();
  let nebby50: Profile;
  let nebby100: Profile;
  const namespacesOf = (id: string) => listNamespaces().filter((n) => n.startsWith(`ccb-${id}-`)).sort();
  const seen = new Set<string>();
  const probe = async (profile: Profile, signal?: AbortSignal) => {
    const r = await probeOnce(lab, resolveProbeTarget(lab, `https://${HOST}/bytes/${BYTES}`, 'base'), profile, { region: 'base', outDir: out, timeoutSeconds: 60, paths, signal });
    if (r.path) seen.add(r.path.id);
    return r;
  };

  beforeAll(async () => {
    const cfg = parseLabConfig({
      name: 'paths',
      origins: [{ name: 'tcp-cubic', hosts: [HOST], cca: 'cubic' }],
      regions: [{ name: 'base', rttMs: 10 }],
    }, 'test');
    lab = { ...(await startLab(stack, cfg)), pid: process.pid };
    [nebby50, nebby100] = await Promise.all([loadProfile('nebby-50'), loadProfile('nebby-100')]);
  }, 300_000);

  afterAll(async () => {
    await paths.close();
    await unwindLab(stack, lab);
  }, 120_000);

  let first: ProbeResult;

  it('measures a second probe of the same profile through the first one\'s path, each capture and ground truth its own', { timeout: 120_000 }, async () => {
    first = await probe(nebby50);
    expect(first.status, first.error).toBe('complete');
    expect(first.path).toEqual({ id: expect.any(String), kept: false });
    const id = first.path!.id;
    const kept = namespacesOf(id);
    expect(kept, 'the path outlives its probe').toHaveLength(3);

    const second = await probe(nebby50);
    expect(second.status, second.error).toBe('complete');
    expect(second.path).toEqual({ id, kept: true });
    expect(namespacesOf(id)).toEqual(kept);
    expect(paths.counts).toMatchObject({ built: 1, reused: 1, removed: 0 });

    // The flow classifier's entries: the second probe's flow in the path's next generation.
    const entries = (JSON.parse(execFileSync('bpftool', ['-j', 'map', 'dump', 'pinned', `/sys/fs/bpf/ccb-${id}/maps/ccb_flows`], { encoding: 'utf8' })) as
      Array<{ formatted: { key: { client_port: number; server_port: number }; value: number } }>).map((e) => e.formatted);
    const generationOf = (port: string) => entries.filter((e) => e.key.client_port === Number(port)).map((e) => e.value >> 16);
    for (const [r, generation] of [[first, 0], [second, 1]] as const) {
      // The capture holds this probe's transfer (one connection from the origin), not the other's as well.
      const fromOrigin = (await traceProbeDir(r.dir)).flows.filter((f) => f.kind === 'tcp' && f.paths.some((p) => p.includes(`-${r.origin.ip}:`)));
      expect(fromOrigin.map((f) => f.toClient.payloadBytes >= BYTES)).toEqual([true]);
      expect(r.groundTruthLines).toBeGreaterThan(0);
      // The origin's samples kept with a probe are of its own connection (the NAT keeps its port).
      const clientPort = /:(\d+)-/.exec(fromOrigin[0].paths[0])![1];
      expect(generationOf(clientPort)).toEqual([generation]);
      const remotes = new Set(readFileSync(join(r.dir, 'ground-truth.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { remote: string }).remote));
      expect([...remotes].map((x) => x.split(':')[1])).toEqual([clientPort]);
      expect(r.disturbance).toBeDefined();
    }
  });

  it('empties the delay line\'s log of late windows as it lends a path again', { timeout: 60_000 }, async () => {
    const lease = await paths.acquire(lab, nebby50);
    expect(lease.fresh).toBe(false);
    const { topo, shaper } = lease.path;
    // Packets through the delay line while it is stopped for 40 ms leave late: a window is logged.
    const { origin } = resolveProbeTarget(lab, `https://${HOST}/`, 'base');
    const curl = spawn('ip', ['netns', 'exec', topo.clientNs, 'curl', '-sS', '-o', '/dev/null', '--cacert', lab.certs.ca,
      '--resolve', `${HOST}:443:${origin.ip}`, `https://${HOST}/bytes/${BYTES}`], { stdio: 'ignore' });
    const done = new Promise((r) => curl.once('exit', r));
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(shaper.delayLine!.pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, 40));
    process.kill(shaper.delayLine!.pid, 'SIGCONT');
    await done;
    const logged = (await shaper.delayLine!.stats()).lateWindowsUs ?? [];
    expect(logged.length).toBeGreaterThan(0);
    await lease.release(true);
    const again = await paths.acquire(lab, nebby50);
    const lentAtUs = Date.now() * 1000;
    expect(again.path).toBe(lease.path);
    const left = (await shaper.delayLine!.stats()).lateWindowsUs ?? [];
    for (const w of logged) expect(left).not.toContainEqual(w);
    for (const [, released] of left) expect(released).toBeGreaterThan(lentAtUs - 100_000);
    await again.release(true);
  });

  it('gives another profile its own path', { timeout: 120_000 }, async () => {
    const r = await probe(nebby100);
    expect(r.status, r.error).toBe('complete');
    expect(r.path!.kept).toBe(false);
    expect(r.path!.id).not.toBe(first.path!.id);
    expect(paths.size).toBe(2);
  });

  it('removes a path whose delay line died while it was idle, and builds another', { timeout: 120_000 }, async () => {
    const id = first.path!.id;
    const dl = readDelayLinePid(id);
    process.kill(dl, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const r = await probe(nebby50);
    expect(r.status, r.error).toBe('complete');
    expect(r.path!.kept).toBe(false);
    expect(r.path!.id).not.toBe(id);
    expect(namespacesOf(id), 'the broken path is gone').toEqual([]);
  });

  it('keeps the path of an interrupted probe (a job\'s time limit is no fault of its path)', { timeout: 120_000 }, async () => {
    const ctl = new AbortController();
    // Mid-transfer: past the path's rest (1 s) and the capture's start.
    setTimeout(() => ctl.abort(), 2500);
    const r = await probe(nebby100, ctl.signal);
    expect(r.status).toBe('incomplete');
    expect(r.path!.kept).toBe(true);
    expect(namespacesOf(r.path!.id)).toHaveLength(3);
    const next = await probe(nebby100);
    expect(next.status, next.error).toBe('complete');
    expect(next.path).toEqual({ id: r.path!.id, kept: true });
  });

  it('close() removes every kept path and its owner record', { timeout: 120_000 }, async () => {
    const kept = [...seen].filter((id) => existsSync(join(ownersDir(), `probe-path-${id}.json`)));
    expect(kept.length).toBeGreaterThan(1);
    expect(await paths.close()).toEqual([]);
    for (const id of seen) {
      expect(namespacesOf(id)).toEqual([]);
      expect(existsSync(join(ownersDir(), `probe-path-${id}.json`))).toBe(false);
    }
    await expect(probe(nebby50).then((r) => r.error)).resolves.toMatch(/being removed/);
  });
});

/** The pid of the delay line in a path's shaper namespace, from its owner record. */
function readDelayLinePid(pathId: string): number {
  const record = JSON.parse(readFileSync(join(ownersDir(), `probe-path-${pathId}.json`), 'utf8')) as { resources: Array<{ kind: string; pid?: number; what?: string }> };
  const p = record.resources.find((r) => r.kind === 'process' && /delayline/.test(r.what ?? ''));
  if (!p?.pid) throw new Error(`no delay line in probe-path-${pathId}'s record`);
  return p.pid;
}
