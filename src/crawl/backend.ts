/**
 * What the crawl commands and the worker need from a store, as two interfaces, so the same
 * commands run on one machine (SQLite: src/crawl/sqlite-backend.ts) or on many (PostgreSQL
 * + pg-boss: src/crawl/postgres/). One object implements both per store because a job's
 * result and its "done" mark must commit in one transaction of one database: that is what
 * makes "no result lost or duplicated" hold whatever is killed when.
 */
import type { RunData } from '../results/read.js';
import type { LoadedCrawl } from './define.js';
import type { CrawlState, Job, JobResult, Progress } from './queue.js';

/** The jobs: queued from a crawl file, claimed by workers of a region, retried, taken over. */
export interface JobQueue {
  /** Where it is (a file path, or the Postgres URL without its password), for messages. */
  readonly where: string;
  enqueue(c: LoadedCrawl): Promise<{ crawlId: string; created: boolean; jobsAdded: number; round: number }>;
  /** The next job of these regions (of active crawls); undefined when none is due. */
  claim(worker: string, regions: string[], leaseMs: number, crawlId?: string): Promise<Job | undefined>;
  /** Extends the lease; says whether to go on, stop (cancelled), or that the job was taken over. */
  renew(job: Job, leaseMs: number): Promise<'ok' | 'lost' | 'cancelled' | 'paused'>;
  fail(job: Job, reason: string, opts: { permanent?: boolean; backoffSeconds: number }): Promise<'retry' | 'failed' | 'lost'>;
  /** Ctrl-C: the job goes back to the queue. */
  release(job: Job): Promise<void>;
  /** A running job of a cancelled crawl, stopped by its worker. */
  cancelJob(job: Job): Promise<void>;
  setState(crawlId: string, state: CrawlState): Promise<boolean>;
  crawlIds(): Promise<string[]>;
  state(crawlId: string): Promise<CrawlState | undefined>;
  progress(crawlId: string): Promise<Progress | undefined>;
  failures(crawlId: string): Promise<Array<{ jobId: string; attempts: number; error: string }>>;
  /** Jobs of active crawls queued or running in these regions. */
  pending(regions: string[], crawlId?: string): Promise<number>;
  /** Scheduled crawls of these regions whose next round is due: queued here; what was fired. */
  fireDueRounds(regions: string[], crawlId?: string): Promise<Array<{ crawlId: string; jobs: number }>>;
  close(): Promise<void>;
}

export interface StoredResult {
  jobId: string;
  crawlId: string;
  region: string;
  targetKey: string;
  status: string;
  attempt: number;
  /** The host that measured it: the raw directories stay there. */
  host: string;
  dirs: string[];
  runIds: string[];
  detail: unknown;
}

/** The results: one per job, written with the job's done mark. */
export interface CrawlResults {
  /**
   * Records a job's result (and the runs a browser job indexes) and marks it done, atomically;
   * false (nothing written) when this attempt no longer holds the job.
   */
  complete(job: Job, result: JobResult, runs: RunData[]): Promise<boolean>;
  results(crawlId: string): Promise<StoredResult[]>;
}

export type CrawlBackend = JobQueue & CrawlResults;

/** A `--store` value that names a PostgreSQL database rather than an SQLite file. */
export function isPostgresUrl(store: string | undefined): store is string {
  return store !== undefined && /^postgres(ql)?:\/\//i.test(store);
}

/** A Postgres URL fit for messages and logs: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
