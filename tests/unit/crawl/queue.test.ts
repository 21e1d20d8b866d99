/**
 * The crawl queue on a real SQLite file (two connections, as two workers would have): claims
 * are atomic, results are accepted once and only from the current attempt, failures are
 * retried with back-off then recorded with their reason, dead workers' jobs come back.
 * The worker loop runs here with a substituted job runner (pure queue logic, no network).
 */
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlSchema, resolveTargets, type LoadedCrawl } from '../../../src/crawl/define.js';
import { CrawlQueue, backoffMs, type Job } from '../../../src/crawl/queue.js';
import { runWorker } from '../../../src/crawl/worker.js';
import { JobFailure } from '../../../src/crawl/job.js';
import { formatProgress } from '../../../src/crawl/progress.js';
import { openStore, type Store } from '../../../src/store/index.js';

const stores: Store[] = [];
afterEach(() => { for (const s of stores.splice(0)) s.close(); });

function open(path: string): CrawlQueue {
  const s = openStore(path);
  stores.push(s);
  return new CrawlQueue(s);
}

function crawl(input: Record<string, unknown>): LoadedCrawl {
  const definition = crawlSchema.parse({ lab: 'default', ...input });
  return { file: '/dev/null', definition, targets: resolveTargets(definition, '/') };
}

const urls = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://s${i}.test/`, mode: 'probe' as const }));
const W1 = `other-host:1:w1`; // workers on another host: only their leases count
const W2 = `other-host:2:w2`;

describe('crawl queue (SQLite)', () => {
  it('a crawl becomes target x region x repeat jobs; queueing it again adds only what is missing', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    const r = q.enqueue(crawl({ name: 'c', targets: urls(3), regions: ['r1', 'r2'], repeats: 2 }));
    expect(r).toMatchObject({ created: true, jobsAdded: 12, round: 1 });
    expect(q.enqueue(crawl({ name: 'c', targets: urls(3), regions: ['r1', 'r2'], repeats: 2 })).jobsAdded).toBe(0);
    expect(q.enqueue(crawl({ name: 'c', targets: urls(4), regions: ['r1', 'r2'], repeats: 2 })).jobsAdded).toBe(4);
    expect(q.progress('c')).toMatchObject({ total: 16, left: 16, done: 0 });
  });

  it('two connections claiming in turn never get the same job; only their region', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const a = open(file);
    const b = open(file);
    a.enqueue(crawl({ name: 'c', targets: urls(5), regions: ['r1', 'r2'] }));
    const got: Job[] = [];
    for (let i = 0; i < 6; i++) {
      const j = (i % 2 ? a : b).claim(i % 2 ? W1 : W2, ['r1'], 60_000);
      if (j) got.push(j);
    }
    expect(got).toHaveLength(5);
    expect(new Set(got.map((j) => j.jobId)).size).toBe(5);
    expect(got.every((j) => j.region === 'r1' && j.attempt === 1)).toBe(true);
  });

  it('a result is recorded once, only by the attempt holding the job', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(1) }));
    const j = q.claim(W1, ['local'], 60_000)!;
    const res = { status: 'complete' as const, dirs: ['/x'], runIds: ['r'], detail: {} };
    expect(q.complete({ ...j, claimToken: 'stale' }, res)).toBe(false);
    let indexed = 0;
    expect(q.complete(j, res, () => { indexed++; })).toBe(true);
    expect(q.complete(j, res, () => { indexed++; })).toBe(false);
    expect(indexed).toBe(1);
    expect(q.results('c')).toHaveLength(1);
    // An index step that throws rolls the whole completion back: the job is still running.
    q.enqueue(crawl({ name: 'd', targets: urls(1) }));
    const k = q.claim(W1, ['local'], 60_000, Date.now(), 'd')!;
    expect(() => q.complete(k, res, () => { throw new Error('disk full'); })).toThrow(/disk full/);
    expect(q.results('d')).toHaveLength(0);
    expect(q.progress('d')).toMatchObject({ running: 1, done: 0 });
  });

  it('failures are retried after a doubling back-off, then recorded with their reason', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(1), retries: 2, backoffSeconds: 10 }));
    let now = 1_000_000;
    let j = q.claim(W1, ['local'], 60_000, now)!;
    expect(q.fail(j, 'curl failed (exit 7)', { backoffSeconds: 10 }, now)).toBe('retry');
    expect(q.claim(W1, ['local'], 60_000, now + 9_999)).toBeUndefined(); // backing off
    j = q.claim(W1, ['local'], 60_000, (now += 10_000))!;
    expect(j.attempt).toBe(2);
    expect(q.fail(j, 'curl failed (exit 7)', { backoffSeconds: 10 }, now)).toBe('retry');
    expect(q.claim(W1, ['local'], 60_000, now + 19_999)).toBeUndefined(); // doubled
    j = q.claim(W1, ['local'], 60_000, (now += 20_000))!;
    expect(q.fail(j, 'site never answers', { backoffSeconds: 10 }, now)).toBe('failed');
    expect(q.failures('c')).toEqual([{ jobId: j.jobId, attempts: 3, error: 'site never answers' }]);
    expect(backoffMs(10, 1)).toBe(10_000);
    expect(backoffMs(10, 20)).toBe(3_600_000);
    // Bad input no retry can fix fails at once.
    q.enqueue(crawl({ name: 'd', targets: urls(1) }));
    const k = q.claim(W1, ['local'], 60_000, now, 'd')!;
    expect(q.fail(k, 'no lab origin serves s0.test', { permanent: true, backoffSeconds: 10 }, now)).toBe('failed');
  });

  it('a dead worker\'s job goes back to the queue at once; a lapsed lease too; the last try fails', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(1), retries: 1 }));
    const dead = `${hostname()}:999999999:12345`;
    const j = q.claim(dead, ['local'], 3_600_000)!;
    // Its lease has an hour to go, but its owner is gone: taken over at once, as attempt 2.
    const taken = q.claim(W1, ['local'], 60_000)!;
    expect(taken.jobId).toBe(j.jobId);
    expect(taken.attempt).toBe(2);
    expect(q.complete(j, { status: 'complete', dirs: [], runIds: [], detail: null })).toBe(false); // the dead one's late result
    // Attempt 2 of 2 lost too (lease lapsed on another host): recorded failed with the reason.
    q.db.prepare("UPDATE crawl_jobs SET worker = 'elsewhere:1:1', lease_until = 0 WHERE job_id = ?").run(taken.jobId);
    expect(q.claim(W1, ['local'], 60_000)).toBeUndefined();
    expect(q.failures('c')[0].error).toMatch(/lease of worker elsewhere:1:1 lapsed during attempt 2/);
  });

  it('pause stops claims, resume allows them, cancel cancels what is queued', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(3) }));
    const j = q.claim(W1, ['local'], 60_000)!;
    q.setState('c', 'paused');
    expect(q.claim(W1, ['local'], 60_000)).toBeUndefined();
    expect(q.renew(j, 60_000)).toBe('paused');
    q.setState('c', 'active');
    expect(q.claim(W1, ['local'], 60_000)).toBeDefined();
    q.setState('c', 'cancelled');
    expect(q.renew(j, 60_000)).toBe('cancelled');
    expect(q.progress('c')).toMatchObject({ cancelled: 1, running: 2, left: 0 });
    q.release(j);
    expect(q.progress('c')).toMatchObject({ running: 1, left: 1 });
  });

  it('progress: done / running / failed / left, rate and ETA', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-q-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(4), retries: 0 }));
    const t0 = 0;
    const a = q.claim(W1, ['local'], 60_000, t0)!;
    q.complete(a, { status: 'complete', dirs: [], runIds: [], detail: null }, undefined, t0 + 600_000);
    const b = q.claim(W1, ['local'], 60_000, t0 + 600_000)!;
    q.fail(b, 'x', { backoffSeconds: 1 }, t0 + 1_200_000);
    q.claim(W1, ['local'], 60_000, t0 + 1_200_000);
    const p = q.progress('c', t0 + 1_800_000)!;
    expect(p).toMatchObject({ total: 4, done: 1, failed: 1, running: 1, left: 1, ratePerHour: 4 });
    expect(p.etaSeconds).toBe(1800);
    expect(formatProgress(p)).toBe('c: 1/4 done, 1 running, 1 failed, 1 left, 4.0 jobs/h, ETA 30 min');
  });
});

describe('crawl worker loop (substituted job runner)', () => {
  it('runs jobs several at once, retries failures, records each result once', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-w-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(6), regions: ['r1', 'r2'], retries: 1, backoffSeconds: 0 }));
    let running = 0;
    let most = 0;
    const tries = new Map<string, number>();
    const summary = await runWorker({
      queue: q, regions: ['r1'], concurrency: 3, outDir: '/nonexistent', signal: new AbortController().signal, crawlId: 'c', untilIdle: true, pollMs: 20,
      run: async (job) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        const n = (tries.get(job.jobId) ?? 0) + 1;
        tries.set(job.jobId, n);
        if (job.targetKey.includes('s1.') && n === 1) throw new JobFailure('flaky');
        if (job.targetKey.includes('s2.')) throw new JobFailure('scenario threw');
        return { status: 'complete', dirs: [], runIds: [job.jobId], detail: null };
      },
    });
    // r2's jobs are another worker's: this one returns when its own are through... but the crawl is not finished.
    expect(summary).toMatchObject({ done: 5, failed: 1, retried: 2 });
    expect(most).toBe(3);
    expect(q.failures('c').map((f) => f.error)).toEqual(['scenario threw']);
    expect(q.results('c')).toHaveLength(5);
    expect(q.progress('c')).toMatchObject({ done: 5, failed: 1, left: 6 });
  });
});

describe('jobs at once under a disturbing host (substituted job runner)', () => {
  // Each job reports two probes, disturbed or not, as runProbeJob does through ctx.traceMeasured.
  async function crawlWith(disturbed: boolean, fixedConcurrency?: boolean): Promise<{ most: number; last: number; events: string[] }> {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-jao-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'c', targets: urls(24) }));
    let running = 0;
    let most = 0;
    let last = 0;
    const events: string[] = [];
    await runWorker({
      queue: q, regions: ['local'], concurrency: 4, fixedConcurrency, outDir: '/nonexistent', signal: new AbortController().signal, crawlId: 'c', untilIdle: true, pollMs: 5,
      onEvent: (e) => { if (e.type === 'jobs-at-once') events.push(`${e.change.from}->${e.change.to}`); },
      run: async (job, ctx) => {
        running++;
        most = Math.max(most, running);
        last = running;
        for (let i = 0; i < 2; i++) {
          const startedAt = Date.now();
          await new Promise((r) => setTimeout(r, 15));
          ctx.traceMeasured?.({ disturbed, startedAt });
        }
        running--;
        return { status: 'complete', dirs: [], runIds: [job.jobId], detail: null };
      },
    });
    return { most, last, events };
  }

  it('a host that disturbs every probe brings the worker down to one job at a time', async () => {
    const r = await crawlWith(true);
    expect(r.most).toBe(4);
    expect(r.events).toEqual(['4->3', '3->2', '2->1']);
    expect(r.last).toBe(1);
  });

  it('clean probes keep the ceiling; --fixed-concurrency keeps it whatever the host does', async () => {
    expect(await crawlWith(false)).toMatchObject({ most: 4, events: [] });
    expect(await crawlWith(true, true)).toMatchObject({ most: 4, events: [] });
  });
});

describe('probe crawls that stop when stable', () => {
  it('the crawl\'s stopWhenStable reaches each job, and the worker hands its jobs the watcher factory', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-sws-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'stable', targets: urls(1), stopWhenStable: true }));
    q.enqueue(crawl({ name: 'whole', targets: urls(1) }));
    const watchProbe = () => { throw new Error('not called here'); };
    const seen: Array<[string, boolean | undefined, boolean]> = [];
    await runWorker({
      queue: q, regions: ['local'], concurrency: 1, outDir: '/nonexistent', signal: new AbortController().signal, untilIdle: true, pollMs: 20, watchProbe,
      run: async (job, ctx) => { seen.push([job.crawlId, job.spec.stopWhenStable, ctx.watchProbe === watchProbe]); return { status: 'complete', dirs: [], runIds: [], detail: null }; },
    });
    expect(seen.sort()).toEqual([['stable', true, true], ['whole', undefined, true]]);
  });

  it('disturbed probes are measured again once by default; a crawl can say never', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-rm-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'again', targets: urls(1) }));
    q.enqueue(crawl({ name: 'never', targets: urls(1), remeasureDisturbed: 0 }));
    const seen: Array<[string, number | undefined]> = [];
    await runWorker({
      queue: q, regions: ['local'], concurrency: 1, outDir: '/nonexistent', signal: new AbortController().signal, untilIdle: true, pollMs: 20,
      run: async (job) => { seen.push([job.crawlId, job.spec.remeasureDisturbed]); return { status: 'complete', dirs: [], runIds: [], detail: null }; },
    });
    expect(seen.sort()).toEqual([['again', 1], ['never', undefined]]);
  });
});

describe('scheduled crawls (worker)', () => {
  it('a due schedule queues the next round once, and the worker runs it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ccb-crawl-s-')), 'store.sqlite');
    const q = open(file);
    q.enqueue(crawl({ name: 'daily', targets: urls(2), schedule: '0 3 * * *' }));
    const events: string[] = [];
    const work = () => runWorker({
      queue: q, regions: ['local'], concurrency: 2, outDir: '/nonexistent', signal: new AbortController().signal, untilIdle: true, pollMs: 20,
      onEvent: (e) => { if (e.type === 'round') events.push(`round ${e.jobs}`); },
      run: async (job) => ({ status: 'complete', dirs: [], runIds: [job.jobId], detail: null }),
    });
    expect((await work()).done).toBe(2);
    // First sight of the schedule: its next firing is set (03:00 UTC after now), nothing fired.
    const next = (q.db.prepare("SELECT next_round_at AS t FROM crawls WHERE crawl_id = 'daily'").get() as { t: number }).t;
    expect(new Date(next).getUTCHours()).toBe(3);
    expect(next).toBeGreaterThan(Date.now());
    expect(events).toEqual([]);
    // Its time comes: round 2 is queued (once, however many workers look) and run.
    q.db.prepare("UPDATE crawls SET next_round_at = ? WHERE crawl_id = 'daily'").run(Date.now() - 1000);
    expect((await work()).done).toBe(2);
    expect(events).toEqual(['round 2']);
    expect(q.fireRound('daily', Date.now(), Date.now() + 1)).toBe(0);
    expect(q.progress('daily')).toMatchObject({ round: 2, total: 4, done: 4 });
  });
});
