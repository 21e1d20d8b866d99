/**
 * The one-machine crawl backend: the SQLite queue (queue.ts) in the results store's file,
 * behind the same interfaces as the Postgres one. Schedules fire from the worker here: when a
 * crawl's cron comes due the next round is queued (inside one transaction, so once).
 */
import { ingestRun, type Store } from '../store/index.js';
import type { RunData } from '../results/read.js';
import type { CrawlBackend, StoredResult } from './backend.js';
import { nextFire, parseCron } from './cron.js';
import type { LoadedCrawl } from './define.js';
import { CrawlQueue, type CrawlState, type Job, type JobResult } from './queue.js';

export class SqliteCrawlBackend implements CrawlBackend {
  readonly where: string;

  constructor(readonly queue: CrawlQueue) {
    this.where = queue.store.path;
  }

  static open(store: Store): SqliteCrawlBackend {
    return new SqliteCrawlBackend(new CrawlQueue(store));
  }

  async enqueue(c: LoadedCrawl) { return this.queue.enqueue(c); }
  async claim(worker: string, regions: string[], leaseMs: number, crawlId?: string) { return this.queue.claim(worker, regions, leaseMs, Date.now(), crawlId); }
  async renew(job: Job, leaseMs: number) { return this.queue.renew(job, leaseMs); }
  async fail(job: Job, reason: string, opts: { permanent?: boolean; backoffSeconds: number }) { return this.queue.fail(job, reason, opts); }
  async release(job: Job) { this.queue.release(job); }
  async cancelJob(job: Job) { this.queue.cancelJob(job); }
  async setState(crawlId: string, state: CrawlState) { return this.queue.setState(crawlId, state); }
  async crawlIds() { return this.queue.crawlIds(); }
  async state(crawlId: string) { return this.queue.state(crawlId); }
  async progress(crawlId: string) { return this.queue.progress(crawlId); }
  async failures(crawlId: string) { return this.queue.failures(crawlId); }
  async pending(regions: string[], crawlId?: string) { return this.queue.pending(regions, crawlId); }

  /** The runs of a browser job go into the store's run tables in the same transaction. */
  async complete(job: Job, result: JobResult, runs: RunData[]): Promise<boolean> {
    return this.queue.complete(job, result, () => { for (const r of runs) ingestRun(this.queue.store, r); });
  }

  async results(crawlId: string): Promise<StoredResult[]> {
    const rows = this.queue.db.prepare('SELECT * FROM crawl_results WHERE crawl_id = ? ORDER BY job_id').all(crawlId) as Array<{
      job_id: string; crawl_id: string; region: string; target_key: string; status: string; attempt: number; host: string; dirs: string; run_ids: string; detail: string }>;
    return rows.map((r) => ({ jobId: r.job_id, crawlId: r.crawl_id, region: r.region, targetKey: r.target_key, status: r.status, attempt: r.attempt,
      host: r.host, dirs: JSON.parse(r.dirs) as string[], runIds: JSON.parse(r.run_ids) as string[], detail: JSON.parse(r.detail) as unknown }));
  }

  async fireDueRounds(regions: string[], crawlId?: string, now = Date.now()): Promise<Array<{ crawlId: string; jobs: number }>> {
    const fired: Array<{ crawlId: string; jobs: number }> = [];
    for (const s of this.queue.scheduled()) {
      if (crawlId && s.crawlId !== crawlId) continue;
      if (!s.regions.some((r) => regions.includes(r))) continue;
      const cron = parseCron(s.schedule);
      if (s.nextRoundAt === null) { this.queue.setNextRoundAt(s.crawlId, nextFire(cron, new Date(now)).getTime()); continue; }
      if (s.nextRoundAt > now) continue;
      const jobs = this.queue.fireRound(s.crawlId, now, nextFire(cron, new Date(now)).getTime());
      if (jobs > 0) fired.push({ crawlId: s.crawlId, jobs });
    }
    return fired;
  }

  /** The store belongs to whoever opened it. */
  async close(): Promise<void> {}
}
