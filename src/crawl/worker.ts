/**
 * A crawl worker: claims the jobs of its region(s) from the queue, runs up to `concurrency`
 * at once (each session or probe in its own namespaces; fewer while the host disturbs the
 * bottlenecks of their traces: jobs-at-once.ts), and records each outcome. A job
 * holds a lease it renews while it runs; the renewal also tells it the crawl was cancelled
 * (the job stops and is marked cancelled) or that the job was taken over (its result is
 * discarded). Probes measure through paths (namespaces and bottleneck) the worker keeps until
 * it ends (probe/paths.ts). Ctrl-C stops the running jobs (each unwinds what it made), gives them
 * back to the queue uncounted, and removes the kept paths. Scheduled crawls of its regions get
 * their next round from here.
 */
import { join } from 'node:path';
import { readRunDir, type RunData } from '../results/read.js';
import { abortableSleep } from '../util/interrupt.js';
import type { CrawlBackend } from './backend.js';
import { KeptProbePaths } from '../probe/paths.js';
import { JobFailure, runJob, type JobContext } from './job.js';
import { JobsAtOnce, type JobsAtOnceChange, type TraceSeen } from './jobs-at-once.js';
import { CrawlQueue, workerId, type Job, type JobResult } from './queue.js';
import { SqliteCrawlBackend } from './sqlite-backend.js';

export type WorkerEvent =
  | { type: 'claimed'; job: Job }
  | { type: 'done'; job: Job; result: JobResult }
  | { type: 'retry'; job: Job; reason: string }
  | { type: 'failed'; job: Job; reason: string }
  | { type: 'released'; job: Job }
  | { type: 'cancelled'; job: Job }
  | { type: 'lost'; job: Job }
  | { type: 'round'; crawlId: string; jobs: number }
  | { type: 'jobs-at-once'; change: JobsAtOnceChange };

export interface WorkerOptions {
  /** The store's queue and results (SQLite or Postgres); a bare SQLite queue is wrapped. */
  queue: CrawlBackend | CrawlQueue;
  regions: string[];
  /** Jobs at once: the ceiling when `fixedConcurrency` is not set (jobs-at-once.ts). */
  concurrency: number;
  /** Keep `concurrency` jobs at once even when the host disturbs their traces. */
  fixedConcurrency?: boolean;
  /** Run directories go to <outDir>/<crawl>/. */
  outDir: string;
  /** The process's interrupt signal: running jobs stop and are given back. */
  signal: AbortSignal;
  /** Only this crawl's jobs (`crawl run`). */
  crawlId?: string;
  /** Return when nothing is left to claim (or the crawl is paused or cancelled); else poll until stopped. */
  untilIdle?: boolean;
  leaseMs?: number;
  pollMs?: number;
  onEvent?: (e: WorkerEvent) => void;
  progress?: (m: string) => void;
  /** Probe jobs with stopWhenStable: the watcher of a transfer (JobContext.watchProbe). */
  watchProbe?: JobContext['watchProbe'];
  /** Runs a job (tests and benchmarks may substitute); default runJob. */
  run?: (job: Job, ctx: JobContext) => Promise<JobResult>;
}

export interface WorkerSummary { done: number; failed: number; retried: number; released: number; cancelled: number; lost: number }

const DEFAULT_LEASE_MS = 60_000;

/** Browser runs are read before the transaction (files), inserted inside it (rows). */
function readRuns(job: Job, result: JobResult): RunData[] {
  return job.spec.mode === 'browser' ? result.dirs.map((d) => readRunDir(d)) : [];
}

export async function runWorker(o: WorkerOptions): Promise<WorkerSummary> {
  const queue: CrawlBackend = o.queue instanceof CrawlQueue ? new SqliteCrawlBackend(o.queue) : o.queue;
  const me = workerId();
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = o.pollMs ?? 1000;
  const emit = o.onEvent ?? (() => {});
  const run = o.run ?? runJob;
  const summary: WorkerSummary = { done: 0, failed: 0, retried: 0, released: 0, cancelled: 0, lost: 0 };
  const running = new Set<Promise<void>>();
  // Probes measure through paths kept for the whole worker: removing namespaces stalls the host (probe/paths.ts).
  const paths = new KeptProbePaths();
  const atOnce = new JobsAtOnce({ ceiling: o.concurrency });
  const announce = (change: JobsAtOnceChange | null) => {
    if (!change) return;
    try { emit({ type: 'jobs-at-once', change }); } catch { /* a listener's failure is not the job's */ }
  };
  // A fixed worker's count never sees a trace, so its limit stays at the ceiling.
  const recheck = () => announce(atOnce.running(running.size));
  const traceMeasured = o.fixedConcurrency ? undefined : (p: TraceSeen) => {
    announce(atOnce.observe(p));
    recheck(); // already within a lower limit: count from now
  };

  async function runOne(job: Job): Promise<void> {
    const ctl = new AbortController();
    let why: 'timeout' | 'cancelled' | 'lost' | undefined;
    const stop = (w: typeof why) => { why ??= w; ctl.abort(); };
    const timer = setTimeout(() => stop('timeout'), job.spec.timeoutSeconds * 1000);
    const beat = setInterval(() => {
      queue.renew(job, leaseMs).then((s) => {
        if (s === 'cancelled') stop('cancelled');
        else if (s === 'lost') stop('lost');
      }, (err: unknown) => o.progress?.(`lease renewal of ${job.jobId} failed: ${(err as Error).message}`));
    }, Math.max(200, Math.floor(leaseMs / 4)));
    const signal = AbortSignal.any([o.signal, ctl.signal]);
    try {
      const result = await run(job, { outDir: join(o.outDir, job.crawlId), signal, progress: o.progress, watchProbe: o.watchProbe, traceMeasured, paths });
      const runs = readRuns(job, result);
      const ok = await queue.complete(job, result, runs);
      summary[ok ? 'done' : 'lost']++;
      emit(ok ? { type: 'done', job, result } : { type: 'lost', job });
    } catch (err) {
      const failure = err instanceof JobFailure ? err : new JobFailure((err as Error)?.message ?? String(err));
      if (o.signal.aborted) {
        await queue.release(job);
        summary.released++;
        emit({ type: 'released', job });
      } else if (why === 'cancelled') {
        await queue.cancelJob(job);
        summary.cancelled++;
        emit({ type: 'cancelled', job });
      } else if (why === 'lost') {
        summary.lost++;
        emit({ type: 'lost', job });
      } else {
        const reason = why === 'timeout' ? `timed out after ${job.spec.timeoutSeconds} s` : failure.message;
        const outcome = await queue.fail(job, reason, { permanent: failure.permanent, backoffSeconds: job.spec.backoffSeconds });
        if (outcome === 'retry') { summary.retried++; emit({ type: 'retry', job, reason }); }
        else if (outcome === 'failed') { summary.failed++; emit({ type: 'failed', job, reason }); }
        else { summary.lost++; emit({ type: 'lost', job }); }
      }
    } finally {
      clearTimeout(timer);
      clearInterval(beat);
    }
  }

  /** Nothing left for this worker: `crawl run` returns. */
  async function idle(): Promise<boolean> {
    if (o.crawlId && (await queue.state(o.crawlId)) !== 'active') return true;
    return (await queue.pending(o.regions, o.crawlId)) === 0;
  }

  try {
    while (!o.signal.aborted) {
      // Scheduled crawls of these regions: the next round when its time has come.
      if (!o.crawlId) for (const r of await queue.fireDueRounds(o.regions)) emit({ type: 'round', crawlId: r.crawlId, jobs: r.jobs });
      recheck();
      while (running.size < atOnce.limit() && !o.signal.aborted) {
        const job = await queue.claim(me, o.regions, leaseMs, o.crawlId);
        if (!job) break;
        emit({ type: 'claimed', job });
        const p: Promise<void> = runOne(job).finally(() => { running.delete(p); recheck(); });
        running.add(p);
      }
      if (o.untilIdle && running.size === 0 && await idle()) break;
      // Wake at the poll interval, or as soon as a slot frees up.
      await Promise.race([abortableSleep(pollMs, o.signal).catch(() => {}), ...running]);
    }
  } finally {
    // Ctrl-C or a queue that failed: the running jobs stop and unwind first, then the kept paths go.
    await Promise.allSettled([...running]);
    await paths.close(o.progress);
  }
  return summary;
}
