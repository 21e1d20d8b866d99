/**
 * Fit the model's edge maps (classify/calibration.ts edgeCalibrationSchema) on held-out lab rounds:
 * how often an answer read near the edge of the trained conditions was right, at each confidence
 * the model's own maps give it. Nothing else in the model changes.
 *
 *   npx tsx src/train/scripts/edge-calibration.ts --model models/ccbrowse-model.json --from-distance 0.9 \
 *       [--min-block 10] --out OUT DATASET.json[.gz] ...
 *
 * The datasets must be conditions the model never trained on (labs/grid-heldout*.ts rounds); judge
 * the result on rounds not given here. Single-profile maps are fitted on each trace's verdict,
 * fused maps on measurements judged by more than one profile.
 */
import { calibrate, fitCalibration, type Calibration } from '../../classify/calibration.js';
import { envelopeDistanceOf } from '../../classify/confidence.js';
import { classifyFlow, fuseProfiles, loadModel, saveModel, type Verdict } from '../../classify/index.js';
import { loadDataset, toSeries, type DatasetEntry } from '../dataset.js';
import { requireFlag, takeFlag } from '../../util/script-args.js';

const args = process.argv.slice(2);
const USAGE = 'src/train/scripts/edge-calibration.ts';
const modelFile = requireFlag(args, '--model', USAGE);
const out = requireFlag(args, '--out', USAGE);
const fromDistance = Number(requireFlag(args, '--from-distance', USAGE));
const minBlock = Number(takeFlag(args, '--min-block') ?? '10');
if (args.length === 0 || !(fromDistance >= 0)) throw new Error(`usage: npx tsx ${USAGE} --model M --from-distance D [--min-block N] --out OUT DATASET...`);

const model = loadModel(modelFile);
if (!model.calibration) throw new Error(`${modelFile} has no calibration to extend`);
const shipped = model.calibration;
// Judged without the edge maps and without a minimum answer: every answer's confidence is then the first maps'.
const plain = { ...shipped, minAnswer: 0, minAnswerSingle: 0, edge: undefined };

interface Point { confidence: number; right: boolean; distance: number }
const single: Point[] = [];
const fused: Point[] = [];
const pointOf = (v: Verdict, truth: string): Point | null =>
  v.kind === 'cca' ? { confidence: v.confidence, right: v.label === truth, distance: envelopeDistanceOf(v) } : null;

for (const file of args) {
  const byMeasurement = new Map<string, Array<{ e: DatasetEntry; raw: Verdict }>>();
  for (const e of loadDataset(file).entries) {
    const raw = classifyFlow(toSeries(e), model);
    const p = pointOf(fuseProfiles([raw], { calibration: plain }), e.label);
    if (p) single.push(p);
    const k = `${e.origin}\t${e.region}\t${e.rep}`;
    byMeasurement.set(k, [...(byMeasurement.get(k) ?? []), { e, raw }]);
  }
  for (const g of byMeasurement.values()) {
    if (g.length < 2) continue;
    const p = pointOf(fuseProfiles(g.map((x) => x.raw), { calibration: plain }), g[0].e.label);
    if (p) fused.push(p);
  }
  console.log(`${file}: ${byMeasurement.size} measurements`);
}

const atEdge = (ps: Point[]) => ps.filter((p) => p.distance >= fromDistance);
const describe = (name: string, ps: Point[], map: Calibration) => {
  const edge = atEdge(ps);
  const right = edge.filter((p) => p.right).length;
  const kept = edge.filter((p) => calibrate(map, p.confidence) >= shipped.minAnswer);
  console.log(`${name}: ${edge.length} of ${ps.length} answers at envelope distance >= ${fromDistance}, ${right} right; ` +
    `map ${map.raw.map((x, i) => `${x.toFixed(3)} -> ${map.calibrated[i].toFixed(3)}`).join(', ')}; ` +
    `above the minimum answer ${shipped.minAnswer}: ${kept.filter((p) => p.right).length} right, ${kept.filter((p) => !p.right).length} wrong ` +
    `(first maps alone: ${edge.filter((p) => p.confidence >= shipped.minAnswer && p.right).length} right, ${edge.filter((p) => p.confidence >= shipped.minAnswer && !p.right).length} wrong)`);
};
const source = `${args.length} held-out lab rounds (${args.map((f) => f.split('/').pop()).join(', ')})`;
const fit = (ps: Point[], what: string) => fitCalibration(atEdge(ps), `${atEdge(ps).length} ${what} answers at envelope distance >= ${fromDistance} in ${source}`, minBlock);
const edge = { fromDistance, fused: fit(fused, 'fused'), single: fit(single, 'single-profile') };
describe('single profile', single, edge.single);
describe('fused', fused, edge.fused);
model.calibration = { ...shipped, edge };
model.note = `${model.note}; near the edge of its trained conditions (envelope distance >= ${fromDistance}) calibrated again on ${source}`;
saveModel(model, out);
console.log(`wrote ${out}`);
