/**
 * Gives a trained model the link-idle bound (classify/linkIdle.ts, lossBased.ts `linkIdle`): per
 * class, transport and profile, the largest share of active time its training flows left the link
 * idle, measured on the training rounds that are still on disk.
 *
 *   npx tsx src/train/scripts/link-idle-bounds.ts --model M --train ROUND.json[,...] \
 *       [--margin 0.1] --out OUT
 *
 * WHY a script: the shipped model's learned classes were trained before the share existed (a
 * model trained since measures it in fit()). Only its later groups' rounds remain (the video,
 * quiet17 and dist groups); its first groups borrow the bound their profile's other groups
 * measured (profileOfGroup). Flows the loss-based classifier does not train on (a window kept
 * through heavy loss) and labels the model has no learned class for are skipped.
 */
import { loadModel, saveModel } from '../../classify/index.js';
import { extractFlowFeatures } from '../../classify/features.js';
import { linkIdleMaxima, type LossBasedParams } from '../../classify/classifiers/lossBased.js';
import { keepsWindowThroughLoss } from '../../classify/classifiers/lossAgnostic.js';
import { requireFlag, takeFlag } from '../../util/script-args.js';
import { loadDatasets, toSeries } from '../dataset.js';

const USAGE = 'src/train/scripts/link-idle-bounds.ts';
const args = process.argv.slice(2);
const modelPath = requireFlag(args, '--model', USAGE);
const train = requireFlag(args, '--train', USAGE);
const margin = Number(takeFlag(args, '--margin') ?? '0.1');
const out = requireFlag(args, '--out', USAGE);
if (!(margin >= 0 && margin < 1)) throw new Error(`--margin ${margin}: a share between 0 and 1`);

const model = loadModel(modelPath);
const lossBased = model.classifiers['loss-based'] as LossBasedParams | undefined;
if (!lossBased) throw new Error(`${modelPath} has no loss-based classifier`);
const learned = new Set(model.classes);
const flows = loadDatasets(train)
  .filter((e) => learned.has(e.label))
  .map((e) => ({ label: e.label, group: `${e.protocol}-${e.profile}`, features: extractFlowFeatures({ ...toSeries(e), transport: e.protocol }, model.pipeline) }))
  .filter((f) => !keepsWindowThroughLoss(f.features));
const maxShare = linkIdleMaxima(flows);
model.classifiers['loss-based'] = { ...lossBased, linkIdle: { margin, maxShare } };
model.note = `${model.note}; link-idle bound (margin ${margin}) from ${flows.length} training flows (${train})`;
saveModel(model, out);
for (const [k, v] of Object.entries(maxShare).sort()) console.log(`${k.padEnd(28)} ${v.toFixed(3)}`);
console.log(`${Object.keys(maxShare).length} class/profile bounds from ${flows.length} flows -> ${out}`);
