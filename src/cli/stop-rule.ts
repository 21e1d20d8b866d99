/**
 * The early-stop rule `--stop-when-stable` asks for (probe and run share it), with the model it
 * judges by: the rule's defaults (classify/early-stop.ts), the model's own minimum answer as the
 * confidence an answer needs. Loaded only when the flag is given.
 */
import type { StopRule } from '../classify/early-stop.js';
import type { Model } from '../classify/index.js';
import { BadInputError } from '../util/errors.js';

/** The early-stop rule the flags ask for (null without --stop-when-stable), with the model it judges by. */
export async function stopRuleFrom(o: { stopWhenStable?: boolean; minSeconds?: number; maxSeconds?: number; model?: string }): Promise<{ rule: StopRule; model: Model } | null> {
  if (!o.stopWhenStable) {
    if (o.minSeconds !== undefined || o.maxSeconds !== undefined || o.model !== undefined) throw new BadInputError('--min-seconds, --max-seconds and --model go with --stop-when-stable');
    return null;
  }
  const { DEFAULT_STOP_RULE } = await import('../classify/early-stop.js');
  const { loadModel } = await import('../classify/index.js');
  const { resolve } = await import('node:path');
  const { repoRoot } = await import('../util/paths.js');
  const rule: StopRule = { ...DEFAULT_STOP_RULE, floorSeconds: o.minSeconds ?? DEFAULT_STOP_RULE.floorSeconds, ceilingSeconds: o.maxSeconds ?? DEFAULT_STOP_RULE.ceilingSeconds };
  if (rule.floorSeconds > rule.ceilingSeconds) throw new BadInputError(`--min-seconds ${rule.floorSeconds} is above --max-seconds ${rule.ceilingSeconds}`);
  // The model's own minimum answer, when it has one, is the confidence an answer needs.
  const model = loadModel(o.model ?? resolve(repoRoot(), 'models', 'ccbrowse-model.json'));
  return { rule: { ...rule, minConfidence: model.calibration?.minAnswer ?? rule.minConfidence }, model };
}
