/**
 * Classifier benchmark entry point, usable before (and after) the commands are wired into the
 * main CLI: the same commander registrations as `ccbrowse lab train|bench`, `trace`, `classify`.
 *
 *   npx tsx bench/classifier.ts lab train --lab train --runs 2
 *   npx tsx bench/classifier.ts lab bench --lab train --runs 1
 *   npx tsx bench/classifier.ts lab bench --from-dataset
 */
import { Command } from 'commander';
import { registerAnalysis } from '../src/cli/train.js';
import { CcbError } from '../src/util/errors.js';

const program = new Command().name('ccbrowse-bench');
const lab = program.command('lab');
registerAnalysis(program, lab);
try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.stderr.write(`${e instanceof CcbError ? e.message : (e as Error).stack}\n`);
  process.exitCode = 1;
}
