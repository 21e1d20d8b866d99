/**
 * The ccbrowse command line: parse, call, print. Each command lives in its own module and
 * takes its options from options.ts (docs/cli.md); errors a user can act on print their fix
 * and exit with a meaningful code. SIGINT/SIGTERM abort the command's work through one
 * AbortSignal (util/interrupt.ts); the process exits only after every cleanup stack is undone.
 */
import { Command, CommanderError } from 'commander';
import { CcbError, ExitCode } from '../util/errors.js';
import { interruptReason, interruptSignal, isInterruption } from '../util/interrupt.js';
import { liveStacks } from '../net/cleanup.js';
import { reap } from '../net/reaper.js';
import { opt } from './options.js';
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
registerReport(program);

program
  .command('reap')
  .description('remove what runs killed without cleanup left behind (namespaces, rules, processes); runs automatically at each start')
  .addOption(opt.json())
  .action(async (opts: { json?: boolean }) => {
    const r = await reap();
    if (opts.json) console.log(JSON.stringify(r, null, 2));
    else if (r.ownersReaped.length === 0) console.log('nothing to reap');
    else console.log(`reaped ${r.ownersReaped.length} dead run(s): ${r.resourcesRemoved.join(', ')}`);
  });

export async function main(argv: string[]): Promise<number> {
  const signal = interruptSignal();
  try {
    await program.parseAsync(argv);
    // A command that returned after an interrupt kept what it had; it still ends as interrupted.
    if (signal.aborted) return interruptReason(signal).exitCode;
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.badInput;
    }
    if (signal.aborted && (isInterruption(err) || err instanceof CcbError)) {
      process.stderr.write(`ccbrowse: ${interruptReason(signal).message}; what was gathered is kept\n`);
      return interruptReason(signal).exitCode;
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

const code = await main(process.argv);
// Every owner unwound its stack before returning; after an interrupt nothing else may keep
// the process (a browser's pipe, a timer): exit now, and only now.
if (interruptSignal().aborted && liveStacks().length === 0) process.exit(code);
process.exitCode = code;
