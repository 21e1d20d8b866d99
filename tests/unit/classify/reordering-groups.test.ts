/**
 * Groups trained on a reordered path judge only flows that measured reordering themselves
 * (lossBased.ts groupsNeedReordering, session 51). A flow without it is judged exactly as by the
 * model without those groups (same classes, same priors); one with it meets them too.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, parseModel, type Model } from '../../../src/classify/index.js';
import { reorderingGroups, type LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';
import { spliceModels } from '../../../src/classify/splice.js';
import type { FlowConditions } from '../../../src/trace/types.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';

const shipped = (): Model => parseModel(JSON.parse(readFileSync('models/ccbrowse-model.json', 'utf8')));
const gnbOf = (m: Model) => (m.classifiers['loss-based'] as LossBasedParams).gnb;
const FIXTURE = new URL('../../fixtures/lab-series/fresh-near-quiet.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const htcp = entries.find((e) => e.origin === 'tcp-htcp' && e.profile === 'nebby-50')!;

/**
 * A model whose one learned class is H-TCP's own quiet-host nebby-50 shape (the group this flow's
 * round was trained into) called CUBIC: a reordered group that, when it judges, pulls the H-TCP
 * flow towards CUBIC.
 */
function misnamedGroup(): Model {
  const m = shipped();
  const g = gnbOf(m);
  const htcpClass = g.classes.find((c) => c.label === 'HTCP@tcp-nebby-50.quiet')!;
  (m.classifiers['loss-based'] as LossBasedParams).gnb = { ...g, classes: [{ ...htcpClass, label: 'CUBIC@tcp-nebby-50' }] };
  return m;
}

const gated = (): Model => spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.rdtest', needReordering: 0.002 });

/** The loss-based posterior of the H-TCP flow, its measured reordering set to `share`. */
function posteriorOf(m: Model, share: number | null): Record<string, number> {
  const s = toSeries(htcp);
  expect(s.conditions).toBeDefined();
  s.conditions = { ...(s.conditions as FlowConditions), reorderShare: share };
  return classifyFlow(s, m).evidence!.claims.find((c) => c.classifier === 'loss-based')?.posterior ?? {};
}

describe('groups of a reordered condition', () => {
  it('are recorded with the least reordering they need, per group suffix', () => {
    const m = gated();
    const shippedGates = (shipped().classifiers['loss-based'] as LossBasedParams).groupsNeedReordering;
    // The shipped model's own reordering groups (labs/grid-reorder.ts) keep theirs.
    expect(shippedGates).toMatchObject({ '.rd30': 0.002, '.rd140': 0.002 });
    expect((m.classifiers['loss-based'] as LossBasedParams).groupsNeedReordering).toEqual({ ...shippedGates, '.rdtest': 0.002 });
    expect(gnbOf(m).classes.map((c) => c.label)).toContain('CUBIC@tcp-nebby-50.rdtest');
    // Saved and loaded again, the gate stays.
    expect((parseModel(JSON.parse(JSON.stringify(m))).classifiers['loss-based'] as LossBasedParams).groupsNeedReordering).toEqual({ ...shippedGates, '.rdtest': 0.002 });
  });

  it('leave a flow without reordering (or with reordering unmeasured) exactly as the model without them judges it', () => {
    // The reference is built apart from the gate: every reordering group removed by name, the
    // priors set uniform over labels as splice.ts does, no gate left.
    const ref = shipped();
    const lb = ref.classifiers['loss-based'] as LossBasedParams;
    const kept = lb.gnb.classes.filter((c) => !/\.rdv?\d+$/.test(c.label));
    const groups = new Map<string, number>();
    for (const c of kept) groups.set(c.label.split('@')[0], (groups.get(c.label.split('@')[0]) ?? 0) + 1);
    lb.gnb = { ...lb.gnb, classes: kept.map((c) => ({ ...c, prior: 1 / (groups.size * groups.get(c.label.split('@')[0])!) })) };
    delete lb.groupsNeedReordering;
    // The shipped model's priors without its reordering groups: CUBIC's 27 groups of session 50 and
    // the `.beyond` groups of session 55 and `.beyond2` of session 60, of 16 labels.
    const cubicBeyond = kept.filter((c) => /^CUBIC@.*\.beyond2?$/.test(c.label)).length;
    expect(cubicBeyond).toBeGreaterThan(0);
    expect(lb.gnb.classes.find((c) => c.label === 'CUBIC@tcp-nebby-50')!.prior).toBeCloseTo(1 / (16 * (27 + cubicBeyond)), 12);
    // The gate hands the naive Bayes the reference's classes with the reference's priors...
    const params = shipped().classifiers['loss-based'] as LossBasedParams;
    for (const share of [0, 0.0019, null]) {
      const shut = reorderingGroups(params.gnb, params.groupsNeedReordering, share).classes;
      expect(shut.map((c) => [c.label, c.prior])).toEqual(lb.gnb.classes.map((c) => [c.label, c.prior]));
    }
    expect(reorderingGroups(params.gnb, params.groupsNeedReordering, 0.002)).toBe(params.gnb);
    // ... so the flow's posterior is the reference's.
    const base = posteriorOf(ref, 0);
    expect(Object.keys(base)).toContain('HTCP');
    for (const share of [0, 0.0019, null]) {
      const p = posteriorOf(gated(), share);
      expect(Object.keys(p).sort()).toEqual(Object.keys(base).sort());
      for (const [label, v] of Object.entries(base)) expect(p[label], `${label} at ${share}`).toBeCloseTo(v, 12);
    }
  });

  it('judge a flow that measured at least that much reordering', () => {
    for (const share of [0.002, 0.01]) {
      const base = posteriorOf(shipped(), share);
      const p = posteriorOf(gated(), share);
      // The misnamed group holds the H-TCP flow as well as H-TCP's own group does: CUBIC gains.
      expect(p.CUBIC ?? 0, `at ${share}`).toBeGreaterThan((base.CUBIC ?? 0) + 0.1);
      expect(p.HTCP ?? 0, `at ${share}`).toBeLessThan(base.HTCP ?? 0);
    }
  });

  it('need a suffix of their own: none, one without a dot, or one the model\'s groups already end in is refused', () => {
    expect(() => spliceModels(shipped(), misnamedGroup(), { needReordering: 0.002 })).toThrow(/suffix/);
    expect(() => spliceModels(shipped(), misnamedGroup(), { groupSuffix: 'rdtest', needReordering: 0.002 })).toThrow(/starting with a dot/);
    // `.quiet` is add-lab-rounds.ts's default suffix, and the shipped model's quiet-host groups'.
    expect(() => spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.quiet', needReordering: 0.002 })).toThrow(/already has groups ending in \.quiet/);
  });

  it('without a gate, judge every flow (the splice as before)', () => {
    const open = spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.rdtest' });
    expect(Object.keys((open.classifiers['loss-based'] as LossBasedParams).groupsNeedReordering ?? {})).not.toContain('.rdtest');
    expect(posteriorOf(open, 0).CUBIC ?? 0).toBeGreaterThan((posteriorOf(shipped(), 0).CUBIC ?? 0) + 0.1);
  });
});
