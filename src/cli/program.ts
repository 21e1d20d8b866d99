/**
 * The ccbrowse command tree: every command registered from its module, each taking its
 * options from options.ts. Built here without running anything, so the CLI contract test
 * (tests/unit/cli/contract.test.ts) can walk it. Registration is light: each command's
 * action imports what it uses when it runs, so `--help` loads commander and this tree only
 * (tests/unit/cli/startup.test.ts holds it; bench/startup.ts measures it).
 */
import { Command } from 'commander';
import { reapAll } from './common.js';
import { registerDoctor } from './doctor.js';
import { registerShaper } from './shaper.js';
import { registerLab } from './lab.js';
import { registerProbe } from './probe.js';
import { registerRun } from './run.js';
import { registerAnalysis } from './train.js';
import { registerBatch } from './analysis.js';
import { registerReport } from './report.js';
import { registerCrawl } from './crawl.js';
import { registerCheck } from './check.js';
import { opt } from './options.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('ccbrowse')
    .description('Which congestion-control algorithm does a service use for each asset it sends to a real browser?')
    .version('0.1.0')
    .option('-q, --quiet', 'no progress on stderr (results and errors only)')
    .option('-v, --verbose', 'more detail on stderr')
    .showHelpAfterError()
    .exitOverride();

  registerDoctor(program);
  registerShaper(program);
  registerLab(program);
  registerProbe(program);
  registerRun(program);
  registerAnalysis(program);
  registerBatch(program);
  registerReport(program);
  registerCrawl(program);
  registerCheck(program);

  program
    .command('reap')
    .description('remove what runs killed without cleanup left behind (namespaces, rules, processes); runs automatically at each start')
    .addOption(opt.json())
    .action(async (opts: { json?: boolean }) => {
      const r = await reapAll();
      if (opts.json) console.log(JSON.stringify(r, null, 2));
      else if (r.ownersReaped.length === 0) console.log('nothing to reap');
      else console.log(`reaped ${r.ownersReaped.length} dead run(s): ${r.resourcesRemoved.join(', ')}`);
    });
  return program;
}
