/**
 * One model out of two trained with the same pipeline: the learned classes of `extra` join
 * those of `base` as further groups of their labels (issue 16/17).
 *
 * WHY: the shipped model's learned classes come from lab rounds whose datasets are gone; they
 * name the lab's own conditions well (the committed regression set) but know no other profile,
 * path or controller. Classes trained elsewhere (the video profile, the conditions grid, issue
 * 17's BBRv2/v3 senders) can sit beside them: the loss-based classifier sums a label's
 * posterior over its groups and gates a flow against each group's own training flows, so a
 * group adds the conditions it saw without moving the others. Rule classifiers and the
 * pipeline stay the base's; the envelope becomes both models' envelopes together.
 */
import type { Model } from './model.js';
import type { LossBasedParams } from './classifiers/lossBased.js';
import { labelOf, pricedUniformOverLabels } from './classifiers/lossBased.js';

const LOSS_BASED = 'loss-based';

export interface SpliceOptions {
  /** Appended to each added group (`CUBIC@tcp-nebby-50` -> `CUBIC@tcp-nebby-50.grid`), so both stay; none: an added group replaces the base's of the same name. */
  groupSuffix?: string;
  /** Only the added classes whose label passes. */
  labels?: (label: string) => boolean;
  /** Only the added classes whose group (`tcp-video`) passes. */
  groups?: (group: string) => boolean;
  /** The least reordering a flow must measure for the added groups to judge it (lossBased.ts groupsNeedReordering); needs groupSuffix. */
  needReordering?: number;
  /** How far outside the base's envelope (envelope.ts distance) a flow must lie for the added groups to judge it (lossBased.ts groupsNeedOutside); needs groupSuffix and a base envelope. */
  needOutside?: number;
  /** With needOutside: the added groups also judge a nearer flow that no other group holds (lossBased.ts groupsNeedOutside `unheld`). */
  unheld?: boolean;
  note?: string;
}

const groupOf = (subclass: string): string => subclass.split('@')[1] ?? '';
/** A pipeline as compared: an absent path correction is the default (none). */
const pipelineKey = (m: Model): string => {
  const p = { ...m.pipeline, path: m.pipeline.path ?? { fullRtt: false, invisiblePipe: false } } as Record<string, unknown>;
  return JSON.stringify(Object.keys(p).sort().map((k) => [k, p[k]]));
};

export function spliceModels(base: Model, extra: Model, o: SpliceOptions = {}): Model {
  if (o.needReordering !== undefined || o.needOutside !== undefined) gatedSuffixUnused(base, o.groupSuffix);
  if (o.unheld && o.needOutside === undefined) throw new Error('groups that also judge unheld flows are gated on the trained conditions: give needOutside too');
  if (o.needOutside !== undefined && !base.envelope) throw new Error('groups gated on the trained conditions need a base model with an envelope (trained conditions) to lie outside of');
  if (pipelineKey(base) !== pipelineKey(extra)) {
    throw new Error('cannot splice models trained with different pipelines: their descriptors are not comparable');
  }
  const b = base.classifiers[LOSS_BASED] as LossBasedParams;
  const x = extra.classifiers[LOSS_BASED] as LossBasedParams;
  if (JSON.stringify(b.gnb.featureNames) !== JSON.stringify(x.gnb.featureNames)) throw new Error('cannot splice models with different descriptor features');
  const added = x.gnb.classes
    .filter((c) => (o.labels ? o.labels(labelOf(c.label)) : true) && (o.groups ? o.groups(groupOf(c.label)) : true))
    .map((c) => ({ ...c, label: o.groupSuffix ? `${c.label}${o.groupSuffix}` : c.label }));
  const addedNames = new Set(added.map((c) => c.label));
  const classes = [...b.gnb.classes.filter((c) => !addedNames.has(c.label)), ...added];
  const priced = pricedUniformOverLabels(classes);
  const kept = (key: string) => (!o.labels || o.labels(labelOf(key))) && (!o.groups || o.groups(groupOf(key)));
  const gated = {
    ...(o.needReordering !== undefined ? { groupsNeedReordering: { ...b.groupsNeedReordering, [o.groupSuffix!]: o.needReordering } } : {}),
    ...(o.needOutside !== undefined ? { groupsNeedOutside: { ...b.groupsNeedOutside, [o.groupSuffix!]: { beyond: o.needOutside, envelope: base.envelope!, ...(o.unheld ? { unheld: true } : {}) } } } : {}),
  };
  const lossBased: LossBasedParams = { ...b, ...linkIdleOf(b, x, kept, o.groupSuffix), ...gated, gnb: { ...b.gnb, classes: priced } };
  const examplesPerLabel = { ...base.trainedOn.examplesPerLabel };
  for (const [k, v] of Object.entries(extra.trainedOn.examplesPerLabel)) if (!o.labels || o.labels(k)) examplesPerLabel[k] = (examplesPerLabel[k] ?? 0) + v;
  const envelope = base.envelope && extra.envelope
    ? { ...base.envelope, tcp: [...base.envelope.tcp, ...extra.envelope.tcp], quic: [...base.envelope.quic, ...extra.envelope.quic] }
    : base.envelope ?? extra.envelope;
  const out: Model = {
    ...base,
    classes: [...new Set([...base.classes, ...priced.map((c) => labelOf(c.label))])].sort(),
    classifiers: { ...base.classifiers, [LOSS_BASED]: lossBased },
    ...(envelope ? { envelope } : {}),
    note: `${base.note}; ${o.note ?? `spliced with ${extra.trainedOn.source}`}`,
    trainedOn: {
      ...base.trainedOn,
      source: `${base.trainedOn.source} + ${extra.trainedOn.source}`,
      examples: base.trainedOn.examples + extra.trainedOn.examples,
      examplesPerLabel,
    },
  };
  return out;
}

/**
 * A gate on reordering (needReordering) holds every group ending in its suffix: the suffix must be
 * new to the base (`--need-reordering` with the default `.quiet` would gate the base's own quiet
 * groups) and start with a dot, so it cannot end another group's name by chance.
 */
function gatedSuffixUnused(base: Model, suffix: string | undefined): void {
  if (!suffix || !suffix.startsWith('.')) throw new Error(`gated groups (on reordering or on the trained conditions) need a group suffix of their own, starting with a dot (got ${suffix ?? 'none'})`);
  const taken = (base.classifiers[LOSS_BASED] as LossBasedParams).gnb.classes.filter((c) => c.label.endsWith(suffix));
  if (taken.length) throw new Error(`the model already has groups ending in ${suffix} (${taken[0].label}, ...): a gate would hold them too; choose another suffix`);
}

/**
 * Both models' link-idle maxima (lossBased.ts `linkIdle`), with the base's margin. A base without
 * them keeps none: its own groups' flows were never measured. Added groups with a suffix keep
 * their own maxima (`CUBIC@tcp-nebby-50.loss`), so a condition that leaves the link idler (a far
 * server, loss on the server's side) loosens no other group's bound; an added group that replaces
 * a base group of the same name (no suffix) raises the profile's maximum, which the base's groups
 * without one of their own share.
 */
function linkIdleOf(b: LossBasedParams, x: LossBasedParams, keep: (key: string) => boolean, groupSuffix: string | undefined): Pick<LossBasedParams, 'linkIdle'> {
  if (!b.linkIdle) return {};
  const maxShare = { ...b.linkIdle.maxShare };
  for (const [k, v] of Object.entries(x.linkIdle?.maxShare ?? {})) {
    if (!keep(k)) continue;
    const key = groupSuffix ? `${k}${groupSuffix}` : k;
    maxShare[key] = Math.max(maxShare[key] ?? 0, v);
  }
  return { linkIdle: { ...b.linkIdle, maxShare } };
}
