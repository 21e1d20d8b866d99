import { Option, type Command } from 'commander';
import { opt } from './options.js';
import { reporterFor } from './output.js';
import { join } from 'node:path';
import { BadInputError } from '../util/errors.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * The report reads SQLite: a Postgres crawl store is exported into a temporary store file
 * first (src/crawl/postgres/export.ts), removed once the report is built.
 */
async function sqliteStoreOf(store: string | undefined): Promise<{ path: string; remove: () => void } | undefined> {
  if (store === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(store)) return { path: store, remove: () => {} };
  const { exportPostgresStore } = await import('../crawl/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'ccb-report-pg-'));
  const path = join(dir, 'store.sqlite');
  await exportPostgresStore(store, path);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('build the static report (d3 bundled, works from file://): CCA landscape, site x asset matrix per region, site pages with traces, lab accuracy, changes over time, downloads')
    .argument('[runs...]', 'run directories (instead of --store)')
    .option('--store <file|url>', 'results store to read: an SQLite file, or a crawl store on postgres:// (copied into a temporary SQLite store first)')
    .addOption(opt.out('output directory'))
    .option('--single-file', 'everything in one HTML file')
    .addOption(new Option('--bench <file>', 'lab benchmark result file to show (lab bench --out); repeat for several')
      .argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]))
    .addOption(opt.json())
    .action(async (runs: string[], opts: { store?: string; out: string; singleFile?: boolean; bench?: string[]; json?: boolean }, cmd: Command) => {
      if (!opts.store && runs.length === 0) throw new BadInputError('nothing to report', 'give --store FILE or run directories');
      const say = reporterFor(cmd);
      const { buildReport } = await import('../report/index.js');
      const store = await sqliteStoreOf(opts.store);
      const { files, stats } = await buildReport({
        store: store?.path, runs: runs.length ? runs : undefined, out: opts.out, singleFile: opts.singleFile, lab: opts.bench,
        onProgress: (phase, done, total) => say.progress(`${phase} ${done}/${total}`),
      }).finally(() => store?.remove());
      say.done();
      console.log(opts.json ? JSON.stringify(stats, null, 2)
        : `report: ${stats.sites} site(s), ${stats.runs} run(s), ${stats.pages} page(s) in ${(stats.ms.total / 1000).toFixed(1)} s -> ${join(opts.out, opts.singleFile ? "report.html" : "index.html")} (${files.length} files)`);
      for (const w of stats.warnings) process.stderr.write(`warning: ${w}\n`);
    });
}
