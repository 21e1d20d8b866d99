/**
 * Extend a trained model with classes learned on the conditions grid (and on other labelled
 * datasets), keeping its own classes, and calibrate the result on conditions it never saw
 * (issue 16; issue 17's controllers ride along as `--always` datasets).
 *
 *   npx tsx src/train/scripts/extend-model.ts --model models/ccbrowse-model.json \
 *       --grid build/grid/g1[,DIR...] [--always DATASET,...] [--skip id,...] \
 *       [--profiles video,...] [--calibration logistic] [--min-answer 0.9] [--min-answer-single 0.95] [--loco-out FILE] --out OUT
 *
 * The base model's learned classes stay as they are; classes trained on the grid join them as
 * further groups of their labels (`CUBIC@tcp-video.grid`, classify/splice.ts), so the base keeps
 * naming what it named (the committed regression set) while the grid adds the profiles, paths
 * and senders it saw. Disturbed traces (the measuring host held the bottleneck back) are not
 * trained on. The confidence calibration comes from leaving one grid condition out: for each
 * condition, a model extended without it judges it; the maps are fitted on those held-out
 * verdicts, and the honest figures (each condition calibrated by maps fitted on the others) are
 * printed before the model is written. `--profiles` trains grid classes of those profiles only
 * (the rest of the grid is still judged, by the base model's classes).
 */
import { writeFileSync } from 'node:fs';
import { loadModel, saveModel, type Model } from '../../classify/index.js';
import { requireFlag, takeFlag, takeList } from '../../util/script-args.js';
import { disturbedReason } from '../../classify/disturbance.js';
import { spliceModels } from '../../classify/splice.js';
import {
  calibratedLoco, calibration, calibrationsFrom, judge, loadGridEntries, perClassAccuracy, SeriesCache, tally, tallyTable, withMinAnswer,
  type CalibrationKind, type GridEntry, type Outcome,
} from '../conditions-bench.js';
import { trainFromEntries } from '../train.js';

const args = process.argv.slice(2);
const USAGE = 'src/train/scripts/extend-model.ts';
const flag = (name: string, dflt?: string): string => (dflt === undefined ? requireFlag(args, name, USAGE) : takeFlag(args, name) ?? dflt);
const list = (name: string): string[] => takeList(args, name);
const kind = flag('--calibration', 'logistic') as CalibrationKind;
const minAnswer = Number(flag('--min-answer', '0.9'));
const minAnswerSingle = Number(flag('--min-answer-single', '0.95'));
const GROUP_SUFFIX = '.grid';
const out = flag('--out');
const locoOut = takeFlag(args, '--loco-out');

const base = loadModel(flag('--model'));
delete base.calibration;
const cache = new SeriesCache();
const skip = new Set(list('--skip'));
const undisturbed = (e: GridEntry) => !disturbedReason(e.disturbance ?? null, e.rttSeconds);
const grid = loadGridEntries(list('--grid')).filter((e) => !skip.has(e.conditionId));
const alwaysFiles = list('--always');
const always = alwaysFiles.length ? loadGridEntries(alwaysFiles) : [];
const profiles = list('--profiles');
const trainable = (e: GridEntry) => undisturbed(e) && (profiles.length === 0 || profiles.includes(e.profile) || always.includes(e));
const dropped = [...grid, ...always].filter((e) => !undisturbed(e)).length;
console.log(`grid: ${grid.length} traces of ${new Set(grid.map((e) => e.conditionId)).size} conditions; always trained: ${always.length}; disturbed, not trained on: ${dropped}`);

const extend = (train: GridEntry[], source: string): Model =>
  spliceModels(base, trainFromEntries(train.filter(trainable), { source, seriesOf: (e) => cache.of(e as GridEntry), pipeline: base.pipeline }), { groupSuffix: GROUP_SUFFIX });

const loco: Outcome[] = [];
for (const id of [...new Set(grid.map((e) => e.conditionId))].sort()) {
  const model = extend([...grid.filter((e) => e.conditionId !== id), ...always], `grid minus ${id}`);
  const os = judge(grid.filter((e) => e.conditionId === id), model, cache);
  loco.push(...os);
  const t = tally(os);
  process.stderr.write(`  ${id}: ${t.right}/${t.n} right before calibration\n`);
}
const honest = calibratedLoco(loco, kind).map((o) => withMinAnswer(o, minAnswer, minAnswerSingle));
if (locoOut) writeFileSync(locoOut, JSON.stringify(honest));
const t = tally(honest);
const cal = calibration(honest);
console.log(`leave one condition out (each calibrated on the others, min answer ${minAnswer}, one profile ${minAnswerSingle}): ${t.right}/${t.n} right (${(100 * t.right / t.n).toFixed(1)}%), ${t.unknown} Unknown, ${t.wrong} wrong, ${t.confidentWrong} confident wrong (${(100 * t.confidentWrong / t.n).toFixed(1)}%); ECE ${cal.ece.toFixed(3)} over ${cal.answered} answers\n`);
for (const protocol of ['tcp', 'quic'] as const) {
  const p = perClassAccuracy(honest, protocol);
  console.log(`${protocol.toUpperCase()}: mean per-controller accuracy ${(100 * p.mean).toFixed(1)}%; ${p.rows.map((r) => `${r.label} ${(100 * r.accuracy).toFixed(0)}%`).join(', ')}\n`);
}
console.log(tallyTable(honest, (o) => `${o.conditionId} (${o.value})`, 'condition') + '\n');
console.log('| confidence | answers | mean confidence | accuracy |\n| --- | ---: | ---: | ---: |');
for (const r of cal.rows) console.log(`| ${r.from.toFixed(1)}-${r.to.toFixed(1)} | ${r.n} | ${r.meanConfidence.toFixed(3)} | ${r.accuracy.toFixed(3)} |`);
console.log('');

const conditions = [...new Set(grid.map((e) => e.conditionId))].sort();
const model = extend([...grid, ...always], `grid ${conditions.join('+')}${always.length ? ` + ${alwaysFiles.join('+')}` : ''}`);
model.calibration = { ...calibrationsFrom(loco, `leave one condition out over ${conditions.length} grid conditions (${loco.length} measurements)`, kind), minAnswer, minAnswerSingle };
model.note = `${model.note}; confidence calibrated (${kind}, min answer ${minAnswer}, one profile ${minAnswerSingle}) by leaving one of ${conditions.length} grid conditions out`;
saveModel(model, out);
console.log(`-> ${out}: ${model.classes.length} labels`);
