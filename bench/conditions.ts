/**
 * The conditions benchmark (issue 16; docs/benchmarks/conditions.md): leave one grid condition
 * out, hold one controller out, per profile and per axis, calibration.
 *
 *   npx tsx bench/conditions.ts build/grid/g1 [more dirs or dataset files] [--only c1,c2] [--no-open-set] [--out build/bench/conditions.json]
 *
 * Prints markdown tables; writes every outcome to --out for later study.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calibrate } from '../src/classify/calibration.js';
import {
  calibratedLoco, calibration, calibrationFrom, CONFIDENT, holdOneControllerOut, leaveOneConditionOut, loadGridEntries, openSetTable, perClassAccuracy, SeriesCache, tally, tallyTable, type Outcome,
} from '../src/train/conditions-bench.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const only = flag('--only')?.split(',');
const out = flag('--out') ?? 'build/bench/conditions.json';
const noOpenSet = args.includes('--no-open-set');
const inputs = args.filter((a) => !a.startsWith('--'));
if (inputs.length === 0) {
  console.error('usage: bench/conditions.ts GRID_DIR|DATASET.json ... [--only ids] [--no-open-set] [--out F]');
  process.exit(2);
}

const t0 = Date.now();
const entries = loadGridEntries(inputs);
const cache = new SeriesCache();
const conditions = [...new Set(entries.map((e) => e.conditionId))].sort();
console.log(`# Conditions benchmark\n\n${entries.length} traces, ${conditions.length} conditions (${conditions.join(', ')}), ${new Set(entries.map((e) => e.origin)).size} controllers\n`);

const raw = leaveOneConditionOut(entries, cache, { only });
// Scored with calibrated confidences, each condition's by a map fitted on the other conditions only.
const loco = calibratedLoco(raw);
const say = (m: string) => console.log(m);
say(`## Leave one condition out (${loco.length} measurements, each judged by a model that never saw its condition)\n`);
for (const protocol of ['tcp', 'quic'] as const) {
  const p = perClassAccuracy(loco, protocol);
  const t = tally(loco.filter((o) => o.protocol === protocol));
  say(`${protocol.toUpperCase()}: mean per-controller accuracy ${(100 * p.mean).toFixed(1)}%, lowest ${p.lowest ? `${p.lowest.label} ${(100 * p.lowest.accuracy).toFixed(1)}%` : '-'}; ${t.right}/${t.n} right, ${t.unknown} Unknown, ${t.wrong} wrong, ${t.confidentWrong} confident wrong`);
  say(p.rows.map((r) => `${r.label} ${(100 * r.accuracy).toFixed(0)}% (${r.n})`).join(', ') + '\n');
}
say(tallyTable(loco, (o) => o.axis, 'axis') + '\n');
say(tallyTable(loco, (o) => `${o.conditionId} (${o.value})`, 'held-out condition') + '\n');
say(tallyTable(loco, (o) => `${o.truth}${o.protocol === 'quic' ? ' (QUIC)' : ''}`, 'controller') + '\n');

say('## Per profile (single-profile verdicts, leave one condition out)\n');
const perProfile: Outcome[] = loco.flatMap((o) => o.perProfile.map((p) => ({ ...o, predicted: p.predicted, confidence: p.confidence, axis: `${p.profile} / ${o.axis}`, conditionId: p.profile })));
say(tallyTable(perProfile, (o) => o.conditionId, 'profile') + '\n');
say(tallyTable(perProfile, (o) => o.axis, 'profile / axis') + '\n');

for (const [name, os] of [['raw confidence', raw], ['calibrated (each condition by a map fitted on the others)', loco]] as const) {
  const cal = calibration(os);
  say(`## Calibration, ${name} (leave one condition out; ${cal.answered} answers naming a CCA)\n\nECE ${cal.ece.toFixed(3)}\n`);
  say('| confidence | answers | mean confidence | accuracy |\n| --- | ---: | ---: | ---: |');
  for (const r of cal.rows) say(`| ${r.from.toFixed(1)}-${r.to.toFixed(1)} | ${r.n} | ${r.meanConfidence.toFixed(3)} | ${r.accuracy.toFixed(3)} |`);
  say('');
}

let open: Outcome[] = [];
if (!noOpenSet) {
  const map = calibrationFrom(raw, 'all held-out conditions');
  open = holdOneControllerOut(entries, cache).map((o) => (o.confidence > 0 ? { ...o, confidence: calibrate(map, o.confidence) } : o));
  say(`## Open set: hold one controller out (${open.length} measurements; Unknown or the right design family, never a confident wrong label)\n`);
  say(openSetTable(open) + '\n');
}
const all = [...loco, ...open];
const cw = all.filter((o) => o.predicted !== o.truth && !['Unknown', 'Short flow', 'Application-limited'].includes(o.predicted) && o.confidence >= CONFIDENT);
say(`confident wrong (>= ${CONFIDENT}) over every measurement above: ${cw.length} of ${all.length}`);
say(`\n(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ createdAt: new Date().toISOString(), inputs, raw, loco, open }, null, 1));
