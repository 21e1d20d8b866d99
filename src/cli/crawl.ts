/**
 * `ccbrowse crawl run|status|pause|resume|cancel` and `ccbrowse worker` (issue 18): a crawl
 * file becomes jobs in the queue (the results store's SQLite file), workers run them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BadInputError, ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import type { Store } from '../store/index.js';
import type { CrawlQueue as CrawlQueueType, CrawlState, WorkerEvent } from '../crawl/index.js';

// The store (SQLite), the crawl queue and the loaders are imported when a crawl command runs,
// never when the command tree is built (`--help` loads none of them: tests/unit/cli/startup.test.ts).
let M!: typeof import('../store/index.js') & typeof import('../crawl/index.js') & Pick<typeof import('../shaper/profile.js'), 'loadProfile'> & Pick<typeof import('../scenario/load.js'), 'loadScenario'>;
async function load(): Promise<void> {
  if (M) return;
  const [store, crawl, profile, scenario] = await Promise.all([
    import('../store/index.js'), import('../crawl/index.js'), import('../shaper/profile.js'), import('../scenario/load.js')]);
  M = { ...store, ...crawl, loadProfile: profile.loadProfile, loadScenario: scenario.loadScenario };
}
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { opt } from './options.js';
import { reporterFor, type Reporter } from './output.js';

const DEFAULT_OUT = 'runs';
const storeOption = (c: Command) => c.option('--store <file>', 'results store holding the crawl queue (default <out>/ccbrowse.sqlite)');

function storePathOf(opts: { store?: string; out?: string }): string {
  return opts.store ?? join(opts.out ?? DEFAULT_OUT, 'ccbrowse.sqlite');
}

function withQueue<T>(path: string, f: (q: CrawlQueueType) => T): T {
  // status/pause/resume/cancel never create a store: a wrong path is said as such.
  if (!existsSync(path)) throw new BadInputError(`no results store ${path}`, 'pass the --store (or --out) the crawl was run with');
  const store: Store = M.openStore(path);
  try { return f(new M.CrawlQueue(store)); } finally { store.close(); }
}

/** What a worker says about each job, on stderr. */
function eventLine(say: Reporter): (e: WorkerEvent) => void {
  return (e) => {
    if (e.type === 'round') { say.info(`crawl ${e.crawlId}: schedule fired, ${e.jobs} jobs queued`); return; }
    const j = e.job;
    const what = `${j.spec.mode} ${j.spec.url ?? j.spec.scenarioFile} [${j.region} #${j.repeatIndex}]`;
    if (e.type === 'claimed') say.detail(`start ${what} (attempt ${j.attempt}/${j.maxAttempts})`);
    else if (e.type === 'done') say.info(`done ${what} -> ${e.result.dirs.join(', ')}`);
    else if (e.type === 'retry') say.info(`retry ${what}: ${e.reason}`);
    else if (e.type === 'failed') say.info(`FAILED ${what}: ${e.reason}`);
    else say.info(`${e.type} ${what}`);
  };
}

/** Checks a crawl's profiles and scenarios load before anything is queued (exit 2 otherwise). */
async function checkInputs(profiles: string[], scenarioFiles: string[]): Promise<void> {
  await Promise.all(profiles.map((p) => M.loadProfile(p)));
  for (const f of new Set(scenarioFiles)) await M.loadScenario(f);
}

export function registerCrawl(program: Command): void {
  const crawl = program.command('crawl').description('census crawls: many targets x regions x repeats as a resumable queue of jobs (docs/crawl.md)');

  storeOption(crawl.command('run')
    .description('queue a crawl file\'s jobs (again: only what is missing) and work through them here, several at once; resumes after any kill')
    .argument('<file>', 'crawl file (defineCrawl), e.g. crawls/lab-probe.ts'))
    .addOption(opt.out('where run directories (<out>/<crawl>/) and the default store go', DEFAULT_OUT))
    .addOption(opt.count('--concurrency <n>', "jobs at once (default: the crawl's)", 1, 16))
    .option('--enqueue-only', 'queue the jobs and return (workers run them: `ccbrowse worker`)')
    .addOption(opt.json())
    .action(async (file: string, opts: { store?: string; out: string; concurrency?: number; enqueueOnly?: boolean; json?: boolean }, cmd: Command) => {
      await load();
      const loaded = await M.loadCrawl(file);
      const def = loaded.definition;
      await checkInputs(def.profiles, loaded.targets.flatMap((t) => (t.scenarioFile ? [t.scenarioFile] : [])));
      const storePath = storePathOf(opts);
      const say = reporterFor(cmd, { elapsed: true });
      if (!opts.enqueueOnly) {
        requireRoot('crawl run');
        if (def.lab) for (const r of def.regions) requireRunningLab(def.lab, r);
      }
      const store = M.openStore(storePath);
      try {
        const queue = new M.CrawlQueue(store);
        const state = queue.state(def.name);
        if (state === 'cancelled') throw new BadInputError(`crawl ${def.name} was cancelled`, 'give the crawl another name to start it afresh');
        const q = queue.enqueue(loaded);
        say.info(`crawl ${def.name}: ${q.created ? 'created' : 'resumed'}, ${q.jobsAdded} job(s) queued (${loaded.targets.length} targets x ${def.regions.length} regions x ${def.repeats} repeats) in ${storePath}`);
        if (!opts.enqueueOnly) {
          if (state === 'paused') say.info(`crawl ${def.name} is paused: 'ccbrowse crawl resume ${def.name}' first`);
          await reapLeftovers(say.info);
          const signal = interruptSignal();
          const ticker = setInterval(() => say.progress(M.formatProgress(queue.progress(def.name)!)), 1000);
          try {
            await M.runWorker({ queue, regions: def.regions, concurrency: opts.concurrency ?? def.concurrency, outDir: opts.out, signal,
              crawlId: def.name, untilIdle: true, onEvent: eventLine(say), progress: say.detail });
          } finally {
            clearInterval(ticker);
            say.done();
          }
        }
        const p = queue.progress(def.name)!;
        if (opts.json) console.log(JSON.stringify({ store: storePath, progress: p, failures: queue.failures(def.name) }, null, 2));
        else {
          console.log(M.formatProgress(p));
          for (const f of queue.failures(def.name)) console.log(`failed ${f.jobId} after ${f.attempts} attempt(s): ${f.error}`);
        }
        process.exitCode = p.failed > 0 || (!opts.enqueueOnly && p.left + p.running > 0) ? ExitCode.checkFailed : ExitCode.ok;
      } finally {
        store.close();
      }
    });

  storeOption(crawl.command('status')
    .description('progress of crawls: done / running / failed / left, rate and ETA, and why jobs failed')
    .argument('[name]', 'one crawl (default: all in the store)'))
    .addOption(opt.out('where the default store is', DEFAULT_OUT))
    .addOption(opt.json())
    .action(async (name: string | undefined, opts: { store?: string; out: string; json?: boolean }) => {
      await load();
      const storePath = storePathOf(opts);
      withQueue(storePath, (queue) => {
        const ids = name ? [name] : queue.crawlIds();
        if (name && !queue.state(name)) throw new BadInputError(`no crawl ${name} in ${storePath}`, `crawls there: ${queue.crawlIds().join(', ') || 'none'}`);
        const rows = ids.map((id) => ({ progress: queue.progress(id)!, failures: queue.failures(id) }));
        if (opts.json) console.log(JSON.stringify(rows, null, 2));
        else if (rows.length === 0) console.log(`no crawls in ${storePath}`);
        else for (const r of rows) {
          console.log(M.formatProgress(r.progress));
          for (const f of r.failures) console.log(`  failed ${f.jobId} after ${f.attempts} attempt(s): ${f.error}`);
        }
      });
    });

  const setState = (verb: 'pause' | 'resume' | 'cancel', state: CrawlState, description: string) => {
    storeOption(crawl.command(verb).description(description).argument('<name>', 'the crawl (its name)'))
      .addOption(opt.out('where the default store is', DEFAULT_OUT))
      .addOption(opt.json())
      .action(async (name: string, opts: { store?: string; out: string; json?: boolean }) => {
      await load();
        const storePath = storePathOf(opts);
        withQueue(storePath, (queue) => {
          if (!queue.setState(name, state)) throw new BadInputError(`no crawl ${name} in ${storePath}`, `crawls there: ${queue.crawlIds().join(', ') || 'none'}`);
          const p = queue.progress(name)!;
          console.log(opts.json ? JSON.stringify(p) : M.formatProgress(p));
        });
      });
  };
  setState('pause', 'paused', 'pause a crawl: no new job starts (running ones finish); resume continues it');
  setState('resume', 'active', 'resume a paused crawl');
  setState('cancel', 'cancelled', 'cancel a crawl: queued jobs are cancelled, running ones stop (what they made is removed)');

  storeOption(program.command('worker')
    .description('take the crawl jobs of a region from the queue and run them, several at once, until stopped; fires scheduled crawls'))
    .addOption(opt.regions(['local']))
    .addOption(opt.out('where run directories (<out>/<crawl>/) and the default store go', DEFAULT_OUT))
    .addOption(opt.count('--concurrency <n>', 'jobs at once', 1, 16, 1))
    .option('--until-idle', 'return once no job of these regions is left (instead of waiting for more)')
    .addOption(opt.json())
    .action(async (opts: { region: string[]; store?: string; out: string; concurrency: number; untilIdle?: boolean; json?: boolean }, cmd: Command) => {
      await load();
      requireRoot('worker');
      const storePath = storePathOf(opts);
      const say = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(say.info);
      const store = M.openStore(storePath);
      try {
        const queue = new M.CrawlQueue(store);
        say.info(`worker for ${opts.region.join(', ')} on ${storePath}, ${opts.concurrency} at once`);
        const summary = await M.runWorker({ queue, regions: opts.region, concurrency: opts.concurrency, outDir: opts.out, signal: interruptSignal(),
          untilIdle: opts.untilIdle === true, onEvent: eventLine(say), progress: say.detail });
        console.log(opts.json ? JSON.stringify(summary) : `worker: ${summary.done} done, ${summary.failed} failed, ${summary.retried} retried, ${summary.released} given back`);
      } finally {
        store.close();
      }
    });
}
