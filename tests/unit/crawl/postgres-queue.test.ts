/**
 * The crawl backend on PostgreSQL + pg-boss, against a real throw-away cluster (no lab, no
 * network): jobs queued once, a result accepted once and only from the current attempt,
 * retries and failures decided by pg-boss, a lapsed lease's job taken over, a job pg-boss
 * delivers again after it was done completed unrun, pause / resume / cancel, and a scheduled
 * crawl's round queued once when pg-boss's cron sends it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlSchema, resolveTargets, type LoadedCrawl } from '../../../src/crawl/define.js';
import { PostgresCrawlBackend, roundQueueName } from '../../../src/crawl/postgres/backend.js';
import type { JobResult } from '../../../src/crawl/queue.js';
import { exportToSqlite } from '../../../src/crawl/postgres/export.js';
import { readRunDir } from '../../../src/results/read.js';
import { openStore, storeSummary } from '../../../src/store/index.js';
import { nodeModuleCommand } from '../../../src/util/node-script.js';
import { postgresBinDir, startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { isRoot } from '../../helpers/system.js';

function crawl(input: Record<string, unknown>): LoadedCrawl {
  const definition = crawlSchema.parse({ lab: 'default', backoffSeconds: 0, ...input });
  return { file: '/dev/null', definition, targets: resolveTargets(definition, '/') };
}
const urls = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://s${i}.lab.ccb.test/`, mode: 'probe' }));
const res: JobResult = { status: 'complete', dirs: ['/runs/x'], runIds: ['x'], detail: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!isRoot || !postgresBinDir())('crawl backend on PostgreSQL + pg-boss', () => {
  let db: TestPostgres;
  let q: PostgresCrawlBackend;
  let client: pg.Client;
  const n = async (sql: string, v: unknown[] = []) => Number((await client.query(sql, v)).rows[0].n);
  const bossState = async (jobId: string) => (await client.query(
    'SELECT b.state::text AS s FROM ccb.crawl_jobs j JOIN ccb_boss.job b ON b.id = j.boss_id WHERE j.job_id = $1', [jobId])).rows[0]?.s as string;

  beforeAll(async () => {
    db = startPostgres();
    q = await PostgresCrawlBackend.open(db.url);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await client?.end().catch(() => {});
    await q?.close().catch(() => {});
    db?.stop();
  }, 60_000);

  it('queues each job once (in our rows and in pg-boss), one queue per crawl and region', async () => {
    const c = crawl({ name: 'once', targets: urls(2), regions: ['a', 'b'], repeats: 2 });
    expect(await q.enqueue(c)).toMatchObject({ created: true, jobsAdded: 8 });
    expect(await q.enqueue(c)).toMatchObject({ created: false, jobsAdded: 0 });
    expect(await n("SELECT COUNT(*) AS n FROM ccb_boss.job WHERE name = 'ccb-crawl-once-a'")).toBe(4);
    expect(await n("SELECT COUNT(*) AS n FROM ccb_boss.job WHERE name = 'ccb-crawl-once-b'")).toBe(4);
    // A worker of region a never gets b's jobs.
    const got = new Set<string>();
    for (let j = await q.claim('w', ['a'], 60_000, 'once'); j; j = await q.claim('w', ['a'], 60_000, 'once')) {
      got.add(j.region);
      expect(await q.complete(j, res, [])).toBe(true);
    }
    expect([...got]).toEqual(['a']);
    expect(await q.progress('once')).toMatchObject({ total: 8, done: 4, left: 4 });
    await q.setState('once', 'cancelled');
  });

  it('accepts a result once, from the attempt holding the job; a redelivered done job is completed unrun', async () => {
    await q.enqueue(crawl({ name: 'exact', targets: urls(1) }));
    const j = (await q.claim('w1', ['local'], 60_000, 'exact'))!;
    expect(await q.complete({ ...j, claimToken: 'stale' }, res, [])).toBe(false);
    expect(await q.complete(j, res, [])).toBe(true);
    expect(await q.complete(j, res, [])).toBe(false);
    expect(await bossState(j.jobId)).toBe('completed');
    // A worker killed between our commit and pg-boss's completion: pg-boss hands the job out again.
    await client.query("UPDATE ccb_boss.job SET state = 'retry', completed_on = NULL WHERE id = (SELECT boss_id FROM ccb.crawl_jobs WHERE job_id = $1)", [j.jobId]);
    expect(await q.claim('w2', ['local'], 60_000, 'exact')).toBeUndefined();
    expect(await bossState(j.jobId)).toBe('completed');
    expect(await n('SELECT COUNT(*) AS n FROM ccb.crawl_results WHERE job_id = $1', [j.jobId])).toBe(1);
  });

  it('retries a failed attempt (pg-boss counts the tries), then records it failed with its reason; bad input fails at once', async () => {
    await q.enqueue(crawl({ name: 'retry', targets: urls(2), retries: 1 }));
    const a1 = (await q.claim('w', ['local'], 60_000, 'retry'))!;
    expect(await q.fail(a1, 'flaky', { backoffSeconds: 0 })).toBe('retry');
    expect(await bossState(a1.jobId)).toBe('retry');
    let a2 = await q.claim('w', ['local'], 60_000, 'retry');
    // The other job may come first: fail that one permanently.
    if (a2!.jobId !== a1.jobId) {
      expect(await q.fail(a2!, 'no lab origin serves it', { permanent: true, backoffSeconds: 0 })).toBe('failed');
      expect(await bossState(a2!.jobId)).toBe('cancelled');
      a2 = await q.claim('w', ['local'], 60_000, 'retry');
    }
    expect(a2).toMatchObject({ jobId: a1.jobId, attempt: 2, maxAttempts: 2 });
    expect(await q.fail(a2!, 'flaky again', { backoffSeconds: 0 })).toBe('failed');
    expect(await bossState(a1.jobId)).toBe('failed');
    const last = await q.claim('w', ['local'], 60_000, 'retry');
    if (last) expect(await q.fail(last, 'no lab origin serves it', { permanent: true, backoffSeconds: 0 })).toBe('failed');
    expect((await q.failures('retry')).map((f) => f.error).sort()).toEqual(['flaky again', 'no lab origin serves it']);
    expect(await q.progress('retry')).toMatchObject({ failed: 2, left: 0, running: 0 });
  });

  it('takes over the job of a worker whose lease lapsed; the late holder\'s result is refused', async () => {
    await q.enqueue(crawl({ name: 'lapse', targets: urls(1), retries: 2 }));
    const dead = (await q.claim('host1:1:1', ['local'], 1, 'lapse'))!;
    await sleep(2100); // the lease (1 ms) lapsed; lapsed leases are looked for every 2 s
    const taker = (await q.claim('host2:2:2', ['local'], 60_000, 'lapse'))!;
    expect(taker).toMatchObject({ jobId: dead.jobId, attempt: 2 });
    expect(await q.renew(dead, 60_000)).toBe('lost');
    expect(await q.complete(dead, res, [])).toBe(false);
    expect(await q.complete(taker, res, [])).toBe(true);
    expect((await client.query("SELECT worker, outcome FROM ccb.crawl_attempts WHERE job_id = $1 ORDER BY at", [dead.jobId])).rows)
      .toEqual([{ worker: 'host1:1:1', outcome: 'lost' }, { worker: expect.any(String), outcome: 'done' }]);
  });

  it('release gives a job back; pause stops claims, resume restarts them; cancel cancels queued jobs in pg-boss too', async () => {
    await q.enqueue(crawl({ name: 'states', targets: urls(2), retries: 3 }));
    const j = (await q.claim('w', ['local'], 60_000, 'states'))!;
    await q.release(j);
    expect(await q.progress('states')).toMatchObject({ running: 0, left: 2 });
    await q.setState('states', 'paused');
    expect(await q.claim('w', ['local'], 60_000, 'states')).toBeUndefined();
    await q.setState('states', 'active');
    const k = (await q.claim('w', ['local'], 60_000, 'states'))!;
    expect(k).toBeDefined();
    await q.setState('states', 'cancelled');
    expect(await q.renew(k, 60_000)).toBe('cancelled');
    await q.cancelJob(k);
    expect(await q.progress('states')).toMatchObject({ cancelled: 2, left: 0, running: 0 });
    expect(await n("SELECT COUNT(*) AS n FROM ccb_boss.job WHERE name = 'ccb-crawl-states-local' AND state = 'cancelled'")).toBe(2);
  });

  it('the report builds from Postgres: a browser job\'s runs, kept whole there, exported into an SQLite store', async () => {
    await q.enqueue(crawl({ name: 'browse', targets: [{ url: 'https://www.lab.ccb.test/' }] }));
    const j = (await q.claim('w', ['local'], 60_000, 'browse'))!;
    const run = readRunDir('tests/fixtures/results/run-minimal');
    expect(await q.complete(j, { status: 'complete', dirs: [run.dir], runIds: [run.run.runId], detail: null }, [run])).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'ccb-pg-export-'));
    const store = openStore(join(dir, 'store.sqlite'));
    try {
      expect(await exportToSqlite(q, store, 'browse')).toEqual({ crawls: 1, jobs: 1, results: 1, runs: 1 });
      expect(await exportToSqlite(q, store, 'browse')).toEqual({ crawls: 1, jobs: 1, results: 1, runs: 1 }); // again: replaced, not added
      expect(storeSummary(store).runs).toBe(1);
    } finally {
      store.close();
    }
    // `report --store postgres://...` does that export itself.
    const cli = nodeModuleCommand('cli/main.ts');
    const r = spawnSync(cli[0]!, [...cli.slice(1), 'report', '--store', db.url, '--out', join(dir, 'report'), '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ runs: 1 });
    expect(existsSync(join(dir, 'report', 'index.html'))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 150_000);

  it('a scheduled crawl: its cron is registered with pg-boss; the round job it sends queues the next round once', async () => {
    await q.enqueue(crawl({ name: 'daily', targets: urls(2), schedule: '@daily' }));
    const boss = new PgBoss({ connectionString: db.url, schema: 'ccb_boss', supervise: false, schedule: false });
    await boss.start();
    try {
      expect((await boss.getSchedules()).filter((s) => s.name === roundQueueName('daily')).map((s) => s.cron)).toEqual(['0 0 * * *']);
      expect(await q.fireDueRounds(['local'])).toEqual([]);
      await boss.send(roundQueueName('daily'), { crawlId: 'daily' }); // what pg-boss's cron sends when it fires
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
    expect(await q.fireDueRounds(['other'])).toEqual([]);
    expect(await q.fireDueRounds(['local'])).toEqual([{ crawlId: 'daily', jobs: 2 }]);
    expect(await q.fireDueRounds(['local'])).toEqual([]);
    expect(await q.progress('daily')).toMatchObject({ round: 2, total: 4 });
  });
});
