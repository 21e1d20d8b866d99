/**
 * A small pool of worker threads (node:worker_threads) that run one job at a time each, for
 * CPU-bound work spread across cores in one process (batch analysis: one capture per job).
 * Results come back in the order the jobs were given, each as soon as it and every job before
 * it are done, so a caller can stream them. A job's own error is its result, never the pool's:
 * one bad capture does not stop the others. A worker that dies takes its job with it (reported
 * as that job's error) and is replaced.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

export interface PoolJobResult<R> {
  index: number;
  ok: boolean;
  value?: R;
  error?: string;
}

export interface WorkerPoolOptions {
  /** Threads at once (default: the cores this process may use). */
  size?: number;
  /** Given to every worker as workerData (e.g. options shared by all jobs). */
  workerData?: unknown;
  /** Stop handing out jobs (those under way finish; the rest are reported as not done). */
  signal?: AbortSignal;
}

/** The message protocol a worker module follows: it receives { index, job } and answers { index, ok, value | error }. */
export interface WorkerJobMessage<J> { index: number; job: J }

/**
 * A worker of `url`. TypeScript sources (under tests and tsx) are loaded through tsx's API in
 * a small bootstrap: a thread's own `--import tsx` comes too late for its main module.
 */
function newWorker(url: URL, workerData: unknown): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true, workerData });
}

/** Default pool size: the cores this process may use. */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Runs every job on a pool of `size` workers of `moduleUrl`; yields results in job order as
 * they become available.
 */
export async function* runPool<J, R>(moduleUrl: URL, jobs: J[], o: WorkerPoolOptions = {}): AsyncGenerator<PoolJobResult<R>> {
  const size = Math.max(1, Math.min(o.size ?? defaultPoolSize(), jobs.length));
  const done = new Map<number, PoolJobResult<R>>();
  let next = 0;
  let wake: (() => void) | undefined;
  const settle = (r: PoolJobResult<R>) => {
    done.set(r.index, r);
    wake?.();
  };
  const workers = new Set<Worker>();

  const startWorker = (): void => {
    if (next >= jobs.length || o.signal?.aborted) return;
    const w = newWorker(moduleUrl, o.workerData);
    workers.add(w);
    let current = -1;
    const feed = () => {
      if (next >= jobs.length || o.signal?.aborted) {
        current = -1;
        workers.delete(w);
        void w.terminate();
        wake?.();
        return;
      }
      current = next++;
      w.postMessage({ index: current, job: jobs[current] } satisfies WorkerJobMessage<J>);
    };
    w.on('message', (m: PoolJobResult<R>) => {
      settle(m);
      feed();
    });
    w.on('error', (err) => {
      if (current >= 0) settle({ index: current, ok: false, error: `analysis worker failed: ${err.message}` });
      current = -1;
      workers.delete(w);
      startWorker();
      wake?.();
    });
    w.on('exit', () => {
      if (current >= 0) settle({ index: current, ok: false, error: 'analysis worker exited during the job' });
      current = -1;
      workers.delete(w);
      wake?.();
    });
    feed();
  };

  // An interrupt wakes the wait (the workers under way still answer).
  o.signal?.addEventListener('abort', () => wake?.(), { once: true });
  for (let i = 0; i < size; i++) startWorker();
  try {
    for (let i = 0; i < jobs.length; i++) {
      while (!done.has(i)) {
        if (o.signal?.aborted && workers.size === 0) {
          // Jobs never handed out: reported, so the caller can say what was not analysed.
          for (let k = i; k < jobs.length; k++) if (!done.has(k)) done.set(k, { index: k, ok: false, error: 'not analysed: interrupted' });
          break;
        }
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
      }
      const r = done.get(i)!;
      done.delete(i);
      yield r;
    }
  } finally {
    for (const w of workers) void w.terminate();
  }
}
