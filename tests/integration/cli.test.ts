/** The command line as a user meets it: help, bad input, missing capabilities, doctor. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { isRoot } from '../helpers/system.js';

function ccb(args: string[], opts: { uid?: number } = {}) {
  const [node, ...pre] = nodeModuleCommand('cli/main.ts');
  const r = spawnSync(node, [...pre, ...args], { encoding: 'utf8', timeout: 120_000, uid: opts.uid, gid: opts.uid });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('ccbrowse CLI', () => {
  it('has --help for every command', () => {
    for (const args of [[], ['doctor'], ['shaper'], ['shaper', 'check'], ['reap']]) {
      const r = ccb([...args, '--help']);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out).toMatch(/Usage: ccbrowse/);
    }
  });

  it('rejects a bad profile file with a clear message and exit code 2, no stack trace', () => {
    if (!isRoot) return;
    const dir = mkdtempSync(join(tmpdir(), 'ccb-cli-'));
    const file = join(dir, 'oops.ts');
    writeFileSync(file, "export default { name: 'oops', rateKbit: 'fast', delayMs: 10, buffer: { bdp: 2 } };\n");
    const r = ccb(['shaper', 'check', '--profile', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('oops.ts');
    expect(r.err).toContain('rateKbit');
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('rejects bad option values with exit code 2', () => {
    const r = ccb(['shaper', 'check', '--flows', 'many']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/flows/);
    for (const n of ['0', '2.5', 'three']) {
      const rr = ccb(['run', 'scenarios/lab/vod.ts', '--dry-run', '--repeat', n]);
      expect(rr.code, n).toBe(2);
      expect(rr.err).toMatch(/--repeat.*whole number/);
    }
  });

  it.skipIf(!isRoot)('says root is needed when run unprivileged, with a fix (exit 3)', () => {
    const r = ccb(['shaper', 'check'], { uid: 65534 });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/needs root/);
    expect(r.err).toMatch(/fix:/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it.skipIf(!isRoot)('doctor reports the kernel features and the backend as JSON', () => {
    const r = ccb(['doctor', '--json']);
    const report = JSON.parse(r.out) as { items: { name: string; ok: boolean; detail: string }[]; delayBackend: string; ready: boolean };
    const item = (n: string) => report.items.find((i) => i.name === n);
    expect(item('network namespaces')?.ok).toBe(true);
    expect(item('HTB qdisc')?.ok).toBe(true);
    expect(item('cls_bpf (per-flow class picker)')?.ok).toBe(true);
    expect(item('NFQUEUE via iptables')?.ok).toBe(true);
    // The host's own timer stalls are sampled (2 s) only when asked: the doctor answers at once.
    expect(item('host scheduling (2 s sample)')).toBeUndefined();
    // This kernel has no sch_netem: the doctor must say so and pick the delay line.
    const netem = item('sch_netem')!;
    expect(report.delayBackend).toBe(netem.ok ? 'netem' : 'nfqueue');
    expect(r.code).toBe(report.ready ? 0 : 3);
  });

  it.skipIf(!isRoot)('doctor --host-stalls samples the host for 2 s at the delay line\'s priority', () => {
    const r = ccb(['doctor', '--json', '--host-stalls']);
    const report = JSON.parse(r.out) as { items: { name: string; detail: string }[] };
    // 2000 wake-ups on each CPU the test may run on (one pinned sampler thread per CPU).
    const cpus = os.availableParallelism();
    expect(report.items.find((i) => i.name === 'host scheduling (2 s sample)')?.detail)
      .toMatch(new RegExp(`^\\d+ of ${2000 * cpus} 1-ms wake-ups on ${cpus} CPUs?`));
  });
});
