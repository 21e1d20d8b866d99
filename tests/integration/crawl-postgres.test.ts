/**
 * Many machines' crawl on one host: a throw-away PostgreSQL cluster (started here), pg-boss on
 * it, a probe crawl of 6 jobs (3 targets x 2 lab regions) run by three worker processes
 * (two for r1, one for r2). One r1 worker is SIGKILLed while it runs a job: its lease lapses,
 * the other r1 worker takes the job over, the crawl completes, and Postgres holds exactly one
 * result per job (none lost, none duplicated), each on the host + path of the worker that made it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labDown, labUp } from '../../src/lab/control.js';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { postgresBinDir, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { isRoot, pidAlive } from '../helpers/system.js';

const LAB = 'tests/fixtures/labs/crawl-pg.ts';
const URLS = [20_000, 30_000, 40_000].map((n) => `https://www.lab.ccb.test/bytes/${n}`);
const CRAWL = 'pg-kill';

describe.skipIf(!isRoot || !postgresBinDir())('crawl on PostgreSQL + pg-boss: three workers in two regions, one SIGKILLed mid-job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-crawl-pg-it-'));
  const file = join(dir, 'crawl.ts');
  const cli = nodeModuleCommand('cli/main.ts');
  const workers: ChildProcess[] = [];
  let db: TestPostgres | undefined;
  let client: pg.Client | undefined;

  beforeAll(async () => {
    db = startPostgres();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await labUp({ config: LAB });
    writeFileSync(file, `import { defineCrawl } from 'ccbrowse';
export default defineCrawl({
  name: '${CRAWL}', lab: 'ccb-crawl-pg', regions: ['r1', 'r2'], profiles: ['fast-20m'], retries: 2, backoffSeconds: 1, jobTimeoutSeconds: 300,
  targets: [${URLS.map((u) => `{ url: '${u}', mode: 'probe' }`).join(', ')}],
});
`);
  }, 900_000);

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await client?.end().catch(() => {});
    // What the killed worker left (namespaces, captures): its owner is dead, the reaper undoes it.
    spawnSync(cli[0], [...cli.slice(1), 'reap'], { encoding: 'utf8', timeout: 120_000 });
    await labDown('ccb-crawl-pg').catch(() => {});
    db?.stop();
  }, 300_000);

  const q = async <R>(sql: string): Promise<R[]> => (await client!.query(sql)).rows as R[];
  const n = async (sql: string): Promise<number> => Number((await q<{ n: string }>(sql))[0]!.n);

  function worker(name: string, region: string): ChildProcess {
    const w = spawn(cli[0], [...cli.slice(1), 'worker', '--region', region, '--store', db!.url, '--out', join(dir, name), '--until-idle', '--lease', '10'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    w.stderr!.on('data', (d) => { err = (err + String(d)).slice(-4000); });
    Object.defineProperty(w, 'log', { get: () => err });
    workers.push(w);
    return w;
  }
  const exited = (w: ChildProcess) => new Promise<number | null>((r) => (w.exitCode !== null || w.signalCode !== null ? r(w.exitCode) : w.once('exit', (c) => r(c))));

  it('queues, runs on three workers, takes the killed worker\'s job over, and records each result once', async () => {
    const queued = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'run', file, '--store', db!.url, '--enqueue-only', '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(queued.status, queued.stderr).toBe(0);
    expect(JSON.parse(queued.stdout).progress).toMatchObject({ total: 6, left: 6 });
    expect(await n(`SELECT COUNT(*) AS n FROM ccb_boss.job WHERE name IN ('ccb-crawl-${CRAWL}-r1', 'ccb-crawl-${CRAWL}-r2')`)).toBe(6);

    const a = worker('a', 'r1');
    const b = worker('b', 'r1');
    const c = worker('c', 'r2');

    // Killed mid-job: the first r1 worker seen holding a running job, once some result is in.
    let victim: ChildProcess | undefined;
    let victimJob = '';
    const t0 = Date.now();
    while (!victim && Date.now() - t0 < 600_000) {
      await new Promise((r) => setTimeout(r, 300));
      const running = await q<{ job_id: string; worker: string }>("SELECT job_id, worker FROM ccb.crawl_jobs WHERE state = 'running' AND region = 'r1'");
      for (const r of running) {
        const w = [a, b].find((x) => r.worker.split(':')[1] === String(x.pid) && x.exitCode === null);
        if (w) { victim = w; victimJob = r.job_id; break; }
      }
      expect(a.exitCode ?? b.exitCode, 'an r1 worker ended before any was killed').toBeNull();
    }
    expect(victim, 'no r1 worker was seen running a job').toBeDefined();
    victim!.kill('SIGKILL');
    await exited(victim!);
    const survivor = victim === a ? b : a;

    const codes = await Promise.all([exited(survivor), exited(c)]);
    expect(codes, `${(survivor as unknown as { log: string }).log}\n${(c as unknown as { log: string }).log}`).toEqual([0, 0]);

    // Every job done, exactly one result each; the killed attempt recorded lost and run again elsewhere.
    expect(await q<{ state: string; n: string }>("SELECT state, COUNT(*) AS n FROM ccb.crawl_jobs GROUP BY state")).toEqual([{ state: 'done', n: '6' }]);
    expect(await n('SELECT COUNT(*) AS n FROM ccb.crawl_results')).toBe(6);
    expect(await n('SELECT COUNT(*) AS n FROM (SELECT job_id FROM ccb.crawl_results GROUP BY job_id HAVING COUNT(*) > 1) d')).toBe(0);
    expect(await n("SELECT COUNT(*) AS n FROM ccb.crawl_jobs j LEFT JOIN ccb.crawl_results r ON r.job_id = j.job_id WHERE r.job_id IS NULL")).toBe(0);
    const lost = await q<{ job_id: string; worker: string }>("SELECT job_id, worker FROM ccb.crawl_attempts WHERE outcome = 'lost'");
    expect(lost).toEqual([{ job_id: victimJob, worker: expect.stringContaining(`:${victim!.pid}:`) }]);
    const [taken] = await q<{ attempt: number; dirs: string[]; host: string }>(`SELECT attempt, dirs, host FROM ccb.crawl_results WHERE job_id = '${victimJob}'`);
    expect(taken!.attempt).toBe(2);
    const survivorOut = join(dir, survivor === a ? 'a' : 'b');
    expect(taken!.dirs.every((d) => d.startsWith(survivorOut))).toBe(true);

    // Each result: where its raw directories stay (host + path), each a complete probe; regions kept apart.
    for (const r of await q<{ region: string; host: string; dirs: string[] }>('SELECT region, host, dirs FROM ccb.crawl_results')) {
      expect(r.host).toBe(hostname());
      for (const d of r.dirs) {
        expect(d.startsWith(join(dir, r.region === 'r2' ? 'c' : ''))).toBe(true);
        expect((JSON.parse(readFileSync(join(d, 'probe.json'), 'utf8')) as { status: string }).status).toBe('complete');
      }
    }
    // pg-boss agrees: every job completed there once our result was in.
    expect(await q<{ state: string; n: string }>(`SELECT state::text, COUNT(*) AS n FROM ccb_boss.job WHERE name LIKE 'ccb-crawl-${CRAWL}-%' GROUP BY state`))
      .toEqual([{ state: 'completed', n: '6' }]);

    const status = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'status', CRAWL, '--store', db!.url, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)[0].progress).toMatchObject({ total: 6, done: 6, failed: 0, left: 0, running: 0 });

    // The report's way in: the crawl exported into an SQLite store with the same rows.
    const out = join(dir, 'export.sqlite');
    const exp = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'export', '--store', db!.url, '--to', out, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(exp.status, exp.stderr).toBe(0);
    expect(JSON.parse(exp.stdout)).toMatchObject({ crawls: 1, jobs: 6, results: 6 });
    expect(existsSync(out)).toBe(true);
    const lite = new Database(out, { readonly: true });
    try {
      expect((lite.prepare('SELECT COUNT(DISTINCT job_id) AS n FROM crawl_results').get() as { n: number }).n).toBe(6);
      expect((lite.prepare("SELECT COUNT(*) AS n FROM crawl_attempts WHERE outcome = 'lost'").get() as { n: number }).n).toBe(1);
    } finally {
      lite.close();
    }
    expect(pidAlive(victim!.pid!)).toBe(false);
  }, 1_500_000);
});
