/**
 * The ccbrowse command line: parse, call, print. Each command lives in its own module;
 * errors a user can act on print their fix and exit with a meaningful code.
 */
import { Command, CommanderError } from 'commander';
import { CcbError, ExitCode } from '../util/errors.js';
import { reap } from '../net/reaper.js';
import { registerDoctor } from './doctor.js';
import { registerShaper } from './shaper.js';
import { registerLab } from './lab.js';
import { registerProbe } from './probe.js';
import { registerRun } from './run.js';
import { registerAnalysis } from './train.js';
import { registerReport } from './report.js';

const program = new Command();
program
  .name('ccbrowse')
  .description('Which congestion-control algorithm does a service use for each asset it sends to a real browser?')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();

registerDoctor(program);
registerShaper(program);
registerLab(program);
registerProbe(program);
registerRun(program);
registerAnalysis(program);
registerReport(program);

program
  .command('reap')
  .description('remove what runs killed without cleanup left behind (namespaces, rules, processes); runs automatically at each start')
  .option('--json', 'print the report as JSON')
  .action(async (opts: { json?: boolean }) => {
    const r = await reap();
    if (opts.json) console.log(JSON.stringify(r, null, 2));
    else if (r.ownersReaped.length === 0) console.log('nothing to reap');
    else console.log(`reaped ${r.ownersReaped.length} dead run(s): ${r.resourcesRemoved.join(', ')}`);
  });

export async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.badInput;
    }
    if (err instanceof CcbError) {
      process.stderr.write(`ccbrowse: ${err.message}\n`);
      if (err.fix) process.stderr.write(`fix: ${err.fix}\n`);
      return err.exitCode;
    }
    process.stderr.write(`ccbrowse: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return ExitCode.internal;
  }
}

process.exitCode = await main(process.argv);
