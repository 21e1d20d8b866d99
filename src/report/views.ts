/**
 * From store query results to the compact views the pages embed (see contract.ts). Pure:
 * no I/O, so tests feed it objects.
 */
import type { Changes, Landscape, LabelCounts, Matrix, MatrixRow, SiteRun } from '../store/queries.js';
import type { LabBench } from '../results/labBench.js';
import { encodeAssets, encodeCell, type ChangesView, type CountsRow, type LabelInfo, type LandscapeView, type LabView, type MatrixView, type SiteRunView, type SiteView } from './contract.js';

/** Label name -> index into the report's one label list. */
export class LabelIndex {
  private readonly index = new Map<string, number>();
  constructor(readonly infos: readonly LabelInfo[]) {
    infos.forEach((l, i) => this.index.set(l.name, i));
  }
  of(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`label "${name}" missing from the report's label list`);
    return i;
  }
  counts(lc: LabelCounts): number[] {
    const out = new Array<number>(this.infos.length).fill(0);
    for (const [name, n] of Object.entries(lc.counts)) out[this.of(name)] += n;
    return out;
  }
}

function row(key: string, lc: LabelCounts, L: LabelIndex): CountsRow {
  return { key, total: lc.total, counts: L.counts(lc) };
}

export function landscapeView(l: Landscape, L: LabelIndex): LandscapeView {
  return {
    regions: l.regions,
    assetTypes: l.assetTypes,
    byRegion: l.byRegion.map((r) => row(r.region, r, L)),
    allRegions: row('*', l.allRegions, L),
    byAssetType: ['*', ...l.regions].map((region) => ({ region, rows: (l.byAssetType[region] ?? []).map((r) => row(r.assetType, r, L)) })),
    flowsByRegion: l.flowsByRegion.map((r) => row(r.region, r, L)),
  };
}

/** One site's cells, in the matrix encoding, and its differs bit mask. */
export function encodeRow(r: MatrixRow, regions: readonly string[], assetTypes: readonly string[], L: LabelIndex): { cells: number[]; differs: number } {
  const cells: number[] = [];
  let differs = 0;
  assetTypes.forEach((t, ti) => {
    const byRegion = r.cells[t];
    for (const region of regions) {
      const c = byRegion?.[region];
      cells.push(c ? encodeCell(L.of(c.label), c.confidence, c.share) : -1);
    }
    if (r.differs.includes(t)) differs |= 1 << ti;
  });
  return { cells, differs };
}

export function matrixView(m: Matrix, L: LabelIndex, slugOf: (site: string) => string): MatrixView {
  if (m.assetTypes.length > 30) throw new Error(`${m.assetTypes.length} asset types: the matrix encodes at most 30`);
  const dates: string[] = [];
  const dateIdx = new Map<string, number>();
  const v: MatrixView = { regions: m.regions, assetTypes: m.assetTypes, sites: [], slugs: [], differs: [], cells: [], siteDates: [], dates };
  for (const r of m.rows) {
    const enc = encodeRow(r, m.regions, m.assetTypes, L);
    v.sites.push(r.site);
    v.slugs.push(slugOf(r.site));
    v.differs.push(enc.differs);
    for (const c of enc.cells) v.cells.push(c);
    for (const region of m.regions) {
      let date: string | undefined;
      for (const t of m.assetTypes) date ??= r.cells[t]?.[region]?.date;
      if (date === undefined) v.siteDates.push(-1);
      else {
        let i = dateIdx.get(date);
        if (i === undefined) dateIdx.set(date, (i = dates.push(date) - 1));
        v.siteDates.push(i);
      }
    }
  }
  return v;
}

function runView(r: SiteRun): SiteRunView {
  return {
    runId: r.runId,
    region: r.region,
    date: r.date,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    status: r.status,
    incompleteReason: r.incompleteReason,
    scenario: r.scenario,
    startUrl: r.startUrl,
    mode: r.mode,
    profiles: r.profiles,
    repeat: r.repeat,
    versions: r.versions,
    detailed: r.detailed,
    flowCount: r.flowCount,
    assetCount: r.assetCount,
    flows: r.flows.map((f) => ({
      ...f,
      verdict: f.verdict ? { ...f.verdict, posterior: Object.entries(f.verdict.posterior).sort((a, b) => b[1] - a[1]) } : null,
    })),
    assets: encodeAssets(r.assets),
  };
}

export function siteView(site: string, slug: string, runs: SiteRun[], row: MatrixRow | undefined, m: Matrix, L: LabelIndex): SiteView {
  const enc = row ? encodeRow(row, m.regions, m.assetTypes, L) : { cells: [], differs: 0 };
  return { site, slug, regions: m.regions, assetTypes: m.assetTypes, cells: enc.cells, differs: enc.differs, runs: runs.map(runView) };
}

export function changesView(c: Changes, L: LabelIndex, slugOf: (site: string) => string): ChangesView {
  return {
    dates: c.dates,
    perDate: c.perDate.map((d) => row(d.date, d, L)),
    changes: c.changes.map((x) => [x.site, slugOf(x.site), x.region, x.assetType, x.from.date, L.of(x.from.label), x.from.confidence, x.to.date, L.of(x.to.label), x.to.confidence]),
  };
}

export function labView(benches: LabBench[]): LabView {
  return { benches };
}
