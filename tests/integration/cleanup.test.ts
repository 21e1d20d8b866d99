/**
 * Cleanup: after a normal run, after SIGINT mid-run, and after SIGKILL followed by the
 * reaper at the next start, nothing of the run is left; the reaper never touches what it
 * does not own.
 */
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownersDir, type OwnerRecord } from '../../src/net/cleanup.js';
import { reap } from '../../src/net/reaper.js';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { isRoot, listNamespaces, pidAlive } from '../helpers/system.js';

/** Starts `ccbrowse shaper check` and resolves once it is measuring (all resources exist). */
function startCheck(): Promise<{ child: ReturnType<typeof spawn>; runId: string; stderr: () => string }> {
  const [node, ...args] = nodeModuleCommand('cli/main.ts');
  const child = spawn(node, [...args, 'shaper', 'check', '--profile', 'nebby-50', '--seconds', '30'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`check did not start measuring: ${err}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const id = /topology ccb-([0-9a-f]{6})/.exec(err)?.[1];
      if (id && err.includes('measuring')) { clearTimeout(timer); resolve({ child, runId: id, stderr: () => err }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`check exited early (${code}): ${err}`)); });
  });
}

function ownerRecord(runId: string): OwnerRecord {
  return JSON.parse(readFileSync(join(ownersDir(), `check-${runId}.json`), 'utf8')) as OwnerRecord;
}

function leftovers(runId: string, pids: number[]) {
  const ns = listNamespaces().filter((n) => n.includes(runId));
  const pins = readdirSync('/sys/fs/bpf').filter((n) => n.includes(runId));
  const procs = pids.filter(pidAlive);
  return { ns, pins, procs };
}

describe.skipIf(!isRoot)('cleanup and reaper', () => {
  it('SIGINT mid-run removes every namespace, pinned map and process of the run', async () => {
    const { child, runId } = await startCheck();
    const pids = ownerRecord(runId).resources.flatMap((r) => (r.kind === 'process' ? [r.pid] : []));
    expect(pids.length).toBeGreaterThanOrEqual(3); // delay line, sender, tcpdump
    expect(leftovers(runId, pids).ns).toHaveLength(3);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(leftovers(runId, pids)).toEqual({ ns: [], pins: [], procs: [] });
    expect(readdirSync(ownersDir()).filter((f) => f.includes(runId))).toEqual([]);
  }, 120_000);

  it('SIGINT with several runs in one process (concurrent probes) cleans all of them before exiting', async () => {
    const tag = `g${process.pid.toString(16)}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/helpers/guard-two-stacks.ts', tag], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('helper did not start')), 30_000);
      child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) { clearTimeout(timer); resolve(); } });
      child.on('exit', (c) => { clearTimeout(timer); reject(new Error(`helper exited early (${c})`)); });
    });
    expect(listNamespaces().filter((n) => n.startsWith(`ccb-${tag}-`)).sort()).toEqual([`ccb-${tag}-quick`, `ccb-${tag}-slow`]);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(listNamespaces().filter((n) => n.startsWith(`ccb-${tag}-`))).toEqual([]);
    expect(readdirSync(ownersDir()).filter((f) => f.includes(`guard-${tag}`))).toEqual([]);
  }, 60_000);

  it('SIGKILL leaves resources that the reaper removes at the next start', async () => {
    const { child, runId } = await startCheck();
    const pids = ownerRecord(runId).resources.flatMap((r) => (r.kind === 'process' ? [r.pid] : []));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const left = leftovers(runId, pids);
    expect(left.ns).toHaveLength(3); // killed outright: nothing could clean up
    expect(left.procs.length).toBeGreaterThan(0);
    const report = await reap();
    expect(report.ownersReaped).toContain(`check-${runId}`);
    expect(leftovers(runId, pids)).toEqual({ ns: [], pins: [], procs: [] });
  }, 120_000);

  it('the reaper leaves alone what it does not own and the records of live runs', async () => {
    const foreign = `ccb-notmine-${process.pid}`;
    execFileSync('ip', ['netns', 'add', foreign]);
    try {
      const { child, runId } = await startCheck();
      try {
        const report = await reap();
        expect(report.liveOwnersSkipped).toContain(`check-${runId}`);
        expect(listNamespaces()).toContain(foreign);
        expect(listNamespaces().filter((n) => n.includes(runId))).toHaveLength(3);
      } finally {
        child.kill('SIGTERM');
        const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
        expect(code).toBe(143);
      }
      expect(listNamespaces().filter((n) => n.includes(runId))).toEqual([]);
    } finally {
      execFileSync('ip', ['netns', 'del', foreign]);
    }
  }, 120_000);
});
