/**
 * Add fresh lab rounds to a trained model as further groups of its labels, keeping everything
 * else (its own classes, rule classifiers, envelope and confidence calibration), and show what
 * that does on test rounds no choice here saw (issue 16).
 *
 *   npx tsx src/train/scripts/add-lab-rounds.ts --model models/ccbrowse-model.json \
 *       --train ROUND.json[,ROUND.json] [--suffix .quiet] [--need-reordering SHARE] [--need-outside DISTANCE [--also-unheld]] [--test ROUND.json,...] [--out OUT]
 *
 * --need-reordering: the added groups judge only flows that measured at least SHARE of their
 * packets reordered (rounds taken on a reordered path: labs/grid-reorder.ts).
 * --need-outside: the added groups judge only flows that lie further than DISTANCE (1: outside)
 * from the conditions the base model was trained under (envelope.ts; rounds at other rates).
 * --also-unheld: with --need-outside, the groups also judge a nearer flow no other group's shapes
 * hold (lossBased.ts groupsNeedOutside `unheld`; the shipped model's `.beyond` groups, session 56).
 *
 * WHY: the shipped model's learned classes come from lab rounds taken while the lab's own
 * ground-truth samplers kept both cores busy in the kernel (fixed since: docs/benchmarks/speed.md
 * "A lab at rest"), and those rounds are gone. On a quiet host the same lab's flows come out
 * differently enough that several controllers fall outside their classes; classes trained on
 * quiet-host rounds sit beside the old ones (classify/splice.ts), so the model reads both.
 * Each test round is judged by the base and the extended model the way users get verdicts
 * (calibrated, both profiles fused; train/bench.ts classifyEntries). Without --out nothing is written.
 */
import { loadModel, saveModel, type Model } from '../../classify/index.js';
import { requireFlag, takeFlag, takeList } from '../../util/script-args.js';
import { classifyEntries } from '../bench.js';
import { loadDatasets } from '../dataset.js';
import { takeAlsoUnheld, takeNeedOutside, withGroupsFrom } from '../add-groups.js';
import { TALLY_HEAD, tally, tallyRow } from '../conditions-bench.js';

const USAGE = 'src/train/scripts/add-lab-rounds.ts';
const args = process.argv.slice(2);
const modelPath = requireFlag(args, '--model', USAGE);
const train = requireFlag(args, '--train', USAGE).split(',');
const suffix = takeFlag(args, '--suffix') ?? '.quiet';
const tests = takeList(args, '--test');
const out = takeFlag(args, '--out');
const needFlag = takeFlag(args, '--need-reordering');
const needReordering = needFlag === undefined ? undefined : Number(needFlag);
if (needFlag !== undefined && !(/^\d*\.?\d+$/.test(needFlag) && needReordering! <= 1)) throw new Error(`--need-reordering takes a share of packets between 0 and 1 (0.002 is 0.2%), not '${needFlag}'`);

const needOutside = takeNeedOutside(args);
const unheld = takeAlsoUnheld(args, needOutside);

const base = loadModel(modelPath);
// A trace taken through a bottleneck the host held back is not trained on (as extend-model.ts).
const all = loadDatasets(train.join(','));
const { model: extended, trained, disturbed } = withGroupsFrom(base, all, { source: train.join(','), suffix, note: `with lab rounds ${train.join(', ')} as ${suffix} groups${needReordering === undefined ? '' : ` for flows reordered ${needReordering} or more`}${needOutside === undefined ? '' : ` for flows further than ${needOutside} from its trained conditions${unheld ? ' or held by no other group' : ''}`}`, needReordering, needOutside, unheld });
console.log(`trained on ${trained} traces (${disturbed} disturbed left out; ${[...new Set(all.map((e) => e.label))].length} labels) from ${train.join(', ')}`);

const judgeWith = (m: Model, file: string) => classifyEntries(loadDatasets(file), m);
if (tests.length) {
  console.log(`\n${TALLY_HEAD.replace('| |', '| test round / model |')}`);
  for (const file of tests) {
    for (const [name, m] of [['base', base], ['extended', extended]] as const) {
      const r = judgeWith(m, file);
      console.log(tallyRow(`${file} / ${name}, both profiles fused`, tally(r.measurements)));
      console.log(tallyRow(`${file} / ${name}, single profile`, tally(r.traces)));
    }
  }
}
if (out) {
  saveModel(extended, out);
  console.log(`\n-> ${out}: ${extended.classes.length} labels`);
}
