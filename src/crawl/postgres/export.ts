/**
 * A crawl on PostgreSQL into an SQLite results store: the report, `analyze` and every query
 * of the store read SQLite, so rather than a second implementation of those queries over
 * Postgres, the crawl's rows are copied into a store file (its queue tables, so `crawl status`
 * works on it too) and the runs browser jobs indexed (kept whole in Postgres) are ingested
 * there like any run. Run again, it brings the file up to date (rows replaced, not added).
 */
import { ingestRuns, type Store } from '../../store/index.js';
import type { RunData } from '../../results/read.js';
import { CrawlQueue } from '../queue.js';
import type { PostgresCrawlBackend } from './backend.js';

export interface ExportSummary { crawls: number; jobs: number; results: number; runs: number }

const json = (v: unknown) => JSON.stringify(v ?? null);
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function exportToSqlite(pg: PostgresCrawlBackend, store: Store, crawlId?: string): Promise<ExportSummary> {
  const d = await pg.dump(crawlId);
  const db = new CrawlQueue(store).db;
  const runs: RunData[] = d.results.flatMap((r) => r.runs as RunData[]);
  db.transaction(() => {
    const crawl = db.prepare(`INSERT OR REPLACE INTO crawls (crawl_id, file, definition, state, schedule, round, next_round_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, NULL, ?)`);
    for (const c of d.crawls) crawl.run(c.crawl_id, c.file, json(c.definition), c.state, c.schedule, c.round, num(c.created_at));
    const job = db.prepare(`INSERT OR REPLACE INTO crawl_jobs (job_id, seq, crawl_id, round, target_key, region, repeat_index, spec, state, attempts, max_attempts,
      not_before, claim_token, worker, lease_until, first_claimed_at, finished_at, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)`);
    for (const j of d.jobs) {
      job.run(j.job_id, num(j.seq), j.crawl_id, j.round, j.target_key, j.region, j.repeat_index, json(j.spec), j.state, j.attempts, j.max_attempts,
        j.claim_token, j.worker, num(j.lease_until), num(j.first_claimed_at), num(j.finished_at), j.error);
    }
    const result = db.prepare(`INSERT OR REPLACE INTO crawl_results (job_id, crawl_id, round, region, target_key, status, attempt, host, dirs, run_ids, detail, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const r of d.results) {
      result.run(r.job_id, r.crawl_id, r.round, r.region, r.target_key, r.status, r.attempt, r.host, json(r.dirs), json(r.run_ids), json(r.detail), num(r.finished_at));
    }
    // Attempts have no key: the exported crawls' are replaced as a whole.
    const ids = new Set(d.jobs.map((j) => j.job_id as string));
    const del = db.prepare('DELETE FROM crawl_attempts WHERE job_id = ?');
    for (const id of ids) del.run(id);
    const attempt = db.prepare('INSERT INTO crawl_attempts (job_id, attempt, worker, outcome, error, at) VALUES (?, ?, ?, ?, ?, ?)');
    for (const a of d.attempts) attempt.run(a.job_id, a.attempt, a.worker, a.outcome, a.error, num(a.at));
  })();
  if (runs.length) ingestRuns(store, runs);
  return { crawls: d.crawls.length, jobs: d.jobs.length, results: d.results.length, runs: runs.length };
}
