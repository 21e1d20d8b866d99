/**
 * Every verdict a model gives on stored lab datasets, one line each: the fused measurement (`M`)
 * and each profile's trace (`T`). Run it under two versions of the code (a git worktree of the
 * older one) or with two models, and `diff` the listings: what a change moved, and nothing else.
 *
 *   npx tsx bench/verdicts.ts [--model models/ccbrowse-model.json] DATASET.json[.gz] ... > verdicts.txt
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadModel } from '../src/classify/index.js';
import { classifyEntries } from '../src/train/bench.js';
import type { DatasetEntry } from '../src/train/dataset.js';
import { takeFlag } from '../src/util/script-args.js';

const args = process.argv.slice(2);
const model = loadModel(takeFlag(args, '--model') ?? 'models/ccbrowse-model.json');
if (args.length === 0) throw new Error('usage: npx tsx bench/verdicts.ts [--model M] DATASET.json[.gz] ...');

for (const file of args) {
  const raw = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  // Lab datasets hold `entries`; other files in a dataset directory (a grid's lab record) hold none.
  const entries = (JSON.parse(text) as { entries?: DatasetEntry[] }).entries ?? [];
  const name = file.split('/').slice(-2).join('/');
  const { measurements, traces } = classifyEntries(entries, model);
  for (const m of measurements) console.log(`M ${name} ${m.origin} ${m.region} ${m.rep} ${m.truth} -> ${m.predicted} ${m.confidence.toFixed(2)}`);
  for (const t of traces) console.log(`T ${name} ${t.origin} ${t.profile} ${t.region} ${t.rep} ${t.truth} -> ${t.predicted} ${t.confidence.toFixed(2)}`);
}
