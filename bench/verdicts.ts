/**
 * Every verdict a model gives on stored lab datasets, one line each: the fused measurement (`M`)
 * and each profile's trace (`T`). Run it under two versions of the code (a git worktree of the
 * older one) or with two models, and `diff` the listings: what a change moved, and nothing else.
 *
 *   npx tsx bench/verdicts.ts [--model models/ccbrowse-model.json] DATASET.json[.gz] ... > verdicts.txt
 */
import { loadModel } from '../src/classify/index.js';
import { classifyEntries } from '../src/train/bench.js';
import { loadDataset } from '../src/train/dataset.js';
import { takeFlag } from '../src/util/script-args.js';

const args = process.argv.slice(2);
const model = loadModel(takeFlag(args, '--model') ?? 'models/ccbrowse-model.json');
if (args.length === 0) throw new Error('usage: npx tsx bench/verdicts.ts [--model M] DATASET.json[.gz] ...');

function datasetEntries(file: string) {
  try {
    return loadDataset(file).entries;
  } catch (e) {
    // A schema error's first issue says more than its JSON dump.
    const issue = (e as { issues?: Array<{ path: unknown[]; message: string }> }).issues?.[0];
    const why = issue ? `${issue.path.join('.') || 'top level'}: ${issue.message}` : (e as Error).message;
    throw new Error(`${file} is not a lab dataset (a grid's lab-*.json record?): ${why}`);
  }
}

for (const file of args) {
  const name = file.split('/').slice(-2).join('/');
  const { measurements, traces } = classifyEntries(datasetEntries(file), model);
  for (const m of measurements) console.log(`M ${name} ${m.origin} ${m.region} ${m.rep} ${m.truth} -> ${m.predicted} ${m.confidence.toFixed(2)}`);
  for (const t of traces) console.log(`T ${name} ${t.origin} ${t.profile} ${t.region} ${t.rep} ${t.truth} -> ${t.predicted} ${t.confidence.toFixed(2)}`);
}
