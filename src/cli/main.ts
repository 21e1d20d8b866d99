/**
 * The ccbrowse command line: parse, call, print. Each command lives in its own module and
 * takes its options from options.ts (docs/cli.md); errors a user can act on print their fix
 * and exit with a meaningful code. SIGINT/SIGTERM abort the command's work through one
 * AbortSignal (util/interrupt.ts); the process exits only after every cleanup stack is undone.
 */
import { CommanderError } from 'commander';
import { CcbError, ExitCode } from '../util/errors.js';
import { interruptReason, interruptSignal, isInterruption } from '../util/interrupt.js';
import { liveStacks } from '../net/cleanup.js';
import { buildProgram } from './program.js';

const program = buildProgram();

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
