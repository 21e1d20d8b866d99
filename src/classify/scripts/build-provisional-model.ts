/**
 * Regenerate models/ccbrowse-model.json from the synthetic generators:
 *   npx tsx src/classify/scripts/build-provisional-model.ts [out.json]
 * Deterministic: running it twice writes the same bytes (a unit test checks the shipped
 * file matches).
 */
import { buildProvisionalModel } from '../provisional.js';
import { saveModel } from '../model.js';

const out = process.argv[2] ?? 'models/ccbrowse-model.json';
const model = buildProvisionalModel();
saveModel(model, out);
process.stdout.write(`wrote ${out}: classes ${model.classes.join(', ')}; ${model.trainedOn.examples} synthetic examples\n`);
