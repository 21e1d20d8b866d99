/**
 * The pool of a crawl's kept probe paths, its own logic only: paths are stand-ins that record
 * what is done to them (tests/integration/probe-paths.test.ts runs it on real namespaces).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CleanupStack } from '../../../src/net/cleanup.js';
import type { BuildPath, KeptProbePaths as Pool, ProbePath } from '../../../src/probe/paths.js';
import type { RunningLab } from '../../../src/lab/state.js';
import { profileSchema, type Profile } from '../../../src/shaper/profile.js';
import { isInterruption } from '../../../src/util/interrupt.js';

beforeAll(() => { process.env.CCB_STATE_DIR = mkdtempSync(join(tmpdir(), 'ccb-state-')); });

const lab = (pid = 1) => ({ name: 'synth', pid, routerNs: 'ccb-lab-x-router' }) as unknown as RunningLab;
const profile = (name: string): Profile => profileSchema.parse({ name, rateKbit: 100_000, delayMs: 0, buffer: { bytes: 1514 } });

/** A pool whose paths record their removal, their delay line's takes and their classifier's generations. */
function pool(opts: { failBuild?: boolean } = {}) {
  const removed: string[] = [];
  const taken: string[] = [];
  const generations: string[] = [];
  const dead = new Set<string>();
  const build: BuildPath = async (stack: CleanupStack, _lab, _profile, id) => {
    stack.push({ kind: 'file', path: `/nonexistent/${id}` }, async () => { removed.push(id); });
    if (opts.failBuild) throw new Error('no room on the router');
    return {
      topo: { runId: id },
      runAddr: '10.203.64.2',
      shaper: {
        delayLine: { takeStats: async () => { if (dead.has(id)) throw new Error('not running'); taken.push(id); } },
        classifier: { nextGeneration: async () => { generations.push(id); } },
      },
    } as unknown as ProbePath;
  };
  return { build, removed, taken, generations, dead };
}

async function newPool(build: BuildPath, idleLimitMs?: number): Promise<Pool> {
  const { KeptProbePaths } = await import('../../../src/probe/paths.js');
  return new KeptProbePaths(build, idleLimitMs);
}

describe('kept probe paths', () => {
  it('lends a released path again for the same lab run and profile, after its rest, with a new flow generation and an empty late-window log', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const a = await paths.acquire(lab(), profile('p'));
    expect(a.fresh).toBe(true);
    await a.release(true);
    const releasedAt = Date.now();
    const b = await paths.acquire(lab(), profile('p'));
    expect(Date.now() - releasedAt).toBeGreaterThanOrEqual(990);
    expect(b.fresh).toBe(false);
    expect(b.path).toBe(a.path);
    const id = a.path.topo.runId;
    expect(t.taken).toEqual([id]);
    expect(t.generations).toEqual([id]);
    expect(paths.counts).toEqual({ built: 1, reused: 1, removed: 0 });
    // Released twice: kept once.
    await b.release(true);
    await b.release(true);
    expect(paths.size).toBe(1);
    expect(await paths.close()).toEqual([]);
    expect(t.removed).toEqual([id]);
  });

  it('builds another path for another profile, and for a lab restarted under the same name (removing the old run\'s paths)', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const a = await paths.acquire(lab(1), profile('p'));
    const b = await paths.acquire(lab(1), profile('q'));
    expect(b.path).not.toBe(a.path);
    await a.release(true);
    await b.release(true);
    const c = await paths.acquire(lab(2), profile('p'));
    expect(c.fresh).toBe(true);
    expect(t.removed.sort()).toEqual([a.path.topo.runId, b.path.topo.runId].sort());
    await c.release(true);
    await paths.close();
  });

  it('removes a path released as broken, and one whose delay line died while it was idle (lending a new one instead)', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const a = await paths.acquire(lab(), profile('p'));
    await a.release(false);
    expect(t.removed).toEqual([a.path.topo.runId]);
    const b = await paths.acquire(lab(), profile('p'));
    await b.release(true);
    t.dead.add(b.path.topo.runId);
    const c = await paths.acquire(lab(), profile('p'));
    expect(c.fresh).toBe(true);
    expect(t.removed).toEqual([a.path.topo.runId, b.path.topo.runId]);
    await c.release(true);
    await paths.close();
  });

  it('keeps a path whose rest was interrupted, for the next probe', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const a = await paths.acquire(lab(), profile('p'));
    await a.release(true);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const err = await paths.acquire(lab(), profile('p'), ctl.signal).catch((e: unknown) => e);
    expect(isInterruption(err)).toBe(true);
    expect(t.removed).toEqual([]);
    const b = await paths.acquire(lab(), profile('p'));
    expect(b.path).toBe(a.path);
    await b.release(true);
    await paths.close();
  });

  it('on close removes the idle paths at once, a lent one when it comes back, and lends no more', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const lent = await paths.acquire(lab(), profile('p'));
    const idle = await paths.acquire(lab(), profile('q'));
    await idle.release(true);
    await paths.close();
    expect(t.removed).toEqual([idle.path.topo.runId]);
    await lent.release(true);
    expect(t.removed).toEqual([idle.path.topo.runId, lent.path.topo.runId]);
    expect(paths.size).toBe(0);
    await expect(paths.acquire(lab(), profile('p'))).rejects.toThrow(/being removed/);
  });

  it('lends one path to one probe: two at once get two paths', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const [a, b] = await Promise.all([paths.acquire(lab(), profile('p')), paths.acquire(lab(), profile('p'))]);
    expect(a.path).not.toBe(b.path);
    await a.release(true);
    await b.release(true);
    const [c, d] = await Promise.all([paths.acquire(lab(), profile('p')), paths.acquire(lab(), profile('p'))]);
    expect(new Set([c.path, d.path])).toEqual(new Set([a.path, b.path]));
    await c.release(true);
    await d.release(true);
    await paths.close();
  });

  it('removes paths idle past the limit, and leaves another lab\'s paths alone', async () => {
    const t = pool();
    const paths = await newPool(t.build, 300);
    const other = await paths.acquire({ ...lab(), name: 'default' } as RunningLab, profile('p'));
    await other.release(true);
    const a = await paths.acquire(lab(), profile('p'));
    await a.release(true);
    expect(t.removed).toEqual([]);
    await new Promise((r) => setTimeout(r, 400));
    const b = await paths.acquire(lab(), profile('q'));
    expect(t.removed.sort()).toEqual([other.path.topo.runId, a.path.topo.runId].sort());
    await b.release(true);
    await paths.close();
  });

  it('removes a path whose rest the pool\'s closing cut short', async () => {
    const t = pool();
    const paths = await newPool(t.build);
    const a = await paths.acquire(lab(), profile('p'));
    await a.release(true);
    const waiting = paths.acquire(lab(), profile('p')).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await paths.close();
    expect(String(await waiting)).toMatch(/being removed/);
    expect(t.removed).toEqual([a.path.topo.runId]);
    expect(paths.size).toBe(0);
  });

  it('rests a path until what its profile can hold in flight has drained', async () => {
    const { restMs } = await import('../../../src/probe/paths.js');
    expect(restMs(profile('p'))).toBe(1000);
    // 1 s each way, 250 kB of queue at 1 Mbit/s (2 s), half a second of lab path.
    expect(restMs(profileSchema.parse({ name: 'slow', rateKbit: 1000, delayMs: 1000, buffer: { bytes: 250_000 } }))).toBe(4500);
  });

  it('removes what a failed build made, and keeps nothing of it', async () => {
    const t = pool({ failBuild: true });
    const paths = await newPool(t.build);
    await expect(paths.acquire(lab(), profile('p'))).rejects.toThrow(/no room/);
    expect(t.removed).toHaveLength(1);
    expect(paths.size).toBe(0);
  });
});
