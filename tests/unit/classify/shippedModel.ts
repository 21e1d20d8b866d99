/** The shipped provisional model, loaded once for the end-to-end tests. */
import { fileURLToPath } from 'node:url';
import { loadModel, type Model } from '../../../src/classify/model.js';
import { buildProvisionalModel } from '../../../src/classify/provisional.js';
import { pricedUniformOverLabels, type LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';

export const SHIPPED_MODEL_PATH = fileURLToPath(new URL('../../../models/ccbrowse-model.json', import.meta.url));

let cached: Model | undefined;
export function shippedModel(): Model {
  cached ??= loadModel(SHIPPED_MODEL_PATH);
  return cached;
}

let synthetic: Model | undefined;
/**
 * The model trained on synthetic shapes (src/classify/provisional.ts): the unit tests of
 * each stage judge synthetic series with it, so they test the pipeline, not the lab data.
 */
export function syntheticModel(): Model {
  synthetic ??= buildProvisionalModel();
  return synthetic;
}

/**
 * The shipped model without the learned groups whose suffix matches `suffix` (e.g. session 46's
 * `.g17-*` far groups of issue 17's senders): a test of a rule set on the model before those groups
 * keeps judging that rule, and says beside it what the shipped model does. Only the groups go: the
 * envelope, calibration and link-idle bounds the same rounds widened stay, so this approximates the
 * earlier model, it does not rebuild it.
 */
export function withoutGroups(m: Model, suffix: RegExp): Model {
  const lb = m.classifiers['loss-based'] as { gnb: { classes: Array<{ label: string }> } };
  const classes = lb.gnb.classes.filter((c) => !suffix.test(c.label));
  return { ...m, classifiers: { ...m.classifiers, 'loss-based': { ...lb, gnb: { ...lb.gnb, classes } } } } as Model;
}

/**
 * The shipped model as it was before its groups added beyond the trained conditions (lossBased.ts
 * groupsNeedOutside, session 55): those groups go, the envelope is the one the gate kept, and the
 * priors are uniform over labels again. Exact, unlike withoutGroups: the gate recorded what it widened.
 */
export function withoutGroupsBeyond(m: Model): Model {
  const gates = Object.entries((m.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside ?? {});
  if (!gates.length) return m;
  // The last gate added kept the widest envelope: undo the gates from the last to the first.
  const size = (e: (typeof gates)[number][1]['envelope']) => e.tcp.length + e.quic.length;
  const before = gates.sort(([, a], [, b]) => size(b.envelope) - size(a.envelope)).reduce((model, [suffix]) => withoutGate(model, suffix), m);
  const { groupsNeedOutside: _gone, ...rest } = before.classifiers['loss-based'] as LossBasedParams;
  return { ...before, classifiers: { ...before.classifiers, 'loss-based': rest } };
}

/**
 * The shipped model as it was before one gate's groups were added beyond the trained conditions
 * (`suffix`, e.g. session 60's `.beyond2`): those groups go, the priors are uniform over labels
 * again, the envelope is the one that gate kept (the model's before them) and the gate itself goes.
 * Exact like withoutGroupsBeyond, for one gate of several.
 */
export function withoutGate(m: Model, suffix: string): Model {
  const lb = m.classifiers['loss-based'] as LossBasedParams;
  const gate = lb.groupsNeedOutside?.[suffix];
  if (!gate) throw new Error(`the model has no ${suffix} gate`);
  const classes = pricedUniformOverLabels(lb.gnb.classes.filter((c) => !c.label.endsWith(suffix)));
  const { [suffix]: _gone, ...gates } = lb.groupsNeedOutside!;
  return { ...m, envelope: gate.envelope, classifiers: { ...m.classifiers, 'loss-based': { ...lb, groupsNeedOutside: gates, gnb: { ...lb.gnb, classes } } } };
}
