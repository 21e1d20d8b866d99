/**
 * spliceModels: classes trained elsewhere join a model's own as further groups of their labels;
 * the model's own classes, pipeline and rule classifiers stay; priors stay uniform over labels.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseModel, type Model } from '../../../src/classify/index.js';
import { spliceModels } from '../../../src/classify/splice.js';
import type { LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';

const shipped = (): Model => parseModel(JSON.parse(readFileSync('models/ccbrowse-model.json', 'utf8')));
const gnbOf = (m: Model) => (m.classifiers['loss-based'] as LossBasedParams).gnb;

/** A model whose learned classes are copies of the shipped model's, renamed to another group. */
function elsewhere(group: string, labels: string[]): Model {
  const m = shipped();
  const g = gnbOf(m);
  const classes = g.classes.filter((c) => c.label.endsWith('@tcp-nebby-50') && labels.some((l) => c.label.startsWith(`${l}@`)))
    .map((c) => ({ ...c, label: c.label.replace('@tcp-nebby-50', `@${group}`) }));
  (m.classifiers['loss-based'] as LossBasedParams).gnb = { ...g, classes };
  m.envelope = { ...m.envelope!, tcp: [[1, 2, 3, 0.5, 1, 0, 0, 0, 2]], quic: [] };
  return m;
}

describe('spliceModels', () => {
  it('adds groups beside the base classes and keeps the base classes as they were', () => {
    const base = shipped();
    const out = spliceModels(base, elsewhere('tcp-video', ['CUBIC', 'NewReno']), { groupSuffix: '.grid' });
    const labels = gnbOf(out).classes.map((c) => c.label);
    expect(labels).toContain('CUBIC@tcp-video.grid');
    expect(labels).toContain('NewReno@tcp-video.grid');
    expect(labels.length).toBe(gnbOf(base).classes.length + 2);
    const before = gnbOf(base).classes.find((c) => c.label === 'CUBIC@tcp-nebby-50')!;
    const after = gnbOf(out).classes.find((c) => c.label === 'CUBIC@tcp-nebby-50')!;
    expect(after.mean).toEqual(before.mean);
    expect(out.pipeline).toEqual(base.pipeline);
    expect(out.classifiers.bbr).toEqual(base.classifiers.bbr);
  });

  it('keeps priors uniform over labels, however many groups a label has', () => {
    const out = spliceModels(shipped(), elsewhere('tcp-video', ['CUBIC']), { groupSuffix: '.grid' });
    const perLabel = new Map<string, number>();
    for (const c of gnbOf(out).classes) perLabel.set(c.label.split('@')[0], (perLabel.get(c.label.split('@')[0]) ?? 0) + c.prior);
    const masses = [...perLabel.values()];
    for (const m of masses) expect(m).toBeCloseTo(1 / masses.length, 9);
  });

  it('unites the envelopes and filters by label', () => {
    const base = shipped();
    const out = spliceModels(base, elsewhere('tcp-video', ['CUBIC', 'NewReno']), { groupSuffix: '.grid', labels: (l) => l === 'CUBIC' });
    expect(gnbOf(out).classes.some((c) => c.label === 'NewReno@tcp-video.grid')).toBe(false);
    expect(gnbOf(out).classes.some((c) => c.label === 'CUBIC@tcp-video.grid')).toBe(true);
    expect(out.envelope!.tcp.length).toBe(base.envelope!.tcp.length + 1);
  });

  it('refuses models whose pipelines differ', () => {
    const other = elsewhere('tcp-video', ['CUBIC']);
    other.pipeline = { ...other.pipeline, path: { fullRtt: true, invisiblePipe: true } };
    expect(() => spliceModels(shipped(), other)).toThrow(/different pipelines/);
  });
});
