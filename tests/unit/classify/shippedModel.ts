/** The shipped provisional model, loaded once for the end-to-end tests. */
import { fileURLToPath } from 'node:url';
import { loadModel, type Model } from '../../../src/classify/model.js';

export const SHIPPED_MODEL_PATH = fileURLToPath(new URL('../../../models/ccbrowse-model.json', import.meta.url));

let cached: Model | undefined;
export function shippedModel(): Model {
  cached ??= loadModel(SHIPPED_MODEL_PATH);
  return cached;
}
