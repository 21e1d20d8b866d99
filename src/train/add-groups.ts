/**
 * A trained model with groups learned on further labelled traces beside its own (classify/splice.ts),
 * as add-lab-rounds.ts ships them and leave-one-set-out.ts judges them. A trace taken through a
 * bottleneck the host held back is not trained on.
 */
import type { Model } from '../classify/index.js';
import { disturbedReason } from '../classify/disturbance.js';
import { spliceModels } from '../classify/splice.js';
import type { DatasetEntry } from './dataset.js';
import { trainFromEntries } from './train.js';
import { takeFlag, takeSwitch } from '../util/script-args.js';

/** `--need-outside DISTANCE` of the scripts that add groups (add-lab-rounds.ts, leave-one-set-out.ts), taken from `args`; undefined when absent. */
export function takeNeedOutside(args: string[]): number | undefined {
  const flag = takeFlag(args, '--need-outside');
  if (flag === undefined) return undefined;
  if (!/^\d*\.?\d+$/.test(flag)) throw new Error(`--need-outside takes an envelope distance (1: just outside the trained conditions), not '${flag}'`);
  return Number(flag);
}

/**
 * `--also-unheld` of the same scripts: the groups gated by --need-outside also judge a nearer flow
 * no other group holds (lossBased.ts groupsNeedOutside `unheld`). Refused without --need-outside.
 */
export function takeAlsoUnheld(args: string[], needOutside: number | undefined): boolean {
  if (!takeSwitch(args, '--also-unheld')) return false;
  if (needOutside === undefined) throw new Error('--also-unheld opens the gate of --need-outside to flows no other group holds: give --need-outside too');
  return true;
}

export function withGroupsFrom(base: Model, all: DatasetEntry[], o: { source: string; suffix: string; note: string; needReordering?: number; needOutside?: number; unheld?: boolean }): { model: Model; trained: number; disturbed: number } {
  const entries = all.filter((e) => !disturbedReason(e.disturbance ?? null, e.rttSeconds));
  const trained = trainFromEntries(entries, { source: o.source, pipeline: base.pipeline });
  const model = spliceModels(base, trained, { groupSuffix: o.suffix, note: o.note, needReordering: o.needReordering, needOutside: o.needOutside, unheld: o.unheld });
  return { model, trained: entries.length, disturbed: all.length - entries.length };
}
