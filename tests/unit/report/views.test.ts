import { describe, expect, it } from 'vitest';
import { decodeAssets, decodeCell, encodeAssets, encodeCell, labelInfos } from '../../../src/report/index.js';
import { readRunDir } from '../../../src/results/index.js';
import { LabelIndex, matrixView } from '../../../src/report/views.js';
import type { Matrix } from '../../../src/store/index.js';

describe('cell encoding', () => {
  it('round-trips label, confidence and share at 0.01 resolution', () => {
    for (const [l, c, s] of [[0, 0, 0], [3, 0.87, 0.5], [29, 1, 1], [7, 0.004, 0.996]] as const) {
      const d = decodeCell(encodeCell(l, c, s))!;
      expect(d.label).toBe(l);
      expect(d.confidence).toBeCloseTo(Math.round(c * 100) / 100, 10);
      expect(d.share).toBeCloseTo(Math.round(s * 100) / 100, 10);
    }
    expect(decodeCell(-1)).toBeNull();
  });
});

describe('matrixView', () => {
  const dom = (label: string, confidence: number, date: string) => ({ label, kind: 'cca', confidence, share: 1, bytes: 1, flows: 1, others: [], date });
  const m: Matrix = {
    regions: ['eu', 'sg'],
    assetTypes: ['image', 'video'],
    rows: [
      { site: 'a', cells: { video: { eu: dom('BBRv1', 0.9, '2025-01-01'), sg: dom('CUBIC', 0.7, '2025-01-02') } }, differs: ['video'] },
      { site: 'b', cells: { image: { sg: dom('CUBIC', 0.5, '2025-01-02') } }, differs: [] },
    ],
  };
  it('lays cells out as site x type x region with -1 for gaps, differs as a bit mask', () => {
    const L = new LabelIndex(labelInfos([{ name: 'CUBIC', kind: 'cca' }, { name: 'BBRv1', kind: 'cca' }]));
    const v = matrixView(m, L, (s) => `slug-${s}`);
    expect(v.cells).toHaveLength(2 * 2 * 2);
    expect(v.cells.slice(0, 2)).toEqual([-1, -1]); // a/image
    expect(decodeCell(v.cells[2])).toEqual({ label: L.of('BBRv1'), confidence: 0.9, share: 1 }); // a/video/eu
    expect(decodeCell(v.cells[3])!.label).toBe(L.of('CUBIC')); // a/video/sg
    expect(v.differs).toEqual([0b10, 0]);
    expect(v.slugs).toEqual(['slug-a', 'slug-b']);
    expect(v.siteDates.map((i) => (i < 0 ? null : v.dates[i]))).toEqual(['2025-01-01', '2025-01-02', null, '2025-01-02']);
  });
});

describe('LabelIndex', () => {
  it('turns per-label dictionaries into arrays, even for hostile names', () => {
    const L = new LabelIndex(labelInfos([{ name: '__proto__', kind: 'cca' }, { name: 'CUBIC', kind: 'cca' }]));
    const counts = Object.create(null) as Record<string, number>;
    counts['__proto__'] = 2;
    counts['CUBIC'] = 3;
    const arr = L.counts({ total: 5, counts });
    expect(arr[L.of('__proto__')]).toBe(2);
    expect(arr[L.of('CUBIC')]).toBe(3);
    expect(() => L.of('BBRv9')).toThrow(/missing/);
  });
});

describe('asset columns', () => {
  it('round-trips the assets of a run and is much smaller than the objects', () => {
    const d = readRunDir(new URL('../../fixtures/results/run-minimal', import.meta.url).pathname);
    const many = Array.from({ length: 40 }, (_, i) => d.assets.map((a) => ({ ...a, harIndex: a.harIndex + i * 10 }))).flat();
    const enc = encodeAssets(many);
    expect(decodeAssets(JSON.parse(JSON.stringify(enc)))).toEqual(many);
    expect(JSON.stringify(enc).length).toBeLessThan(0.6 * JSON.stringify(many).length);
    expect(enc.strings).toContain('static.lab.example');
  });
});
