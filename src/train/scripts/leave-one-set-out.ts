/**
 * Leave one set out, for groups spliced onto a shipped model (issues 16 and 17): for each
 * dataset (a lab round, or one grid condition's dataset), the base model plus groups trained on
 * every *other* dataset judges it, as add-lab-rounds.ts would have built them. The figures are
 * what the model trained on all of them can be expected to read on a set it never saw.
 *
 *   npx tsx src/train/scripts/leave-one-set-out.ts --model BASE.json --sets A.json,B.json,... [--suffix .quiet17] [--need-outside DISTANCE [--also-unheld]]
 *
 * --need-outside: the groups judge only flows further than DISTANCE from the base's trained
 * conditions, as add-lab-rounds.ts --need-outside builds them (session 55: rounds at other rates);
 * --also-unheld as add-lab-rounds.ts.
 *
 * WHY: a held-out round of 15 measurements gives each class 3; leaving each of seven rounds out
 * in turn gives 21 per class from models trained on six, with no set ever judged by a model that
 * saw it. Prints, per set, the base and the extended model's tallies (fused, single profile),
 * then the extended models' pooled confusion per true label, and every wrong answer of both.
 * The base must not have learned from any of the sets (it refuses: every fold would leak).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadModel } from '../../classify/index.js';
import { requireFlag, takeFlag, takeList } from '../../util/script-args.js';
import { classifyEntries } from '../bench.js';
import { loadDatasets } from '../dataset.js';
import { takeAlsoUnheld, takeNeedOutside, withGroupsFrom } from '../add-groups.js';
import { TALLY_HEAD, tally, tallyRow } from '../conditions-bench.js';

const USAGE = 'src/train/scripts/leave-one-set-out.ts';
const args = process.argv.slice(2);
const fail = (why: string): never => {
  console.error(`${why} (see the header of ${USAGE})`);
  process.exit(2);
};
const modelPath = requireFlag(args, '--model', USAGE);
// One spelling per file: the same set named twice would be trained on while judged.
const sets = [...new Set(takeList(args, '--sets').map((f) => resolve(f.trim())))];
const suffix = takeFlag(args, '--suffix') ?? '.held';
const needOutside = takeNeedOutside(args);
const unheld = takeAlsoUnheld(args, needOutside);
if (sets.length < 2) fail('--sets needs at least two different datasets (one is left out, the others train)');
for (const f of sets) if (!existsSync(f)) fail(`no such dataset: ${f}`);
const base = loadModel(modelPath);
// A base that already learned from a set would judge it having seen it: every fold would leak.
const seen = new Set(base.trainedOn.source.split(/[\s,+]+/).filter(Boolean).map((f) => resolve(f)));
const leaked = sets.filter((f) => seen.has(f));
if (leaked.length) fail(`the base model ${modelPath} was trained on ${leaked.join(', ')} already: give the model from before those groups`);
const lossClasses = (base.classifiers['loss-based'] as { gnb?: { classes: Array<{ label: string }> } } | undefined)?.gnb?.classes ?? [];
if (lossClasses.some((c) => c.label.endsWith(suffix))) fail(`the base model already has groups ending in ${suffix}: choose another --suffix or the model from before them`);

type Confusion = Map<string, Map<string, number>>;
const count = (c: Confusion, truth: string, predicted: string) => {
  const row = c.get(truth) ?? new Map<string, number>();
  row.set(predicted, (row.get(predicted) ?? 0) + 1);
  c.set(truth, row);
};
const fused: Confusion = new Map();
const single: Confusion = new Map();
const wrongs: string[] = [];
const short = (f: string) => f.replace(`${process.cwd()}/`, '').replace(/^build\//, '').replace(/\/dataset\.json$/, '').replace(/\.json$/, '');
const datasets = new Map(sets.map((f) => [f, loadDatasets(f)]));

console.log(TALLY_HEAD.replace('| |', '| left out / model |'));
for (const left of sets) {
  const others = sets.filter((s) => s !== left);
  // A trace taken through a bottleneck the host held back is not trained on (as add-lab-rounds.ts).
  const all = others.flatMap((f) => datasets.get(f)!);
  const { model: extended, trained, disturbed } = withGroupsFrom(base, all, { source: others.join(','), suffix, note: `leave ${left} out`, needOutside, unheld });
  console.log(`| ${short(left)} left out: trained on ${trained} traces of the others (${disturbed} disturbed left out) | | | | | |`);
  for (const [name, m] of [['base', base], ['base + the others', extended]] as const) {
    const r = classifyEntries(datasets.get(left)!, m);
    console.log(tallyRow(`${short(left)} / ${name}, fused`, tally(r.measurements)));
    console.log(tallyRow(`${short(left)} / ${name}, single profile`, tally(r.traces)));
    for (const x of r.measurements) {
      if (m === extended) count(fused, x.truth, x.predicted);
      if (x.predicted !== x.truth && x.predicted !== 'Unknown') wrongs.push(`${short(left)} / ${name}: ${x.truth} #${x.rep} -> ${x.predicted} ${x.confidence.toFixed(2)} (fused)`);
    }
    for (const x of r.traces) {
      if (m === extended) count(single, x.truth, x.predicted);
      if (x.predicted !== x.truth && x.predicted !== 'Unknown') wrongs.push(`${short(left)} / ${name}: ${x.truth} ${x.profile} #${x.rep} -> ${x.predicted} ${x.confidence.toFixed(2)}`);
    }
  }
}
for (const [name, c] of [['fused', fused], ['single profile', single]] as const) {
  console.log(`\nbase + the others, ${name}, pooled over the sets left out:`);
  for (const [truth, row] of [...c].sort(([a], [b]) => a.localeCompare(b))) {
    const n = [...row.values()].reduce((a, b) => a + b, 0);
    const rest = [...row].filter(([p]) => p !== truth).map(([p, k]) => `${p} ${k}`).join(', ');
    console.log(`  ${truth}: ${row.get(truth) ?? 0}/${n}${rest ? ` (${rest})` : ''}`);
  }
}
console.log(wrongs.length ? `\nwrong answers:\n  ${wrongs.join('\n  ')}` : '\nno wrong answer');
