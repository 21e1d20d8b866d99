import type { Command } from 'commander';
import { buildReport } from '../report/index.js';
import { join } from 'node:path';
import { BadInputError } from '../util/errors.js';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('build the static report (d3 bundled, works from file://): CCA landscape, site x asset matrix per region, site pages with traces, lab accuracy, changes over time, downloads')
    .argument('[runs...]', 'run directories (instead of --store)')
    .option('--store <file>', 'results store (SQLite) to read')
    .requiredOption('--out <dir>', 'output directory')
    .option('--single-file', 'everything in one HTML file')
    .option('--lab <file...>', 'lab benchmark result files to show')
    .option('--json', 'print build statistics as JSON')
    .action(async (runs: string[], opts: { store?: string; out: string; singleFile?: boolean; lab?: string[]; json?: boolean }) => {
      if (!opts.store && runs.length === 0) throw new BadInputError('nothing to report', 'give --store FILE or run directories');
      const { files, stats } = await buildReport({
        store: opts.store, runs: runs.length ? runs : undefined, out: opts.out, singleFile: opts.singleFile, lab: opts.lab,
        onProgress: opts.json ? undefined : (phase, done, total) => process.stderr.write(`\r${phase} ${done}/${total}   `),
      });
      if (!opts.json) process.stderr.write('\n');
      console.log(opts.json ? JSON.stringify(stats, null, 2)
        : `report: ${stats.sites} site(s), ${stats.runs} run(s), ${stats.pages} page(s) in ${(stats.ms.total / 1000).toFixed(1)} s -> ${join(opts.out, opts.singleFile ? "report.html" : "index.html")} (${files.length} files)`);
      for (const w of stats.warnings) process.stderr.write(`warning: ${w}\n`);
    });
}
