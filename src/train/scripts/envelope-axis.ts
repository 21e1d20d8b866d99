/**
 * Fills an envelope axis that a model's training flows of one transport never measured (null in
 * every one of their condition vectors), from flows re-traced with today's trace code under the
 * model's own training conditions. WHY: the trace code learns to measure a condition after a
 * model was trained (QUIC reordering, from packet numbers, in session 35); until the envelope
 * holds a value, a flow's measurement on that axis is skipped and cannot mark it outside.
 *
 *   npx tsx src/train/scripts/envelope-axis.ts --model M --transport quic --axis reordering \
 *       --from RETRACED.json[,...] --out OUT
 *
 * The value written is the largest the re-traced flows show (an upper-only axis then admits
 * what training saw plus one unit). Refuses when a re-traced flow does not measure the axis.
 */
import { loadModel, saveModel } from '../../classify/index.js';
import { conditionVector, ENVELOPE_AXES } from '../../classify/envelope.js';
import type { FlowConditions } from '../../trace/types.js';
import { requireFlag } from '../../util/script-args.js';
import { loadDataset } from '../dataset.js';

const args = process.argv.slice(2);
const USAGE = 'src/train/scripts/envelope-axis.ts';
const flag = (name: string): string => requireFlag(args, name, USAGE);
const transport = flag('--transport');
if (transport !== 'tcp' && transport !== 'quic') throw new Error(`--transport ${transport}: tcp or quic`);
const axisName = flag('--axis');
const j = ENVELOPE_AXES.findIndex((a) => a.name === axisName);
if (j < 0) throw new Error(`--axis ${axisName}: one of ${ENVELOPE_AXES.map((a) => a.name).join(', ')}`);
const files = flag('--from').split(',');
const out = flag('--out');

const model = loadModel(flag('--model'));
const vectors = model.envelope?.[transport];
if (!vectors?.length) throw new Error(`the model has no ${transport} envelope`);
if (vectors.some((v) => v[j] !== null)) throw new Error(`the model's ${transport} envelope already measures ${axisName}`);

const values: number[] = [];
for (const file of files) {
  for (const e of loadDataset(file).entries) {
    if (e.protocol !== transport) continue;
    const x = e.flowConditions ? conditionVector(e.flowConditions as unknown as FlowConditions)[j] : null;
    if (x === null) throw new Error(`${file}: ${e.origin} rep ${e.rep} ${e.profile} does not measure ${axisName}: re-trace it first (retrace.ts)`);
    values.push(x);
  }
}
if (values.length === 0) throw new Error(`no ${transport} flow in ${files.join(', ')}`);
const fill = Math.max(...values);
for (const v of vectors) v[j] = fill;
model.note = `${model.note}; ${transport} envelope's ${axisName} (unmeasured when trained) set to ${fill}, the largest of ${values.length} flows re-traced under the training conditions (${files.join(', ')})`;
saveModel(model, out);
console.log(`${transport} ${axisName}: ${values.length} re-traced flows, largest ${fill}; ${vectors.length} vectors filled -> ${out}`);
