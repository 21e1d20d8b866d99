/**
 * The crawl queue on SQLite (the one-machine default): crawls, their jobs (target x region x
 * repeat, per round of a schedule) and one result row per job, in the results store's own file
 * so that a job's result, the runs it indexes and its "done" mark commit in one transaction.
 *
 * Exactly once, whatever is killed when: a job is claimed atomically (BEGIN IMMEDIATE) with a
 * fresh claim token and a lease; a result is accepted only from the holder of the current
 * token, and the job id is the result's primary key. A worker that dies leaves its job
 * 'running' with a dead owner or a lapsing lease: the next claim puts it back in the queue.
 * A failed attempt is retried after a back-off that doubles, then recorded as failed with
 * its reason. Workers on one host see a dead owner at once (pid + start time); others wait
 * for the lease.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { isSameProcess, processStartTime } from '../net/resources.js';
import type { Store } from '../store/index.js';
import type { CrawlDefinition, CrawlMode, CrawlTarget, LoadedCrawl } from './define.js';

export type CrawlState = 'active' | 'paused' | 'cancelled';
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS crawls (
  crawl_id TEXT PRIMARY KEY,
  file TEXT NOT NULL,
  definition TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'paused', 'cancelled')),
  schedule TEXT,
  round INTEGER NOT NULL DEFAULT 1,
  next_round_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS crawl_jobs (
  job_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  crawl_id TEXT NOT NULL REFERENCES crawls (crawl_id),
  round INTEGER NOT NULL,
  target_key TEXT NOT NULL,
  region TEXT NOT NULL,
  repeat_index INTEGER NOT NULL,
  spec TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  not_before INTEGER NOT NULL DEFAULT 0,
  claim_token TEXT,
  worker TEXT,
  lease_until INTEGER,
  first_claimed_at INTEGER,
  finished_at INTEGER,
  error TEXT
);
CREATE INDEX IF NOT EXISTS crawl_jobs_claim ON crawl_jobs (state, region, not_before, seq);
CREATE INDEX IF NOT EXISTS crawl_jobs_crawl ON crawl_jobs (crawl_id, state);
CREATE TABLE IF NOT EXISTS crawl_results (
  job_id TEXT PRIMARY KEY REFERENCES crawl_jobs (job_id),
  crawl_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  region TEXT NOT NULL,
  target_key TEXT NOT NULL,
  status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  host TEXT NOT NULL,
  dirs TEXT NOT NULL,
  run_ids TEXT NOT NULL,
  detail TEXT NOT NULL,
  finished_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS crawl_attempts (
  job_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  worker TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error TEXT,
  at INTEGER NOT NULL
);
`;

/** What a worker runs: everything it needs, so a job does not depend on the crawl file later. */
export interface JobSpec {
  mode: CrawlMode;
  url?: string;
  scenarioFile?: string;
  profiles: string[];
  lab?: string;
  timeoutSeconds: number;
  visitSeconds: number;
  backoffSeconds: number;
  /** Probe mode: transfers (TCP, HTTP/3) end once their verdict is stable (absent in jobs queued before it existed). */
  stopWhenStable?: boolean;
  /** Probe mode: how many times a probe the host disturbed is measured again (absent: never). */
  remeasureDisturbed?: number;
}

/** What a job of this crawl target runs (the same for every region, repeat and round). */
export function jobSpecOf(def: CrawlDefinition, t: CrawlTarget): JobSpec {
  return { mode: t.mode, url: t.url, scenarioFile: t.scenarioFile, profiles: def.profiles, lab: def.lab,
    timeoutSeconds: def.jobTimeoutSeconds, visitSeconds: def.visitSeconds, backoffSeconds: def.backoffSeconds,
    ...(def.stopWhenStable ? { stopWhenStable: true } : {}), ...(def.remeasureDisturbed > 0 ? { remeasureDisturbed: def.remeasureDisturbed } : {}) };
}

/** A job's id: stable per crawl, round, region, repeat and target, so queueing again adds only what is missing. */
export function jobIdOf(def: CrawlDefinition, round: number, region: string, repeat: number, t: CrawlTarget): string {
  return `${def.name}:${round}:${region}:${repeat}:${t.key}`;
}

export interface Job {
  jobId: string;
  crawlId: string;
  round: number;
  targetKey: string;
  region: string;
  repeatIndex: number;
  spec: JobSpec;
  /** This attempt's number (1 = first). */
  attempt: number;
  maxAttempts: number;
  claimToken: string;
}

export interface JobResult {
  status: 'complete' | 'incomplete';
  /** Where the raw data stays (on the worker's host). */
  dirs: string[];
  runIds: string[];
  detail: unknown;
}

export interface Progress {
  crawlId: string;
  state: CrawlState;
  round: number;
  total: number;
  done: number;
  running: number;
  failed: number;
  cancelled: number;
  /** Queued, waiting for a worker (or for a retry's back-off). */
  left: number;
  /** Jobs finished (done or failed) per hour since the first was claimed. */
  ratePerHour: number | null;
  /** Seconds until the queue is empty at that rate. */
  etaSeconds: number | null;
}

/** A worker: host, pid and start time (a recycled pid is never taken for it). */
export function workerId(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '?'}`;
}

function workerAlive(worker: string): boolean | undefined {
  const [host, pid, start] = worker.split(':');
  if (host !== hostname()) return undefined; // another machine: only its lease tells
  return start !== '?' && isSameProcess(Number(pid), start);
}

/** Back-off before attempt n + 1 after n failed ones: base, 2 x base, 4 x base, ... at most an hour. */
export function backoffMs(baseSeconds: number, failedAttempts: number): number {
  return Math.min(3_600_000, baseSeconds * 1000 * 2 ** Math.max(0, failedAttempts - 1));
}

interface JobRow {
  job_id: string; crawl_id: string; round: number; target_key: string; region: string; repeat_index: number; spec: string;
  state: JobState; attempts: number; max_attempts: number; claim_token: string | null; worker: string | null; lease_until: number | null;
}

export class CrawlQueue {
  readonly db: Database.Database;

  constructor(readonly store: Store) {
    this.db = store.db;
    // Several workers share the file: wait for a writer rather than fail at once.
    this.db.pragma('busy_timeout = 30000');
    this.db.exec(SCHEMA);
  }

  /** Adds a crawl (or the jobs new targets add to one of that name); returns the jobs added. */
  enqueue(c: LoadedCrawl, now = Date.now()): { crawlId: string; created: boolean; jobsAdded: number; round: number } {
    const def = c.definition;
    return this.db.transaction(() => {
      const old = this.db.prepare('SELECT state, round FROM crawls WHERE crawl_id = ?').get(def.name) as { state: CrawlState; round: number } | undefined;
      if (!old) {
        this.db.prepare('INSERT INTO crawls (crawl_id, file, definition, state, schedule, round, next_round_at, created_at) VALUES (?, ?, ?, ?, ?, 1, NULL, ?)')
          .run(def.name, c.file, JSON.stringify({ definition: def, targets: c.targets }), 'active', def.schedule ?? null, now);
      } else {
        this.db.prepare('UPDATE crawls SET file = ?, definition = ?, schedule = ? WHERE crawl_id = ?')
          .run(c.file, JSON.stringify({ definition: def, targets: c.targets }), def.schedule ?? null, def.name);
      }
      const round = old?.round ?? 1;
      return { crawlId: def.name, created: !old, jobsAdded: this.addJobs(def, c.targets, round), round };
    }).immediate();
  }

  /** The jobs of one round: target x region x repeat; those already there are left alone. */
  private addJobs(def: CrawlDefinition, targets: CrawlTarget[], round: number): number {
    const seq0 = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM crawl_jobs').get() as { s: number }).s;
    const ins = this.db.prepare(`INSERT OR IGNORE INTO crawl_jobs (job_id, seq, crawl_id, round, target_key, region, repeat_index, spec, state, max_attempts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`);
    let added = 0;
    let seq = seq0;
    // Repeat-major, then target, then region: the first pass covers every site once.
    for (let r = 1; r <= def.repeats; r++) {
      for (const t of targets) {
        for (const region of def.regions) {
          const spec = jobSpecOf(def, t);
          const id = jobIdOf(def, round, region, r, t);
          added += ins.run(id, ++seq, def.name, round, t.key, region, r, JSON.stringify(spec), def.retries + 1).changes;
        }
      }
    }
    return added;
  }

  /**
   * Starts the next round of a scheduled crawl when it is due (several workers may try at
   * once: the check is inside the transaction). Returns the jobs added, or 0 when not due.
   */
  fireRound(crawlId: string, now: number, nextRoundAt: number): number {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT definition, round, next_round_at FROM crawls WHERE crawl_id = ?').get(crawlId) as { definition: string; round: number; next_round_at: number | null };
      if (row.next_round_at === null || row.next_round_at > now) return 0;
      const { definition, targets } = JSON.parse(row.definition) as { definition: CrawlDefinition; targets: CrawlTarget[] };
      this.db.prepare('UPDATE crawls SET round = ?, next_round_at = ? WHERE crawl_id = ?').run(row.round + 1, nextRoundAt, crawlId);
      return this.addJobs(definition, targets, row.round + 1);
    }).immediate();
  }

  /** Scheduled active crawls: id, schedule and when the next round is due (null: not computed yet). */
  scheduled(): Array<{ crawlId: string; schedule: string; nextRoundAt: number | null; regions: string[] }> {
    const rows = this.db.prepare("SELECT crawl_id, schedule, next_round_at, definition FROM crawls WHERE schedule IS NOT NULL AND state = 'active'").all() as
      Array<{ crawl_id: string; schedule: string; next_round_at: number | null; definition: string }>;
    return rows.map((r) => ({ crawlId: r.crawl_id, schedule: r.schedule, nextRoundAt: r.next_round_at,
      regions: (JSON.parse(r.definition) as { definition: CrawlDefinition }).definition.regions }));
  }

  /** First sight of a schedule: when its first round after now is due (left alone once set). */
  setNextRoundAt(crawlId: string, at: number): void {
    this.db.prepare('UPDATE crawls SET next_round_at = ? WHERE crawl_id = ? AND next_round_at IS NULL').run(at, crawlId);
  }

  /**
   * Jobs of dead workers back in the queue: an owner on this host that is gone, or a lease
   * that lapsed (another host's worker, or a hung one). An attempt that used the last try fails.
   */
  private recover(now: number): number {
    const running = this.db.prepare("SELECT job_id, worker, lease_until, attempts, max_attempts FROM crawl_jobs WHERE state = 'running'").all() as
      Array<{ job_id: string; worker: string; lease_until: number; attempts: number; max_attempts: number }>;
    let n = 0;
    for (const j of running) {
      const alive = workerAlive(j.worker);
      // Another host's worker (alive unknown) or a live but hung one: only the lease tells.
      if (alive !== false && j.lease_until >= now) continue;
      const reason = alive === false ? `worker ${j.worker} died during attempt ${j.attempts}` : `lease of worker ${j.worker} lapsed during attempt ${j.attempts}`;
      this.db.prepare('INSERT INTO crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES (?, ?, ?, ?, ?, ?)').run(j.job_id, j.attempts, j.worker, 'lost', reason, now);
      if (j.attempts >= j.max_attempts) {
        this.db.prepare("UPDATE crawl_jobs SET state = 'failed', error = ?, finished_at = ?, claim_token = NULL WHERE job_id = ?").run(reason, now, j.job_id);
      } else {
        this.db.prepare("UPDATE crawl_jobs SET state = 'queued', claim_token = NULL, worker = NULL, lease_until = NULL WHERE job_id = ?").run(j.job_id);
      }
      n++;
    }
    return n;
  }

  /** Claims the next job of these regions (of active crawls), atomically; undefined when none is due. */
  claim(worker: string, regions: string[], leaseMs: number, now = Date.now(), crawlId?: string): Job | undefined {
    return this.db.transaction((): Job | undefined => {
      this.recover(now);
      const marks = regions.map(() => '?').join(', ');
      const row = this.db.prepare(`SELECT j.* FROM crawl_jobs j JOIN crawls c ON c.crawl_id = j.crawl_id
        WHERE j.state = 'queued' AND c.state = 'active' AND j.region IN (${marks}) AND j.not_before <= ? ${crawlId ? 'AND j.crawl_id = ?' : ''}
        ORDER BY j.seq LIMIT 1`).get(...regions, now, ...(crawlId ? [crawlId] : [])) as JobRow | undefined;
      if (!row) return undefined;
      const token = randomUUID();
      this.db.prepare(`UPDATE crawl_jobs SET state = 'running', attempts = attempts + 1, claim_token = ?, worker = ?, lease_until = ?,
        first_claimed_at = COALESCE(first_claimed_at, ?) WHERE job_id = ?`).run(token, worker, now + leaseMs, now, row.job_id);
      return {
        jobId: row.job_id, crawlId: row.crawl_id, round: row.round, targetKey: row.target_key, region: row.region,
        repeatIndex: row.repeat_index, spec: JSON.parse(row.spec) as JobSpec, attempt: row.attempts + 1, maxAttempts: row.max_attempts, claimToken: token,
      };
    }).immediate();
  }

  /** Extends a job's lease; says whether the worker should go on ('ok'), stop ('cancelled'), or lost the job. */
  renew(job: Job, leaseMs: number, now = Date.now()): 'ok' | 'lost' | 'cancelled' | 'paused' {
    const r = this.db.prepare(`UPDATE crawl_jobs SET lease_until = ? WHERE job_id = ? AND claim_token = ? AND state = 'running'`).run(now + leaseMs, job.jobId, job.claimToken);
    if (r.changes === 0) return 'lost';
    const c = this.db.prepare('SELECT state FROM crawls WHERE crawl_id = ?').get(job.crawlId) as { state: CrawlState };
    return c.state === 'cancelled' ? 'cancelled' : c.state === 'paused' ? 'paused' : 'ok';
  }

  /**
   * Records a job's result and marks it done, in one transaction with `index` (the store's
   * own inserts of its runs). False (and nothing written) when the attempt no longer holds the job.
   */
  complete(job: Job, result: JobResult, index: () => void = () => {}, now = Date.now()): boolean {
    return this.db.transaction(() => {
      const cur = this.db.prepare('SELECT state, claim_token FROM crawl_jobs WHERE job_id = ?').get(job.jobId) as { state: JobState; claim_token: string | null };
      if (cur.state !== 'running' || cur.claim_token !== job.claimToken) return false;
      index();
      this.db.prepare(`INSERT INTO crawl_results (job_id, crawl_id, round, region, target_key, status, attempt, host, dirs, run_ids, detail, finished_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(job.jobId, job.crawlId, job.round, job.region, job.targetKey, result.status, job.attempt,
        hostname(), JSON.stringify(result.dirs), JSON.stringify(result.runIds), JSON.stringify(result.detail ?? null), now);
      this.db.prepare(`UPDATE crawl_jobs SET state = 'done', finished_at = ?, claim_token = NULL, lease_until = NULL, error = NULL WHERE job_id = ?`).run(now, job.jobId);
      this.db.prepare('INSERT INTO crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES (?, ?, ?, ?, NULL, ?)').run(job.jobId, job.attempt, workerId(), 'done', now);
      return true;
    }).immediate();
  }

  /**
   * A failed attempt: retried after the back-off, or (last attempt, or `permanent`: bad input
   * no retry can fix) recorded as failed with its reason.
   */
  fail(job: Job, reason: string, opts: { permanent?: boolean; backoffSeconds: number }, now = Date.now()): 'retry' | 'failed' | 'lost' {
    return this.db.transaction(() => {
      const cur = this.db.prepare('SELECT state, claim_token FROM crawl_jobs WHERE job_id = ?').get(job.jobId) as { state: JobState; claim_token: string | null };
      if (cur.state !== 'running' || cur.claim_token !== job.claimToken) return 'lost' as const;
      this.db.prepare('INSERT INTO crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES (?, ?, ?, ?, ?, ?)').run(job.jobId, job.attempt, workerId(), 'failed', reason, now);
      if (opts.permanent || job.attempt >= job.maxAttempts) {
        this.db.prepare("UPDATE crawl_jobs SET state = 'failed', error = ?, finished_at = ?, claim_token = NULL, lease_until = NULL WHERE job_id = ?").run(reason, now, job.jobId);
        return 'failed' as const;
      }
      this.db.prepare("UPDATE crawl_jobs SET state = 'queued', error = ?, not_before = ?, claim_token = NULL, worker = NULL, lease_until = NULL WHERE job_id = ?")
        .run(reason, now + backoffMs(opts.backoffSeconds, job.attempt), job.jobId);
      return 'retry' as const;
    }).immediate();
  }

  /** Gives a job back untouched (Ctrl-C, pause): its attempt does not count. */
  release(job: Job, now = Date.now()): void {
    this.db.transaction(() => {
      const r = this.db.prepare(`UPDATE crawl_jobs SET state = 'queued', attempts = attempts - 1, claim_token = NULL, worker = NULL, lease_until = NULL
        WHERE job_id = ? AND claim_token = ? AND state = 'running'`).run(job.jobId, job.claimToken);
      if (r.changes) this.db.prepare('INSERT INTO crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES (?, ?, ?, ?, ?, ?)').run(job.jobId, job.attempt, workerId(), 'released', null, now);
    }).immediate();
  }

  /** pause / resume / cancel. Cancel also cancels the queued jobs; running ones stop at their next heartbeat. */
  setState(crawlId: string, state: CrawlState, now = Date.now()): boolean {
    return this.db.transaction(() => {
      const r = this.db.prepare('UPDATE crawls SET state = ? WHERE crawl_id = ?').run(state, crawlId);
      if (r.changes && state === 'cancelled') {
        this.db.prepare("UPDATE crawl_jobs SET state = 'cancelled', finished_at = ?, error = 'crawl cancelled' WHERE crawl_id = ? AND state = 'queued'").run(now, crawlId);
      }
      return r.changes > 0;
    }).immediate();
  }

  /** A running job of a cancelled crawl that its worker stopped. */
  cancelJob(job: Job, now = Date.now()): void {
    this.db.prepare(`UPDATE crawl_jobs SET state = 'cancelled', finished_at = ?, error = 'crawl cancelled', claim_token = NULL, lease_until = NULL
      WHERE job_id = ? AND claim_token = ?`).run(now, job.jobId, job.claimToken);
  }

  crawlIds(): string[] {
    return (this.db.prepare('SELECT crawl_id FROM crawls ORDER BY created_at').all() as Array<{ crawl_id: string }>).map((r) => r.crawl_id);
  }

  state(crawlId: string): CrawlState | undefined {
    return (this.db.prepare('SELECT state FROM crawls WHERE crawl_id = ?').get(crawlId) as { state: CrawlState } | undefined)?.state;
  }

  /** done / running / failed / left, rate and ETA of a crawl (all its rounds). */
  progress(crawlId: string, now = Date.now()): Progress | undefined {
    const c = this.db.prepare('SELECT state, round FROM crawls WHERE crawl_id = ?').get(crawlId) as { state: CrawlState; round: number } | undefined;
    if (!c) return undefined;
    const counts = Object.fromEntries((this.db.prepare('SELECT state, COUNT(*) AS n FROM crawl_jobs WHERE crawl_id = ? GROUP BY state').all(crawlId) as
      Array<{ state: JobState; n: number }>).map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;
    const t = this.db.prepare('SELECT MIN(first_claimed_at) AS t0, MAX(finished_at) AS t1 FROM crawl_jobs WHERE crawl_id = ?').get(crawlId) as { t0: number | null; t1: number | null };
    const done = counts.done ?? 0;
    const failed = counts.failed ?? 0;
    const left = counts.queued ?? 0;
    const running = counts.running ?? 0;
    // A finished crawl's rate is over its working time, not up to whenever status is asked.
    const end = left + running === 0 && t.t1 !== null ? t.t1 : now;
    const hours = t.t0 === null ? 0 : (end - t.t0) / 3_600_000;
    const ratePerHour = hours > 0 && done + failed > 0 ? (done + failed) / hours : null;
    return {
      crawlId, state: c.state, round: c.round, total: Object.values(counts).reduce((a, n) => a + (n ?? 0), 0),
      done, running, failed, cancelled: counts.cancelled ?? 0, left, ratePerHour,
      etaSeconds: ratePerHour ? ((left + running) / ratePerHour) * 3600 : null,
    };
  }

  /** Failed jobs and why. */
  failures(crawlId: string): Array<{ jobId: string; attempts: number; error: string }> {
    return (this.db.prepare("SELECT job_id, attempts, error FROM crawl_jobs WHERE crawl_id = ? AND state = 'failed' ORDER BY seq").all(crawlId) as
      Array<{ job_id: string; attempts: number; error: string }>).map((r) => ({ jobId: r.job_id, attempts: r.attempts, error: r.error }));
  }

  /** The result rows of a crawl (one per job, at most). */
  results(crawlId: string): Array<{ jobId: string; status: string; attempt: number; host: string; dirs: string[]; runIds: string[]; detail: unknown }> {
    return (this.db.prepare('SELECT * FROM crawl_results WHERE crawl_id = ? ORDER BY job_id').all(crawlId) as
      Array<{ job_id: string; status: string; attempt: number; host: string; dirs: string; run_ids: string; detail: string }>)
      .map((r) => ({ jobId: r.job_id, status: r.status, attempt: r.attempt, host: r.host, dirs: JSON.parse(r.dirs) as string[],
        runIds: JSON.parse(r.run_ids) as string[], detail: JSON.parse(r.detail) as unknown }));
  }

  /** Jobs of active crawls queued or running in these regions (a worker with nothing left may stop). */
  pending(regions: string[], crawlId?: string): number {
    const r = this.db.prepare(`SELECT COUNT(*) AS n FROM crawl_jobs j JOIN crawls c ON c.crawl_id = j.crawl_id
      WHERE c.state = 'active' AND j.state IN ('queued', 'running') AND j.region IN (${regions.map(() => '?').join(', ')})
      ${crawlId ? 'AND j.crawl_id = ?' : ''}`).get(...regions, ...(crawlId ? [crawlId] : [])) as { n: number };
    return r.n;
  }

  /** Whether this crawl has nothing queued or running (all done, failed or cancelled). */
  finished(crawlId: string): boolean {
    const r = this.db.prepare("SELECT COUNT(*) AS n FROM crawl_jobs WHERE crawl_id = ? AND state IN ('queued', 'running')").get(crawlId) as { n: number };
    return r.n === 0;
  }
}
