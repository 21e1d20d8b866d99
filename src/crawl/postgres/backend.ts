/**
 * The many-machines crawl backend: results in PostgreSQL, jobs delivered by pg-boss, so
 * workers on several hosts share one crawl through one connection string.
 *
 * pg-boss carries the jobs: one queue per crawl and region (`ccb-crawl-<crawl>-<region>`; a
 * worker fetches only its region's), its retry count and back-off decide retries, its expiry
 * is the backstop for a job whose worker vanished, and its cron fires scheduled rounds. Our own
 * rows (schema `ccb`, schema.ts) say what each job is, who holds it (a claim token and a lease
 * the worker renews) and hold its one result. Exactly once, as on SQLite: a result commits in
 * one transaction with the job's done mark and the pg-boss completion, and only from the
 * attempt holding the current token. A job whose lease lapsed (its worker died, on whatever
 * host) is failed in pg-boss by the next worker that looks, which puts it back for a retry or
 * records it failed when it had no try left; pg-boss redelivering a job that is already done
 * (a worker killed between our commit and pg-boss's) is recognised and completed unrun.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { RunData } from '../../results/read.js';
import { redactUrl, type CrawlBackend, type StoredResult } from '../backend.js';
import { cronFields } from '../cron.js';
import type { CrawlDefinition, CrawlTarget, LoadedCrawl } from '../define.js';
import { jobIdOf, jobSpecOf, workerId, type CrawlState, type Job, type JobResult, type JobSpec, type JobState, type Progress } from '../queue.js';
import { BOSS_SCHEMA, ensureSchema } from './schema.js';

/** pg-boss's view of one job (what we ask back after failing it). */
type BossState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/** A pg-boss queue name for a crawl's region (names are [a-z0-9-], so this is a valid one). */
export function jobQueueName(crawlId: string, region: string): string {
  return `ccb-crawl-${crawlId}-${region}`;
}

/** The queue pg-boss's cron sends a scheduled crawl's "next round" job to. */
export function roundQueueName(crawlId: string): string {
  return `ccb-round-${crawlId}`;
}

/** pg-boss's expiry is the backstop behind our lease: past the job's own time limit, with room. */
const EXPIRY_SLACK_SECONDS = 300;
/** Lapsed leases are looked for at most this often (every claim would be a query too many). */
const RECOVER_EVERY_MS = 2000;

interface Tx {
  client: pg.PoolClient;
  /** pg-boss's calls inside our transaction. */
  boss: { db: PgBoss.Db };
}

export class PostgresCrawlBackend implements CrawlBackend {
  readonly where: string;
  private lastRecover = 0;
  private rotation = 0;

  private constructor(private readonly pool: pg.Pool, private readonly boss: PgBoss, url: string) {
    this.where = redactUrl(url);
  }

  /** Connects, creates the tables and pg-boss's schema when missing, starts pg-boss (its cron and maintenance). */
  static async open(url: string): Promise<PostgresCrawlBackend> {
    const pool = new pg.Pool({ connectionString: url, max: 4, application_name: 'ccbrowse' });
    // An idle client's error (the server restarted) must not kill the worker: the next query says it.
    pool.on('error', () => {});
    const client = await pool.connect();
    try { await ensureSchema(client); } finally { client.release(); }
    const boss = new PgBoss({ connectionString: url, schema: BOSS_SCHEMA, max: 3, application_name: 'ccbrowse-boss' });
    boss.on('error', () => {});
    await boss.start();
    return new PostgresCrawlBackend(pool, boss, url);
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, wait: true }).catch(() => {});
    await this.pool.end();
  }

  private async tx<T>(f: (t: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const t: Tx = { client, boss: { db: { executeSql: async (text, values) => client.query(text, values) } } };
      const out = await f(t);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  private async rows<R>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(sql, values)).rows as R[];
  }

  async enqueue(c: LoadedCrawl): Promise<{ crawlId: string; created: boolean; jobsAdded: number; round: number }> {
    const def = c.definition;
    // Queues first (pg-boss creates a table per queue; idempotent), then rows and jobs in one transaction.
    for (const region of def.regions) await this.boss.createQueue(jobQueueName(def.name, region));
    if (def.schedule) await this.boss.createQueue(roundQueueName(def.name));
    const out = await this.tx(async (t) => {
      await t.client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ccb-crawl:${def.name}`]);
      const old = (await t.client.query('SELECT state, round FROM ccb.crawls WHERE crawl_id = $1', [def.name])).rows[0] as { state: CrawlState; round: number } | undefined;
      const stored = JSON.stringify({ definition: def, targets: c.targets });
      if (!old) {
        await t.client.query("INSERT INTO ccb.crawls (crawl_id, file, definition, state, schedule, round, created_at) VALUES ($1, $2, $3, 'active', $4, 1, $5)",
          [def.name, c.file, stored, def.schedule ?? null, Date.now()]);
      } else {
        await t.client.query('UPDATE ccb.crawls SET file = $1, definition = $2, schedule = $3 WHERE crawl_id = $4', [c.file, stored, def.schedule ?? null, def.name]);
      }
      const round = old?.round ?? 1;
      return { crawlId: def.name, created: !old, jobsAdded: await this.addJobs(t, def, c.targets, round), round };
    });
    // pg-boss's cron sends the round queue a job when the schedule fires (once, whichever instance sees it).
    if (def.schedule) await this.boss.schedule(roundQueueName(def.name), cronFields(def.schedule), { crawlId: def.name }, { tz: 'UTC' });
    return out;
  }

  /** One round's jobs (target x region x repeat): our rows and their pg-boss jobs; existing ones left alone. */
  private async addJobs(t: Tx, def: CrawlDefinition, targets: CrawlTarget[], round: number): Promise<number> {
    const inserts: PgBoss.JobInsert[] = [];
    for (let r = 1; r <= def.repeats; r++) {
      for (const target of targets) {
        for (const region of def.regions) {
          const spec = jobSpecOf(def, target);
          const jobId = jobIdOf(def, round, region, r, target);
          const queue = jobQueueName(def.name, region);
          const bossId = randomUUID();
          const added = await t.client.query(`INSERT INTO ccb.crawl_jobs (job_id, crawl_id, round, target_key, region, repeat_index, spec, state, max_attempts, queue, boss_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $10) ON CONFLICT (job_id) DO NOTHING`,
          [jobId, def.name, round, target.key, region, r, JSON.stringify(spec), def.retries + 1, queue, bossId]);
          if (added.rowCount) {
            inserts.push({ id: bossId, name: queue, data: { jobId }, retryLimit: def.retries, retryDelay: def.backoffSeconds, retryBackoff: def.backoffSeconds > 0,
              expireInSeconds: def.jobTimeoutSeconds + EXPIRY_SLACK_SECONDS });
          }
        }
      }
    }
    if (inserts.length) await this.boss.insert(inserts, t.boss);
    return inserts.length;
  }

  /** Active crawls and their regions (paused and cancelled crawls' queues are not fetched from). */
  private async activeCrawls(crawlId?: string): Promise<Array<{ crawlId: string; regions: string[]; schedule: string | null }>> {
    const rows = await this.rows<{ crawl_id: string; definition: { definition: CrawlDefinition }; schedule: string | null }>(
      `SELECT crawl_id, definition, schedule FROM ccb.crawls WHERE state = 'active' ${crawlId ? 'AND crawl_id = $1' : ''} ORDER BY created_at`, crawlId ? [crawlId] : []);
    return rows.map((r) => ({ crawlId: r.crawl_id, regions: r.definition.definition.regions, schedule: r.schedule }));
  }

  /**
   * Jobs whose lease lapsed (their worker died or hung, on any host): failed in pg-boss, which
   * retries them (back in the queue) or, on their last try, records them failed; our row follows.
   */
  private async recover(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRecover < RECOVER_EVERY_MS) return;
    this.lastRecover = now;
    await this.tx(async (t) => {
      const lapsed = (await t.client.query(`SELECT job_id, queue, boss_id, worker, attempts FROM ccb.crawl_jobs
        WHERE state = 'running' AND lease_until < $1 FOR UPDATE SKIP LOCKED`, [now])).rows as Array<{ job_id: string; queue: string; boss_id: string; worker: string; attempts: number }>;
      for (const j of lapsed) {
        const reason = `lease of worker ${j.worker} lapsed during attempt ${j.attempts}`;
        // Already expired by pg-boss (back for a retry): failing it again would count a try twice.
        if (await this.bossState(t, j.queue, j.boss_id) === 'active') await this.boss.fail(j.queue, j.boss_id, { reason }, t.boss);
        await this.lostAttempt(t, j, reason, now);
      }
    });
  }

  /** Records a lost attempt and puts our row where pg-boss now has the job. */
  private async lostAttempt(t: Tx, j: { job_id: string; queue: string; boss_id: string; worker: string; attempts: number }, reason: string, now: number): Promise<void> {
    await t.client.query("INSERT INTO ccb.crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES ($1, $2, $3, 'lost', $4, $5)", [j.job_id, j.attempts, j.worker, reason, now]);
    const state = await this.bossState(t, j.queue, j.boss_id);
    if (state === 'failed') {
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'failed', error = $2, finished_at = $3, claim_token = NULL, lease_until = NULL WHERE job_id = $1", [j.job_id, reason, now]);
    } else {
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'queued', error = $2, claim_token = NULL, worker = NULL, lease_until = NULL WHERE job_id = $1", [j.job_id, reason]);
    }
  }

  private async bossState(t: Tx, queue: string, id: string): Promise<BossState | undefined> {
    return ((await this.boss.getJobById(queue, id, { ...t.boss, includeArchive: true })) as { state: BossState } | null)?.state;
  }

  async claim(worker: string, regions: string[], leaseMs: number, crawlId?: string): Promise<Job | undefined> {
    await this.recover();
    const queues = (await this.activeCrawls(crawlId)).flatMap((c) => c.regions.filter((r) => regions.includes(r)).map((r) => jobQueueName(c.crawlId, r)));
    // Start at a different queue each time: one crawl or region does not starve the others.
    for (let i = 0; i < queues.length; i++) {
      const queue = queues[(this.rotation + i) % queues.length]!;
      for (;;) {
        const [bossJob] = await this.boss.fetch<{ jobId: string }>(queue, { batchSize: 1, includeMetadata: true });
        if (!bossJob) break;
        const job = await this.take(bossJob, queue, worker, leaseMs);
        if (job) { this.rotation++; return job; }
        // A stale delivery (the job was already finished): completed unrun; look again.
      }
    }
    return undefined;
  }

  /** Makes a fetched pg-boss job ours: a new claim token and lease on our row, in one transaction. */
  private async take(b: PgBoss.JobWithMetadata<{ jobId: string }>, queue: string, worker: string, leaseMs: number): Promise<Job | undefined> {
    const now = Date.now();
    return this.tx(async (t) => {
      const row = (await t.client.query('SELECT * FROM ccb.crawl_jobs WHERE job_id = $1 FOR UPDATE', [b.data.jobId])).rows[0] as
        { job_id: string; crawl_id: string; round: number; target_key: string; region: string; repeat_index: number; spec: JobSpec; state: JobState; worker: string | null; attempts: number; max_attempts: number } | undefined;
      if (!row || row.state === 'done' || row.state === 'failed' || row.state === 'cancelled') {
        await this.boss.complete(queue, b.id, { stale: row?.state ?? 'unknown' }, t.boss);
        return undefined;
      }
      if (row.state === 'running') {
        // pg-boss expired it before our lease check did: the holder is gone.
        await t.client.query("INSERT INTO ccb.crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES ($1, $2, $3, 'lost', $4, $5)",
          [row.job_id, row.attempts, row.worker ?? '?', `pg-boss expired attempt ${row.attempts} of worker ${row.worker}`, now]);
      }
      const token = randomUUID();
      const attempt = b.retryCount + 1;
      await t.client.query(`UPDATE ccb.crawl_jobs SET state = 'running', attempts = $2, claim_token = $3, worker = $4, lease_until = $5,
        first_claimed_at = COALESCE(first_claimed_at, $6) WHERE job_id = $1`, [row.job_id, attempt, token, worker, now + leaseMs, now]);
      return {
        jobId: row.job_id, crawlId: row.crawl_id, round: row.round, targetKey: row.target_key, region: row.region, repeatIndex: row.repeat_index,
        spec: row.spec, attempt, maxAttempts: b.retryLimit + 1, claimToken: token,
      };
    });
  }

  async renew(job: Job, leaseMs: number): Promise<'ok' | 'lost' | 'cancelled' | 'paused'> {
    const r = await this.pool.query(`UPDATE ccb.crawl_jobs SET lease_until = $1 WHERE job_id = $2 AND claim_token = $3 AND state = 'running'`,
      [Date.now() + leaseMs, job.jobId, job.claimToken]);
    if (!r.rowCount) return 'lost';
    const state = await this.state(job.crawlId);
    return state === 'cancelled' ? 'cancelled' : state === 'paused' ? 'paused' : 'ok';
  }

  /** Locks our row and says whether this attempt still holds the job (and which pg-boss job carries it). */
  private async holds(t: Tx, job: Job): Promise<{ queue: string; boss_id: string } | undefined> {
    const cur = (await t.client.query('SELECT state, claim_token, queue, boss_id FROM ccb.crawl_jobs WHERE job_id = $1 FOR UPDATE', [job.jobId])).rows[0] as
      { state: JobState; claim_token: string | null; queue: string; boss_id: string } | undefined;
    return cur && cur.state === 'running' && cur.claim_token === job.claimToken ? cur : undefined;
  }

  async complete(job: Job, result: JobResult, runs: RunData[]): Promise<boolean> {
    const now = Date.now();
    return this.tx(async (t) => {
      const cur = await this.holds(t, job);
      if (!cur) return false;
      await t.client.query(`INSERT INTO ccb.crawl_results (job_id, crawl_id, round, region, target_key, status, attempt, host, dirs, run_ids, detail, runs, finished_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [job.jobId, job.crawlId, job.round, job.region, job.targetKey, result.status, job.attempt,
        hostname(), JSON.stringify(result.dirs), JSON.stringify(result.runIds), JSON.stringify(result.detail ?? null), JSON.stringify(runs), now]);
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'done', finished_at = $2, claim_token = NULL, lease_until = NULL, error = NULL WHERE job_id = $1", [job.jobId, now]);
      await t.client.query("INSERT INTO ccb.crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES ($1, $2, $3, 'done', NULL, $4)", [job.jobId, job.attempt, workerId(), now]);
      await this.boss.complete(cur.queue, cur.boss_id, { result: 'recorded' }, t.boss);
      return true;
    });
  }

  /** pg-boss decides retry or failed (its retry limit and back-off); a permanent failure is cancelled there at once. */
  async fail(job: Job, reason: string, opts: { permanent?: boolean; backoffSeconds: number }): Promise<'retry' | 'failed' | 'lost'> {
    const now = Date.now();
    return this.tx(async (t) => {
      const cur = await this.holds(t, job);
      if (!cur) return 'lost' as const;
      await t.client.query("INSERT INTO ccb.crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES ($1, $2, $3, 'failed', $4, $5)", [job.jobId, job.attempt, workerId(), reason, now]);
      if (opts.permanent) await this.boss.cancel(cur.queue, cur.boss_id, t.boss);
      else await this.boss.fail(cur.queue, cur.boss_id, { reason }, t.boss);
      const state = opts.permanent ? 'failed' : await this.bossState(t, cur.queue, cur.boss_id);
      if (state === 'retry' || state === 'created') {
        await t.client.query("UPDATE ccb.crawl_jobs SET state = 'queued', error = $2, claim_token = NULL, worker = NULL, lease_until = NULL WHERE job_id = $1", [job.jobId, reason]);
        return 'retry' as const;
      }
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'failed', error = $2, finished_at = $3, claim_token = NULL, lease_until = NULL WHERE job_id = $1", [job.jobId, reason, now]);
      return 'failed' as const;
    });
  }

  /**
   * Ctrl-C: the job goes back to pg-boss at once (cancelled then resumed: pg-boss has no
   * "unfetch"). Unlike on SQLite it counts as one of the job's tries: pg-boss counts every fetch.
   */
  async release(job: Job): Promise<void> {
    await this.tx(async (t) => {
      const cur = await this.holds(t, job);
      if (!cur) return;
      await this.boss.cancel(cur.queue, cur.boss_id, t.boss);
      await this.boss.resume(cur.queue, cur.boss_id, t.boss);
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'queued', claim_token = NULL, worker = NULL, lease_until = NULL WHERE job_id = $1", [job.jobId]);
      await t.client.query("INSERT INTO ccb.crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES ($1, $2, $3, 'released', NULL, $4)", [job.jobId, job.attempt, workerId(), Date.now()]);
    });
  }

  async cancelJob(job: Job): Promise<void> {
    await this.tx(async (t) => {
      const cur = await this.holds(t, job);
      if (!cur) return;
      await this.boss.cancel(cur.queue, cur.boss_id, t.boss);
      await t.client.query("UPDATE ccb.crawl_jobs SET state = 'cancelled', finished_at = $2, error = 'crawl cancelled', claim_token = NULL, lease_until = NULL WHERE job_id = $1", [job.jobId, Date.now()]);
    });
  }

  async setState(crawlId: string, state: CrawlState): Promise<boolean> {
    const changed = await this.tx(async (t) => {
      const r = await t.client.query('UPDATE ccb.crawls SET state = $1 WHERE crawl_id = $2', [state, crawlId]);
      if (!r.rowCount) return false;
      if (state === 'cancelled') {
        const queued = (await t.client.query(`UPDATE ccb.crawl_jobs SET state = 'cancelled', finished_at = $2, error = 'crawl cancelled'
          WHERE crawl_id = $1 AND state = 'queued' RETURNING queue, boss_id`, [crawlId, Date.now()])).rows as Array<{ queue: string; boss_id: string }>;
        const byQueue = new Map<string, string[]>();
        for (const q of queued) byQueue.set(q.queue, [...(byQueue.get(q.queue) ?? []), q.boss_id]);
        for (const [queue, ids] of byQueue) await this.boss.cancel(queue, ids, t.boss);
      }
      return true;
    });
    if (changed && state === 'cancelled') await this.boss.unschedule(roundQueueName(crawlId)).catch(() => {});
    return changed;
  }

  async crawlIds(): Promise<string[]> {
    return (await this.rows<{ crawl_id: string }>('SELECT crawl_id FROM ccb.crawls ORDER BY created_at')).map((r) => r.crawl_id);
  }

  async state(crawlId: string): Promise<CrawlState | undefined> {
    return (await this.rows<{ state: CrawlState }>('SELECT state FROM ccb.crawls WHERE crawl_id = $1', [crawlId]))[0]?.state;
  }

  async progress(crawlId: string): Promise<Progress | undefined> {
    await this.recover();
    const now = Date.now();
    const [c] = await this.rows<{ state: CrawlState; round: number }>('SELECT state, round FROM ccb.crawls WHERE crawl_id = $1', [crawlId]);
    if (!c) return undefined;
    const counts = Object.fromEntries((await this.rows<{ state: JobState; n: number }>('SELECT state, COUNT(*)::int AS n FROM ccb.crawl_jobs WHERE crawl_id = $1 GROUP BY state', [crawlId]))
      .map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;
    const [t] = await this.rows<{ t0: string | null; t1: string | null }>('SELECT MIN(first_claimed_at) AS t0, MAX(finished_at) AS t1 FROM ccb.crawl_jobs WHERE crawl_id = $1', [crawlId]);
    const done = counts.done ?? 0;
    const failed = counts.failed ?? 0;
    const left = counts.queued ?? 0;
    const running = counts.running ?? 0;
    const end = left + running === 0 && t?.t1 != null ? Number(t.t1) : now;
    const hours = t?.t0 == null ? 0 : (end - Number(t.t0)) / 3_600_000;
    const ratePerHour = hours > 0 && done + failed > 0 ? (done + failed) / hours : null;
    return {
      crawlId, state: c.state, round: c.round, total: Object.values(counts).reduce((a, n) => a + (n ?? 0), 0),
      done, running, failed, cancelled: counts.cancelled ?? 0, left, ratePerHour,
      etaSeconds: ratePerHour ? ((left + running) / ratePerHour) * 3600 : null,
    };
  }

  async failures(crawlId: string): Promise<Array<{ jobId: string; attempts: number; error: string }>> {
    return (await this.rows<{ job_id: string; attempts: number; error: string }>("SELECT job_id, attempts, error FROM ccb.crawl_jobs WHERE crawl_id = $1 AND state = 'failed' ORDER BY seq", [crawlId]))
      .map((r) => ({ jobId: r.job_id, attempts: r.attempts, error: r.error }));
  }

  async pending(regions: string[], crawlId?: string): Promise<number> {
    await this.recover();
    const [r] = await this.rows<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ccb.crawl_jobs j JOIN ccb.crawls c ON c.crawl_id = j.crawl_id
      WHERE c.state = 'active' AND j.state IN ('queued', 'running') AND j.region = ANY($1) ${crawlId ? 'AND j.crawl_id = $2' : ''}`, crawlId ? [regions, crawlId] : [regions]);
    return r?.n ?? 0;
  }

  /** pg-boss's cron put a "next round" job in a scheduled crawl's round queue: whoever fetches it queues the round, once. */
  async fireDueRounds(regions: string[], crawlId?: string): Promise<Array<{ crawlId: string; jobs: number }>> {
    const fired: Array<{ crawlId: string; jobs: number }> = [];
    for (const c of await this.activeCrawls(crawlId)) {
      if (!c.schedule || !c.regions.some((r) => regions.includes(r))) continue;
      const queue = roundQueueName(c.crawlId);
      const [due] = await this.boss.fetch(queue, { batchSize: 1 });
      if (!due) continue;
      const jobs = await this.tx(async (t) => {
        const row = (await t.client.query('SELECT definition, round FROM ccb.crawls WHERE crawl_id = $1 FOR UPDATE', [c.crawlId])).rows[0] as
          { definition: { definition: CrawlDefinition; targets: CrawlTarget[] }; round: number };
        await t.client.query('UPDATE ccb.crawls SET round = $2 WHERE crawl_id = $1', [c.crawlId, row.round + 1]);
        const n = await this.addJobs(t, row.definition.definition, row.definition.targets, row.round + 1);
        await this.boss.complete(queue, due.id, { round: row.round + 1 }, t.boss);
        return n;
      });
      fired.push({ crawlId: c.crawlId, jobs });
    }
    return fired;
  }

  async results(crawlId: string): Promise<StoredResult[]> {
    const rows = await this.rows<{ job_id: string; crawl_id: string; region: string; target_key: string; status: string; attempt: number; host: string; dirs: string[]; run_ids: string[]; detail: unknown }>(
      'SELECT job_id, crawl_id, region, target_key, status, attempt, host, dirs, run_ids, detail FROM ccb.crawl_results WHERE crawl_id = $1 ORDER BY job_id', [crawlId]);
    return rows.map((r) => ({ jobId: r.job_id, crawlId: r.crawl_id, region: r.region, targetKey: r.target_key, status: r.status, attempt: r.attempt,
      host: r.host, dirs: r.dirs, runIds: r.run_ids, detail: r.detail }));
  }

  /** Every row of the crawl tables, for the export to SQLite (export.ts). */
  async dump(crawlId?: string): Promise<{ crawls: Record<string, unknown>[]; jobs: Record<string, unknown>[]; results: Record<string, unknown>[]; attempts: Record<string, unknown>[] }> {
    const w = crawlId ? 'WHERE crawl_id = $1' : '';
    const v = crawlId ? [crawlId] : [];
    return {
      crawls: await this.rows(`SELECT * FROM ccb.crawls ${w} ORDER BY created_at`, v),
      jobs: await this.rows(`SELECT * FROM ccb.crawl_jobs ${w} ORDER BY seq`, v),
      results: await this.rows(`SELECT * FROM ccb.crawl_results ${w} ORDER BY job_id`, v),
      attempts: await this.rows(`SELECT * FROM ccb.crawl_attempts ${crawlId ? "WHERE job_id LIKE $1 || ':%'" : ''} ORDER BY at`, v),
    };
  }
}
