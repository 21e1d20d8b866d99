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
 * measured (profileOfGroup). The rounds are trained exactly as add-lab-rounds.ts trains groups
 * (add-groups.ts: disturbed traces left out, the same gates and flows as fit()), and only the
 * maxima of labels the model has learned classes for are kept.
 */
import { loadModel, saveModel } from '../../classify/index.js';
import { labelOf, type LossBasedParams } from '../../classify/classifiers/lossBased.js';
import { disturbedReason } from '../../classify/disturbance.js';
import { requireFlag, takeFlag } from '../../util/script-args.js';
import { loadDatasets } from '../dataset.js';
import { trainFromEntries } from '../train.js';

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
const all = loadDatasets(train);
const entries = all.filter((e) => !disturbedReason(e.disturbance ?? null, e.rttSeconds));
const trained = trainFromEntries(entries, { source: train, pipeline: model.pipeline });
const learned = new Set(lossBased.gnb.classes.map((c) => labelOf(c.label)));
const measured = (trained.classifiers['loss-based'] as LossBasedParams).linkIdle?.maxShare ?? {};
const maxShare = Object.fromEntries(Object.entries(measured).filter(([k]) => learned.has(labelOf(k))));
model.classifiers['loss-based'] = { ...lossBased, linkIdle: { margin, maxShare } };
model.note = `${model.note}; link-idle bound (margin ${margin}) from ${entries.length} training traces (${train})`;
saveModel(model, out);
for (const [k, v] of Object.entries(maxShare).sort()) console.log(`${k.padEnd(28)} ${v.toFixed(3)}`);
console.log(`${Object.keys(maxShare).length} class/profile bounds from ${entries.length} traces (${all.length - entries.length} disturbed left out) -> ${out}`);
