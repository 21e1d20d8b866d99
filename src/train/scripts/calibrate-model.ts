/**
 * Give a trained model the conditions it was trained under and a calibrated confidence, without
 * retraining its classifiers (issue 16).
 *
 *   npx tsx src/train/scripts/calibrate-model.ts --model M --envelope-from DIR --envelope-conditions base,rtt-150
 *       --calibrate-on DIR [--calibration logistic] [--min-answer 0.8] --out OUT
 *
 * The envelope is fitted on the grid conditions that repeat the model's own training conditions
 * (the shipped model: the lab's near and far regions, 10 and 150 ms). The calibration is fitted on
 * the model's verdicts over grid datasets it never trained on; the honest figures (each condition
 * calibrated by maps fitted on the other conditions only) are printed before the model is written.
 */
import { loadModel, saveModel } from '../../classify/index.js';
import { fitEnvelope } from '../../classify/envelope.js';
import { requireFlag, takeFlag } from '../../util/script-args.js';
import {
  calibratedLoco, calibration, calibrationsFrom, judge, loadGridEntries, perClassAccuracy, SeriesCache, tally, tallyTable, withMinAnswer, type CalibrationKind,
} from '../conditions-bench.js';

const args = process.argv.slice(2);
const USAGE = 'src/train/scripts/calibrate-model.ts';
const flag = (name: string, dflt?: string): string => (dflt === undefined ? requireFlag(args, name, USAGE) : takeFlag(args, name) ?? dflt);
const out = flag('--out');
const kind = flag('--calibration', 'logistic') as CalibrationKind;
const minAnswer = Number(flag('--min-answer', '0.8'));
const cache = new SeriesCache();

const model = loadModel(flag('--model'));
const envelopeIds = flag('--envelope-conditions').split(',');
const envelopeFrom = loadGridEntries(flag('--envelope-from').split(',')).filter((e) => envelopeIds.includes(e.conditionId));
model.envelope = fitEnvelope(envelopeFrom.map((e) => cache.of(e).conditions));
delete model.calibration;
console.log(`envelope from ${envelopeFrom.length} traces of ${envelopeIds.join(', ')}: ${model.envelope.tcp.length} TCP and ${model.envelope.quic.length} QUIC condition vectors`);

const entries = loadGridEntries(flag('--calibrate-on').split(','));
const outcomes = judge(entries, model, cache);
const honest = calibratedLoco(outcomes, kind).map((o) => withMinAnswer(o, minAnswer));
const t = tally(honest);
const cal = calibration(honest);
console.log(`held out (each condition calibrated on the others, min answer ${minAnswer}): ${t.right}/${t.n} right, ${t.unknown} Unknown, ${t.wrong} wrong, ${t.confidentWrong} confident wrong (${(100 * t.confidentWrong / t.n).toFixed(1)}%); ECE ${cal.ece.toFixed(3)} over ${cal.answered} answers\n`);
for (const protocol of ['tcp', 'quic'] as const) {
  const p = perClassAccuracy(honest, protocol);
  console.log(`${protocol.toUpperCase()}: mean per-controller accuracy ${(100 * p.mean).toFixed(1)}%; ${p.rows.map((r) => `${r.label} ${(100 * r.accuracy).toFixed(0)}%`).join(', ')}\n`);
}
console.log(tallyTable(honest, (o) => `${o.conditionId} (${o.value})`, 'condition') + '\n');
console.log(tallyTable(honest, (o) => `${o.truth}${o.protocol === 'quic' ? ' (QUIC)' : ''}`, 'controller') + '\n');
console.log('| confidence | answers | mean confidence | accuracy |\n| --- | ---: | ---: | ---: |');
for (const r of cal.rows) console.log(`| ${r.from.toFixed(1)}-${r.to.toFixed(1)} | ${r.n} | ${r.meanConfidence.toFixed(3)} | ${r.accuracy.toFixed(3)} |`);
console.log('');

model.calibration = { ...calibrationsFrom(outcomes, `${entries.length} traces of grid conditions the model never trained on`, kind), minAnswer };
model.note = `${model.note}; envelope from ${envelopeIds.join('+')}, confidence calibrated (${kind}, min answer ${minAnswer}) on ${outcomes.length} held-out grid measurements`;
saveModel(model, out);
console.log(`-> ${out}`);
