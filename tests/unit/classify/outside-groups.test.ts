/**
 * Groups added beyond a model's trained conditions judge only flows that lie outside them
 * (lossBased.ts groupsNeedOutside, session 55). A flow within the gate's distance of the base
 * model's envelope, or one that carries no conditions, is judged exactly as by the base model; a
 * flow further out meets the added groups too. A gate with `unheld` (session 56) also opens to a
 * nearer flow no other group's shapes hold, and their reading stands only if they hold it.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, parseModel, type Model } from '../../../src/classify/index.js';
import { outsideGroups, type LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';
import { checkEnvelope } from '../../../src/classify/envelope.js';
import { spliceModels } from '../../../src/classify/splice.js';
import type { BifSeries, FlowConditions } from '../../../src/trace/types.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { withoutGroupsBeyond } from './shippedModel.js';

const shipped = (): Model => parseModel(JSON.parse(readFileSync('models/ccbrowse-model.json', 'utf8')));
const lossBasedOf = (m: Model) => m.classifiers['loss-based'] as LossBasedParams;
const FIXTURE = new URL('../../fixtures/lab-series/fresh-near-quiet.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const htcp = entries.find((e) => e.origin === 'tcp-htcp' && e.profile === 'nebby-50')!;
const GATE = 0.3;

/** A model whose one learned class is H-TCP's own quiet-host nebby-50 shape called CUBIC: added groups that, when they judge, pull the H-TCP flow towards CUBIC. */
function misnamedGroup(): Model {
  const m = shipped();
  const g = lossBasedOf(m).gnb;
  const htcpClass = g.classes.find((c) => c.label === 'HTCP@tcp-nebby-50.quiet')!;
  lossBasedOf(m).gnb = { ...g, classes: [{ ...htcpClass, label: 'CUBIC@tcp-nebby-50' }] };
  return m;
}

const gated = (): Model => spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.outtest', needOutside: GATE });

/** The H-TCP flow as captured (inside the trained conditions), with segments half as large again (outside by more than the gate), or without conditions. */
function flow(kind: 'as captured' | 'larger segments' | 'no conditions'): BifSeries {
  const s = toSeries(htcp);
  const c = s.conditions as FlowConditions;
  if (kind === 'larger segments') s.conditions = { ...c, segmentBytes: Math.round(c.segmentBytes * 1.5) };
  if (kind === 'no conditions') delete s.conditions;
  return s;
}

const lossClaimOf = (m: Model, s: BifSeries) => classifyFlow(s, m).evidence!.claims.find((c) => c.classifier === 'loss-based')!;
const posteriorOf = (m: Model, s: BifSeries): Record<string, number> => lossClaimOf(m, s).posterior ?? {};

describe('groups added beyond the trained conditions', () => {
  it('are recorded with the base model\'s envelope and the distance they need, per group suffix, and survive a save', () => {
    const m = gated();
    const gate = lossBasedOf(m).groupsNeedOutside?.['.outtest'];
    expect(gate?.beyond).toBe(GATE);
    expect(gate?.envelope).toEqual(shipped().envelope);
    expect(lossBasedOf(parseModel(JSON.parse(JSON.stringify(m)))).groupsNeedOutside?.['.outtest']).toEqual(gate);
    expect(lossBasedOf(m).gnb.classes.map((c) => c.label)).toContain('CUBIC@tcp-nebby-50.outtest');
  });

  it('leave a flow inside the gate, or without conditions, exactly as the base model judges it', () => {
    const base = shipped();
    const near = flow('as captured');
    expect(checkEnvelope(base.envelope, near.conditions).distance).toBeLessThanOrEqual(GATE);
    const params = lossBasedOf(gated());
    // The gate hands the naive Bayes the base's classes with the base's priors...
    for (const c of [near.conditions ?? null, null]) {
      const shut = outsideGroups(params.gnb, params.groupsNeedOutside, c).classes;
      const ref = outsideGroups(lossBasedOf(base).gnb, lossBasedOf(base).groupsNeedOutside, c).classes;
      expect(shut.map((x) => [x.label, x.prior])).toEqual(ref.map((x) => [x.label, x.prior]));
    }
    // ... so the flow's posterior is the base's, and no answer rests on the added groups.
    for (const kind of ['as captured', 'no conditions'] as const) {
      const want = posteriorOf(base, flow(kind));
      const got = posteriorOf(gated(), flow(kind));
      expect(lossClaimOf(gated(), flow(kind)).beyondTrained, kind).toBeUndefined();
      expect(want.HTCP ?? 0, kind).toBeGreaterThan(0.5);
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const [label, v] of Object.entries(want)) expect(got[label], `${label}, ${kind}`).toBeCloseTo(v, 12);
    }
  });

  it('judge a flow further out than the gate', () => {
    const far = flow('larger segments');
    const d = checkEnvelope(shipped().envelope, far.conditions).distance;
    expect(d).toBeGreaterThan(GATE);
    expect(d).toBeLessThanOrEqual(1);
    const base = posteriorOf(shipped(), far);
    const p = posteriorOf(gated(), far);
    // The misnamed group holds the H-TCP flow as well as H-TCP's own group does: CUBIC gains, and
    // CUBIC rests on the added group (the other groups alone found H-TCP likeliest).
    expect(p.CUBIC ?? 0).toBeGreaterThan((base.CUBIC ?? 0) + 0.1);
    expect(p.HTCP ?? 0).toBeLessThan(base.HTCP ?? 0);
    expect(lossClaimOf(gated(), far).beyondTrained).toContain('CUBIC');
    // Past the flow's own distance, the same groups stay shut.
    const shutFurther = spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.outtest', needOutside: d + 0.01 });
    expect(posteriorOf(shutFurther, far).CUBIC ?? 0).toBeCloseTo(base.CUBIC ?? 0, 12);
  });

  it('with `unheld`, also judge a flow inside the gate that no other group holds, and only such a flow', () => {
    // A base without H-TCP's groups holds the H-TCP flow in no class (checked), so it has no answer
    // to lose; without the shipped model's own groups beyond its conditions, which open to it too.
    const noHtcp = withoutGroupsBeyond(shipped());
    const g = lossBasedOf(noHtcp).gnb;
    lossBasedOf(noHtcp).gnb = { ...g, classes: g.classes.filter((c) => !c.label.startsWith('HTCP@')) };
    const near = flow('as captured');
    expect(checkEnvelope(noHtcp.envelope, near.conditions).distance).toBeLessThanOrEqual(GATE);
    expect(lossClaimOf(noHtcp, near).inDistribution).toEqual([]);
    const opens = spliceModels(noHtcp, misnamedGroup(), { groupSuffix: '.outtest', needOutside: GATE, unheld: true });
    expect(lossBasedOf(parseModel(JSON.parse(JSON.stringify(opens)))).groupsNeedOutside?.['.outtest']?.unheld).toBe(true);
    const shut = spliceModels(noHtcp, misnamedGroup(), { groupSuffix: '.outtest', needOutside: GATE });
    expect(lossClaimOf(shut, near).inDistribution).toEqual([]);
    const claim = lossClaimOf(opens, near);
    expect(claim.inDistribution).toEqual(['CUBIC']);
    // The other groups named nothing, so the answer rests on the added ones (one profile will not give it).
    expect(claim.beyondTrained).toEqual(['CUBIC']);
    // Without conditions the gate stays shut; and a flow the base holds is judged as the base judges it.
    expect(lossClaimOf(opens, flow('no conditions')).inDistribution).toEqual(lossClaimOf(noHtcp, flow('no conditions')).inDistribution);
    const held = spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.outtest', needOutside: GATE, unheld: true });
    const want = posteriorOf(shipped(), near);
    const got = posteriorOf(held, near);
    for (const [label, v] of Object.entries(want)) expect(got[label], label).toBeCloseTo(v, 12);
    expect(() => spliceModels(noHtcp, misnamedGroup(), { groupSuffix: '.outtest', unheld: true })).toThrow(/needOutside/);
  });

  it('with `unheld`, leave a flow the opened groups do not hold either as the base reads it, posterior included', () => {
    const noHtcp = withoutGroupsBeyond(shipped());
    const g = lossBasedOf(noHtcp).gnb;
    lossBasedOf(noHtcp).gnb = { ...g, classes: g.classes.filter((c) => !c.label.startsWith('HTCP@')) };
    // An added group of another shape (BBRv1's nebby-50 class): it does not hold the H-TCP flow (checked).
    const other = shipped();
    const og = lossBasedOf(other).gnb;
    lossBasedOf(other).gnb = { ...og, classes: og.classes.filter((c) => c.label === 'BBRv1@tcp-nebby-50') };
    const near = flow('as captured');
    expect(lossClaimOf(other, near).inDistribution).toEqual([]);
    const opens = spliceModels(noHtcp, other, { groupSuffix: '.outtest', needOutside: GATE, unheld: true });
    const want = posteriorOf(noHtcp, near);
    const got = posteriorOf(opens, near);
    expect(lossClaimOf(opens, near).inDistribution).toEqual([]);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [label, v] of Object.entries(want)) expect(got[label], label).toBeCloseTo(v, 12);
  });

  it('need a suffix of their own and a base model with an envelope', () => {
    expect(() => spliceModels(shipped(), misnamedGroup(), { needOutside: GATE })).toThrow(/suffix/);
    expect(() => spliceModels(shipped(), misnamedGroup(), { groupSuffix: '.quiet', needOutside: GATE })).toThrow(/already has groups ending in \.quiet/);
    const bare = shipped();
    delete bare.envelope;
    expect(() => spliceModels(bare, misnamedGroup(), { groupSuffix: '.outtest', needOutside: GATE })).toThrow(/envelope/);
  });
});
