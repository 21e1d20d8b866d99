/**
 * `ccbrowse crawl run|status|pause|resume|cancel|export` and `ccbrowse worker` (issue 18): a
 * crawl file becomes jobs in the queue (the results store's SQLite file, or PostgreSQL +
 * pg-boss for workers on several machines), workers run them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { BadInputError, ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import type { CrawlBackend, CrawlState, WorkerEvent, WorkerOptions } from '../crawl/index.js';

// The crawl modules and the loaders are imported when a crawl command runs, never when the
// command tree is built (`--help` loads none of them: tests/unit/cli/startup.test.ts); the
// store behind them (SQLite, or pg + pg-boss) only when it is opened (src/crawl/open.ts).
let M!: typeof import('../crawl/index.js') & Pick<typeof import('../shaper/profile.js'), 'loadProfile'> & Pick<typeof import('../scenario/load.js'), 'loadScenario'>;
async function load(): Promise<void> {
  if (M) return;
  const [crawl, profile, scenario] = await Promise.all([import('../crawl/index.js'), import('../shaper/profile.js'), import('../scenario/load.js')]);
  M = { ...crawl, loadProfile: profile.loadProfile, loadScenario: scenario.loadScenario };
}
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { opt } from './options.js';
import { reporterFor, type Reporter } from './output.js';

const DEFAULT_OUT = 'runs';
const storeOption = (c: Command) => c.option('--store <file|url>', 'results store holding the crawl queue: an SQLite file (default <out>/ccbrowse.sqlite) or postgres://user@host/db (workers on several machines)');

function storePathOf(opts: { store?: string; out?: string }): string {
  return opts.store ?? join(opts.out ?? DEFAULT_OUT, 'ccbrowse.sqlite');
}

/** crawl run and worker create the store (and its directory: a fresh --out is fine); the other commands never do. */
async function openOrCreate(path: string): Promise<CrawlBackend> {
  if (!M.isPostgresUrl(path)) mkdirSync(dirname(path), { recursive: true });
  return M.openCrawlBackend(path);
}

async function withQueue<T>(path: string, f: (q: CrawlBackend) => Promise<T>): Promise<T> {
  // status/pause/resume/cancel never create a store file: a wrong path is said as such.
  if (!M.isPostgresUrl(path) && !existsSync(path)) throw new BadInputError(`no results store ${path}`, 'pass the --store (or --out) the crawl was run with');
  const queue = await M.openCrawlBackend(path);
  try { return await f(queue); } finally { await queue.close(); }
}

/** What a worker says about each job, on stderr. */
function eventLine(say: Reporter): (e: WorkerEvent) => void {
  return (e) => {
    if (e.type === 'round') { say.info(`crawl ${e.crawlId}: schedule fired, ${e.jobs} jobs queued`); return; }
    if (e.type === 'jobs-at-once') { const c = e.change; say.info(`${c.to < c.from ? 'fewer' : 'more'} jobs at once, ${c.from} -> ${c.to}: ${c.why}`); return; }
    const j = e.job;
    const what = `${j.spec.mode} ${j.spec.url ?? j.spec.scenarioFile} [${j.region} #${j.repeatIndex}]`;
    if (e.type === 'claimed') say.detail(`start ${what} (attempt ${j.attempt}/${j.maxAttempts})`);
    else if (e.type === 'done') say.info(`done ${what} -> ${e.result.dirs.join(', ')}`);
    else if (e.type === 'retry') say.info(`retry ${what}: ${e.reason}`);
    else if (e.type === 'failed') say.info(`FAILED ${what}: ${e.reason}`);
    else say.info(`${e.type} ${what}`);
  };
}

/**
 * The watcher probe jobs use when their crawl asks to stop when stable: the shipped model and
 * the default rule at the model's minimum answer, loaded before any job starts (a crawl that
 * never asks loads nothing).
 */
async function watchFor(stopWhenStable: boolean): Promise<WorkerOptions['watchProbe']> {
  if (!stopWhenStable) return undefined;
  const { stopRuleFrom } = await import('./stop-rule.js');
  const { probeWatch } = await import('../train/stop-when-stable.js');
  const rule = (await stopRuleFrom({ stopWhenStable: true }))!;
  return (target, profile) => probeWatch(rule, target, profile);
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
    .addOption(opt.count('--concurrency <n>', "most jobs at once (default: the crawl's); fewer while the host disturbs the jobs' traces", 1, 16))
    .option('--fixed-concurrency', 'keep --concurrency jobs at once even when the host disturbs the traces')
    .option('--enqueue-only', 'queue the jobs and return (workers run them: `ccbrowse worker`)')
    .addOption(opt.json())
    .action(async (file: string, opts: { store?: string; out: string; concurrency?: number; fixedConcurrency?: boolean; enqueueOnly?: boolean; json?: boolean }, cmd: Command) => {
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
      const queue = await openOrCreate(storePath);
      try {
        const state = await queue.state(def.name);
        if (state === 'cancelled') throw new BadInputError(`crawl ${def.name} was cancelled`, 'give the crawl another name to start it afresh');
        const q = await queue.enqueue(loaded);
        say.info(`crawl ${def.name}: ${q.created ? 'created' : 'resumed'}, ${q.jobsAdded} job(s) queued (${loaded.targets.length} targets x ${def.regions.length} regions x ${def.repeats} repeats) in ${queue.where}`);
        if (!opts.enqueueOnly) {
          if (state === 'paused') say.info(`crawl ${def.name} is paused: 'ccbrowse crawl resume ${def.name}' first`);
          await reapLeftovers(say.info);
          const signal = interruptSignal();
          const ticker = setInterval(() => { void queue.progress(def.name).then((p) => { if (p) say.progress(M.formatProgress(p)); }, () => {}); }, 1000);
          try {
            await M.runWorker({ queue, regions: def.regions, concurrency: opts.concurrency ?? def.concurrency, fixedConcurrency: opts.fixedConcurrency ?? def.fixedConcurrency, outDir: opts.out, signal,
              crawlId: def.name, watchProbe: await watchFor(def.stopWhenStable), untilIdle: true, onEvent: eventLine(say), progress: say.detail });
          } finally {
            clearInterval(ticker);
            say.done();
          }
        }
        const p = (await queue.progress(def.name))!;
        const failures = await queue.failures(def.name);
        if (opts.json) console.log(JSON.stringify({ store: queue.where, progress: p, failures }, null, 2));
        else {
          console.log(M.formatProgress(p));
          for (const f of failures) console.log(`failed ${f.jobId} after ${f.attempts} attempt(s): ${f.error}`);
        }
        process.exitCode = p.failed > 0 || (!opts.enqueueOnly && p.left + p.running > 0) ? ExitCode.checkFailed : ExitCode.ok;
      } finally {
        await queue.close();
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
      await withQueue(storePath, async (queue) => {
        const ids = name ? [name] : await queue.crawlIds();
        if (name && !(await queue.state(name))) throw new BadInputError(`no crawl ${name} in ${queue.where}`, `crawls there: ${(await queue.crawlIds()).join(', ') || 'none'}`);
        const rows = [];
        for (const id of ids) rows.push({ progress: (await queue.progress(id))!, failures: await queue.failures(id) });
        if (opts.json) console.log(JSON.stringify(rows, null, 2));
        else if (rows.length === 0) console.log(`no crawls in ${queue.where}`);
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
        await withQueue(storePath, async (queue) => {
          if (!(await queue.setState(name, state))) throw new BadInputError(`no crawl ${name} in ${queue.where}`, `crawls there: ${(await queue.crawlIds()).join(', ') || 'none'}`);
          const p = (await queue.progress(name))!;
          console.log(opts.json ? JSON.stringify(p) : M.formatProgress(p));
        });
      });
  };
  setState('pause', 'paused', 'pause a crawl: no new job starts (running ones finish); resume continues it');
  setState('resume', 'active', 'resume a paused crawl');
  setState('cancel', 'cancelled', 'cancel a crawl: queued jobs are cancelled, running ones stop (what they made is removed)');

  storeOption(crawl.command('score')
    .description('census accuracy of a probe crawl against its lab configuration: each site x region cell right, Unknown or confidently wrong, per region and controller, beside the per-flow accuracy of the same flows')
    .argument('<file>', 'the crawl file (its targets and regions are the cells), e.g. crawls/synthetic-internet.ts'))
    .addOption(opt.out('where the default store is', DEFAULT_OUT))
    .option('--config <file>', 'lab configuration the crawl measured (the truth), e.g. labs/synthetic-internet.ts', 'labs/synthetic-internet.ts')
    .option('--model <file>', 'classifier model (default models/ccbrowse-model.json)')
    .addOption(opt.json())
    .action(async (file: string, opts: { store?: string; out: string; config: string; model?: string; json?: boolean }) => {
      await load();
      const loaded = await M.loadCrawl(file);
      const [{ loadLabConfig }, { expectedCensus, regionDependentHosts }, { loadModel }, score, verdicts, { repoRoot }, { resolve }] = await Promise.all([
        import('../lab/config.js'), import('../lab/census-truth.js'), import('../classify/index.js'), import('../train/census-score.js'),
        import('../train/census-verdicts.js'), import('../util/paths.js'), import('node:path')]);
      const cfg = await loadLabConfig(opts.config);
      const model = loadModel(opts.model ?? resolve(repoRoot(), 'models', 'ccbrowse-model.json'));
      const name = loaded.definition.name;
      const { results, progress } = await withQueue(storePathOf(opts), async (queue) => {
        const p = await queue.progress(name);
        if (!p) throw new BadInputError(`no crawl ${name} in ${queue.where}`, `crawls there: ${(await queue.crawlIds()).join(', ') || 'none'}`);
        return { results: await queue.results(name), progress: p };
      });
      const observed = await verdicts.observeCrawl(results, model);
      const expected = expectedCensus(cfg);
      const hosts = [...new Set(loaded.targets.flatMap((t) => (t.url ? [new URL(t.url).hostname] : [])))];
      const s = score.scoreCensus(expected, observed, { hosts, regions: loaded.definition.regions, minAnswer: model.calibration?.minAnswer ?? 0, regionDependentHosts: regionDependentHosts(expected) });
      if (opts.json) console.log(JSON.stringify({ crawl: name, lab: cfg.name, progress, score: s }, null, 2));
      else console.log([M.formatProgress(progress), `against lab ${cfg.name} (${opts.config}), minimum answer ${s.minAnswer}`, '', ...score.censusTable(s)].join('\n'));
    });

  crawl.command('export')
    .description('copy a crawl store on PostgreSQL (one crawl or all) into an SQLite results store, which the report and analyze read')
    .argument('[name]', 'one crawl (default: all)')
    .requiredOption('--store <url>', 'the PostgreSQL store: postgres://user@host/db')
    .requiredOption('--to <file>', 'SQLite results store to write (created, or brought up to date)')
    .addOption(opt.json())
    .action(async (name: string | undefined, opts: { store: string; to: string; json?: boolean }) => {
      await load();
      if (!M.isPostgresUrl(opts.store)) throw new BadInputError(`--store ${opts.store} is not a postgres:// URL`, 'an SQLite store needs no export: give it to the report as it is');
      const n = await M.exportPostgresStore(opts.store, opts.to, name);
      console.log(opts.json ? JSON.stringify({ to: opts.to, ...n }) : `${opts.to}: ${n.crawls} crawl(s), ${n.jobs} jobs, ${n.results} results, ${n.runs} runs indexed`);
    });

  storeOption(program.command('worker')
    .description('take the crawl jobs of a region from the queue and run them, several at once, until stopped; fires scheduled crawls'))
    .addOption(opt.regions(['local']))
    .addOption(opt.out('where run directories (<out>/<crawl>/) and the default store go', DEFAULT_OUT))
    .addOption(opt.count('--concurrency <n>', "most jobs at once; fewer while the host disturbs the jobs' traces", 1, 16, 1))
    .option('--fixed-concurrency', 'keep --concurrency jobs at once even when the host disturbs the traces')
    .option('--until-idle', 'return once no job of these regions is left (instead of waiting for more)')
    .addOption(opt.count('--lease <seconds>', 'lease a running job holds, renewed every quarter of it: a worker silent this long loses its job to another', 5, 3600, 60))
    .addOption(opt.json())
    .action(async (opts: { region: string[]; store?: string; out: string; concurrency: number; fixedConcurrency?: boolean; untilIdle?: boolean; lease: number; json?: boolean }, cmd: Command) => {
      await load();
      requireRoot('worker');
      const storePath = storePathOf(opts);
      const say = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(say.info);
      const queue = await openOrCreate(storePath);
      try {
        say.info(`worker for ${opts.region.join(', ')} on ${queue.where}, ${opts.fixedConcurrency ? '' : 'up to '}${opts.concurrency} at once`);
        // Any crawl in the queue may ask its probes to stop when stable: the model is loaded up front.
        const summary = await M.runWorker({ queue, regions: opts.region, concurrency: opts.concurrency, fixedConcurrency: opts.fixedConcurrency, outDir: opts.out, signal: interruptSignal(), watchProbe: await watchFor(true),
          untilIdle: opts.untilIdle === true, leaseMs: opts.lease * 1000, onEvent: eventLine(say), progress: say.detail });
        console.log(opts.json ? JSON.stringify(summary) : `worker: ${summary.done} done, ${summary.failed} failed, ${summary.retried} retried, ${summary.released} given back`);
      } finally {
        await queue.close();
      }
    });
}
