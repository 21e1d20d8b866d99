/**
 * The conditions benchmark (issue 16; docs/benchmarks/conditions.md).
 *
 *   npx tsx bench/conditions.ts build/grid/g1 [more dirs or dataset files] [--only c1,c2] [--no-open-set]
 *       [--path fullRtt,invisiblePipe|none] [--calibration isotonic|logistic] [--min-answer P] [--out build/bench/conditions.json]
 *     leave one grid condition out (each condition judged by a model that never saw it, its
 *     confidence calibrated by a map fitted on the other conditions only), hold one controller
 *     out (the open set), per profile and per axis, reliability table and ECE.
 *
 *   npx tsx bench/conditions.ts --model models/ccbrowse-model.json --test build/grid/h1 [...]
 *     a trained model (calibration included) judged on held-out datasets: the same tables.
 *
 * Prints markdown tables; writes every outcome to --out for later study.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadModel } from '../src/classify/index.js';
import { holdOutVerdict } from '../src/train/bench.js';
import {
  calibrated, calibratedLoco, calibration, calibrationsFrom, pipelineWithPath, withMinAnswer, type CalibrationKind, CONFIDENT, holdOneControllerOut, judge, leaveOneConditionOut, loadGridEntries, openSetTable,
  perClassAccuracy, SeriesCache, tally, tallyTable, type Outcome,
} from '../src/train/conditions-bench.js';
import { takeFlag } from '../src/util/script-args.js';

const args = process.argv.slice(2);
const flag = (name: string) => takeFlag(args, name);
const only = flag('--only')?.split(',');
const pipeline = pipelineWithPath(flag('--path'));
const kind = (flag('--calibration') ?? 'isotonic') as CalibrationKind;
const minAnswer = Number(flag('--min-answer') ?? 0);
const out = flag('--out') ?? 'build/bench/conditions.json';
const modelPath = flag('--model');
const test = flag('--test');
const noOpenSet = args.includes('--no-open-set');
const inputs = args.filter((a) => !a.startsWith('--'));
if (inputs.length === 0 && !(modelPath && test)) {
  console.error('usage: bench/conditions.ts GRID_DIR|DATASET.json ... [--only ids] [--no-open-set] [--path ...] [--out F]\n       bench/conditions.ts --model MODEL --test GRID_DIR [...]');
  process.exit(2);
}
const say = (m: string) => console.log(m);
const t0 = Date.now();
const cache = new SeriesCache();
const NON_ANSWERS = ['Unknown', 'Short flow', 'Application-limited'];

/** The tables every mode prints for a set of (calibrated) outcomes. */
function report(os: Outcome[], what: string): void {
  say(`## ${what} (${os.length} measurements)\n`);
  for (const protocol of ['tcp', 'quic'] as const) {
    const p = perClassAccuracy(os, protocol);
    const t = tally(os.filter((o) => o.protocol === protocol));
    if (!t.n) continue;
    say(`${protocol.toUpperCase()}: mean per-controller accuracy ${(100 * p.mean).toFixed(1)}%, lowest ${p.lowest ? `${p.lowest.label} ${(100 * p.lowest.accuracy).toFixed(1)}%` : '-'}; ${t.right}/${t.n} right, ${t.unknown} Unknown, ${t.wrong} wrong, ${t.confidentWrong} confident wrong`);
    say(p.rows.map((r) => `${r.label} ${(100 * r.accuracy).toFixed(0)}% (${r.n})`).join(', ') + '\n');
  }
  say(tallyTable(os, (o) => o.axis, 'axis') + '\n');
  say(tallyTable(os, (o) => `${o.conditionId} (${o.value})`, 'condition') + '\n');
  say(tallyTable(os, (o) => `${o.truth}${o.protocol === 'quic' ? ' (QUIC)' : ''}`, 'controller') + '\n');
  say('### Per profile (single-profile verdicts)\n');
  const perProfile: Outcome[] = os.flatMap((o) => o.perProfile.map((p) => ({ ...o, predicted: p.predicted, confidence: p.confidence, axis: `${p.profile} / ${o.axis}`, conditionId: p.profile })));
  say(tallyTable(perProfile, (o) => o.conditionId, 'profile') + '\n');
  say(tallyTable(perProfile, (o) => o.axis, 'profile / axis') + '\n');
}

function reliability(os: Outcome[], name: string): void {
  const cal = calibration(os);
  say(`### Calibration, ${name} (${cal.answered} answers naming a CCA): ECE ${cal.ece.toFixed(3)}\n`);
  say('| confidence | answers | mean confidence | accuracy |\n| --- | ---: | ---: | ---: |');
  for (const r of cal.rows) say(`| ${r.from.toFixed(1)}-${r.to.toFixed(1)} | ${r.n} | ${r.meanConfidence.toFixed(3)} | ${r.accuracy.toFixed(3)} |`);
  say('');
}

const confidentWrong = (os: Outcome[]) => os.filter((o) => o.predicted !== o.truth && !NON_ANSWERS.includes(o.predicted) && o.confidence >= CONFIDENT).length;

if (modelPath && test) {
  const model = loadModel(modelPath);
  const entries = loadGridEntries([test, ...inputs]);
  const conditions = [...new Set(entries.map((e) => e.conditionId))].sort();
  say(`# Held-out conditions: ${modelPath} on ${entries.length} traces, ${conditions.length} conditions (${conditions.join(', ')})\n`);
  const os = judge(entries, model, cache);
  report(os, `Model ${modelPath} on held-out conditions`);
  reliability(os, 'the model\'s calibrated confidence');
  say(`confident wrong (>= ${CONFIDENT}): ${confidentWrong(os)} of ${os.length}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ createdAt: new Date().toISOString(), model: modelPath, test, outcomes: os }, null, 1));
} else {
  const entries = loadGridEntries(inputs);
  const conditions = [...new Set(entries.map((e) => e.conditionId))].sort();
  say(`# Conditions benchmark\n\n${entries.length} traces, ${conditions.length} conditions (${conditions.join(', ')}), ${new Set(entries.map((e) => e.origin)).size} controllers\n`);
  const raw = leaveOneConditionOut(entries, cache, { only, pipeline });
  // Scored with calibrated confidences, each condition's by maps fitted on the other conditions only.
  const answer = (o: Outcome): Outcome => ({ ...withMinAnswer(o, minAnswer), perProfile: o.perProfile.map((p) => withMinAnswer({ ...p, reason: '' }, minAnswer)) });
  const loco = calibratedLoco(raw, kind).map(answer);
  report(loco, 'Leave one condition out (each condition judged by a model that never saw it)');
  reliability(raw, 'raw confidence');
  reliability(loco, 'calibrated (each condition by maps fitted on the other conditions)');
  let open: Outcome[] = [];
  if (!noOpenSet) {
    const maps = calibrationsFrom(raw, 'all held-out conditions', kind);
    open = holdOneControllerOut(entries, cache, { pipeline }).map((o) => answer({ ...o, confidence: calibrated(maps, o, o.perProfile.length > 1) }));
    say(`## Open set: hold one controller out (${open.length} measurements; Unknown or the right design family, never a confident wrong label)\n`);
    say(openSetTable(open) + '\n');
  }
  // A held-out controller named in its design family is not wrong (it has no label of its own).
  const openWrong = open.filter((o) => holdOutVerdict(o.truth, o.predicted) === 'wrong' && o.confidence >= CONFIDENT).length;
  const n = loco.length + open.length;
  const cw = confidentWrong(loco) + openWrong;
  say(`confident wrong (>= ${CONFIDENT}) over every measurement above: ${cw} of ${n} (${((100 * cw) / Math.max(1, n)).toFixed(2)}%): ${confidentWrong(loco)} under held-out conditions, ${openWrong} of held-out controllers`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ createdAt: new Date().toISOString(), inputs, raw, loco, open }, null, 1));
}
say(`\n(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
