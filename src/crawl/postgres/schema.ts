/**
 * The crawl tables in PostgreSQL (schema `ccb`): crawls, the jobs' own rows (state, attempts,
 * who holds them, the pg-boss job that carries each), one result per job and every attempt.
 * pg-boss keeps its queues in its own schema (`ccb_boss`). Times are epoch milliseconds as in
 * the SQLite queue, so status and export read the same numbers from either store.
 */
import type { PoolClient } from 'pg';

export const CRAWL_SCHEMA = 'ccb';
export const BOSS_SCHEMA = 'ccb_boss';

const DDL = `
CREATE SCHEMA IF NOT EXISTS ccb;
CREATE TABLE IF NOT EXISTS ccb.crawls (
  crawl_id text PRIMARY KEY,
  file text NOT NULL,
  definition jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('active', 'paused', 'cancelled')),
  schedule text,
  round integer NOT NULL DEFAULT 1,
  created_at bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS ccb.crawl_jobs (
  job_id text PRIMARY KEY,
  seq bigserial,
  crawl_id text NOT NULL REFERENCES ccb.crawls (crawl_id),
  round integer NOT NULL,
  target_key text NOT NULL,
  region text NOT NULL,
  repeat_index integer NOT NULL,
  spec jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  queue text NOT NULL,
  boss_id uuid NOT NULL,
  claim_token text,
  worker text,
  lease_until bigint,
  first_claimed_at bigint,
  finished_at bigint,
  error text
);
CREATE INDEX IF NOT EXISTS crawl_jobs_crawl ON ccb.crawl_jobs (crawl_id, state);
CREATE INDEX IF NOT EXISTS crawl_jobs_lease ON ccb.crawl_jobs (state, lease_until);
CREATE TABLE IF NOT EXISTS ccb.crawl_results (
  job_id text PRIMARY KEY REFERENCES ccb.crawl_jobs (job_id),
  crawl_id text NOT NULL,
  round integer NOT NULL,
  region text NOT NULL,
  target_key text NOT NULL,
  status text NOT NULL,
  attempt integer NOT NULL,
  host text NOT NULL,
  dirs jsonb NOT NULL,
  run_ids jsonb NOT NULL,
  detail jsonb,
  runs jsonb NOT NULL,
  finished_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS crawl_results_crawl ON ccb.crawl_results (crawl_id);
CREATE TABLE IF NOT EXISTS ccb.crawl_attempts (
  job_id text NOT NULL,
  attempt integer NOT NULL,
  worker text NOT NULL,
  outcome text NOT NULL,
  error text,
  at bigint NOT NULL
);
`;

/** Creates the tables once; several workers starting together wait on one advisory lock. */
export async function ensureSchema(client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('ccb-crawl-schema'))");
    await client.query(DDL);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
