import { describe, expect, it } from 'vitest';
import type { AssetType, VerdictKind } from '../../../src/results/index.js';
import { changes, dominantLabel, ingestRun, landscape, matrix, openStore, snapshot, type IngestInput, type Store } from '../../../src/store/index.js';

/** One run whose asset types are each served by one flow with the given label (and bytes). */
function run(site: string, region: string, date: string, served: Partial<Record<AssetType, [string, number?, VerdictKind?]>>, n = 0): IngestInput {
  const runId = `${site}_${region}_${date}_${n}`.replace(/[^\x21-\x7e]/g, '_');
  const flows: IngestInput['flows'] = [];
  const verdicts: IngestInput['verdicts'] = [];
  const assets: IngestInput['assets'] = [];
  Object.entries(served).forEach(([type, [label, bytes = 1000, kind]], i) => {
    const id = `f${i}`;
    flows.push({ id, profile: 'p', protocol: 'tcp', transport: 'tcp', client: { ip: '10.0.0.2', port: 1000 + i }, server: { ip: '10.0.0.1', port: 443 }, bytes: { down: bytes, up: 1 }, packets: { down: 1, up: 1 }, startMs: 0, durationMs: 1, rttMs: 100, bifMethod: 'tcp-seq-ack', retransmissions: 0 });
    const k: VerdictKind = kind ?? (['Short flow', 'Unknown'].includes(label) ? (label === 'Unknown' ? 'unknown' : 'short-flow') : 'cca');
    verdicts.push({ flowId: id, label, kind: k, confidence: k === 'cca' ? 0.8 : 0, reason: 'r', posterior: {}, evidence: null });
    assets.push({ harIndex: i, profile: 'p', url: `https://${site}/${i}`, host: site, assetType: type as AssetType, mime: 'x', bytes, flowId: id, protocol: 'h2', startMs: 0, endMs: 1 });
  });
  return {
    run: { schemaVersion: 1, runId, scenario: { name: 's', kind: 'static', file: 'f.ts' }, site, startUrl: `https://${site}/`, region, mode: 'internet', profiles: [{ name: 'p' }], startedAt: `${date}T12:00:00.000Z`, endedAt: `${date}T12:01:00.000Z`, status: 'complete', versions: { tool: 't', browser: 'b', model: 'm' } },
    flows,
    verdicts,
    assets,
    model: 'm',
  };
}

function store(...runs: IngestInput[]): Store {
  const s = openStore(':memory:');
  for (const r of runs) ingestRun(s, r);
  return s;
}

describe('dominantLabel', () => {
  const t = (label: string, kind: string, bytes: number, flows = 1, conf = 0.8) => ({ label, kind, bytes, flows, assets: 1, confBytes: conf * bytes });
  it('a CCA answer beats non-answers that carried more bytes', () => {
    const d = dominantLabel([t('Short flow', 'short-flow', 9000), t('CUBIC', 'cca', 100)])!;
    expect(d.label).toBe('CUBIC');
    expect(d.share).toBe(1);
    expect(d.others).toEqual([{ label: 'Short flow', share: 9000 / 9100 }]);
  });
  it('most bytes wins, then most flows, then the name; confidence is byte-weighted', () => {
    expect(dominantLabel([t('CUBIC', 'cca', 100), t('BBRv1', 'cca', 300)])!.label).toBe('BBRv1');
    expect(dominantLabel([t('CUBIC', 'cca', 100, 1), t('BBRv1', 'cca', 100, 2)])!.label).toBe('BBRv1');
    expect(dominantLabel([t('CUBIC', 'cca', 100), t('BBRv1', 'cca', 100)])!.label).toBe('BBRv1');
    const d = dominantLabel([{ label: 'CUBIC', kind: 'cca', bytes: 400, flows: 2, assets: 2, confBytes: 0.9 * 100 + 0.5 * 300 }])!;
    expect(d.confidence).toBeCloseTo(0.6);
  });
  it('only non-answers: the biggest of them', () => {
    expect(dominantLabel([t('Unknown', 'unknown', 10), t('Short flow', 'short-flow', 20)])!.label).toBe('Short flow');
    expect(dominantLabel([])).toBeNull();
  });
});

describe('snapshot, landscape and matrix', () => {
  const s = store(
    run('a.example', 'eu', '2025-01-01', { video: ['NewReno'], image: ['CUBIC'] }),
    run('a.example', 'eu', '2025-03-01', { video: ['BBRv1'], image: ['CUBIC'] }),
    run('a.example', 'sg', '2025-03-01', { video: ['CUBIC'], image: ['CUBIC'] }),
    run('b.example', 'eu', '2025-03-01', { image: ['Short flow'], script: ['BBRv1', 5000] }),
    run('b.example', 'sg', '2025-03-01', { image: ['BBRv1'], script: ['Unknown'] }),
  );
  it('takes the latest date of each site and region (or the one on/before asOf)', () => {
    const snap = snapshot(s);
    expect(snap.cells.filter((c) => c.site === 'a.example' && c.region === 'eu').map((c) => [c.assetType, c.dominant.label, c.date]).sort()).toEqual([
      ['image', 'CUBIC', '2025-03-01'],
      ['video', 'BBRv1', '2025-03-01'],
    ]);
    const old = snapshot(s, '2025-02-01');
    expect(old.cells.map((c) => [c.site, c.region, c.assetType, c.dominant.label]).sort()).toEqual([
      ['a.example', 'eu', 'image', 'CUBIC'],
      ['a.example', 'eu', 'video', 'NewReno'],
    ]);
  });
  it('counts sites per label by region and asset type', () => {
    const l = landscape(s);
    expect(l.regions).toEqual(['eu', 'sg']);
    const eu = l.byRegion.find((r) => r.region === 'eu')!;
    // a.example/eu: BBRv1 (video 1000 B) vs CUBIC (image 1000 B): tie on bytes and flows -> name order (BBRv1)
    // b.example/eu: BBRv1 (5000 B) beats Short flow
    expect({ ...eu.counts }).toEqual({ BBRv1: 2 });
    expect({ ...l.byRegion.find((r) => r.region === 'sg')!.counts }).toEqual({ CUBIC: 1, BBRv1: 1 });
    expect(l.allRegions.total).toBe(4);
    const img = l.byAssetType['*'].find((r) => r.assetType === 'image')!;
    expect({ ...img.counts }).toEqual({ CUBIC: 2, 'Short flow': 1, BBRv1: 1 });
    expect(l.byAssetType['eu'].find((r) => r.assetType === 'video')!.total).toBe(1);
    expect(l.flowsByRegion.find((r) => r.region === 'sg')!.total).toBe(4);
  });
  it('marks an asset type whose CCA answer differs across regions, not a non-answer', () => {
    const m = matrix(s);
    const a = m.rows.find((r) => r.site === 'a.example')!;
    expect(a.differs).toEqual(['video']);
    const b = m.rows.find((r) => r.site === 'b.example')!;
    // image: Short flow (eu) vs BBRv1 (sg) is not a difference; script: BBRv1 vs Unknown neither
    expect(b.differs).toEqual([]);
    expect(b.cells['script']['sg'].label).toBe('Unknown');
    expect(m.assetTypes).toEqual(['image', 'script', 'video']);
  });
  it('adds up repeated runs of the same date (a majority by bytes)', () => {
    const r = store(
      run('c.example', 'eu', '2025-03-01', { video: ['BBRv1', 1000] }, 1),
      run('c.example', 'eu', '2025-03-01', { video: ['CUBIC', 1500] }, 2),
      run('c.example', 'eu', '2025-03-01', { video: ['BBRv1', 1000] }, 3),
    );
    const cell = matrix(r).rows[0].cells['video']['eu'];
    expect(cell.label).toBe('BBRv1');
    expect(cell.share).toBeCloseTo(2000 / 3500);
    expect(cell.flows).toBe(2);
  });
});

describe('changes', () => {
  it('reports a CCA that changed between dates, skipping non-answers in between', () => {
    const s = store(
      run('a.example', 'eu', '2025-01-01', { video: ['CUBIC'], image: ['CUBIC'] }),
      run('a.example', 'eu', '2025-02-01', { video: ['Short flow'], image: ['CUBIC'] }),
      run('a.example', 'eu', '2025-03-01', { video: ['BBRv1'], image: ['CUBIC'] }),
      run('b.example', 'eu', '2025-01-01', { video: ['CUBIC'] }),
      run('b.example', 'eu', '2025-03-01', { video: ['Unknown'] }),
    );
    const c = changes(s);
    expect(c.dates).toEqual(['2025-01-01', '2025-02-01', '2025-03-01']);
    expect(c.changes).toHaveLength(1);
    expect(c.changes[0]).toMatchObject({ site: 'a.example', region: 'eu', assetType: 'video', from: { date: '2025-01-01', label: 'CUBIC' }, to: { date: '2025-03-01', label: 'BBRv1' } });
    expect(c.perDate.find((d) => d.date === '2025-02-01')!.total).toBe(2);
  });
});

describe('hostile strings as keys', () => {
  it('a label or region named __proto__ is counted, and pollutes nothing', () => {
    const s = store(run('x.example', '__proto__', '2025-01-01', { image: ['__proto__'], video: ['constructor'] }));
    const l = landscape(s);
    expect(l.regions).toEqual(['__proto__']);
    expect(l.byAssetType['__proto__'].map((r) => r.assetType)).toEqual(['image', 'video']);
    expect(Object.entries(l.byAssetType['*'][0].counts)).toEqual([['__proto__', 1]]);
    const m = matrix(s);
    expect(m.rows[0].cells['image']['__proto__'].label).toBe('__proto__');
    expect(({} as Record<string, unknown>)['label']).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
