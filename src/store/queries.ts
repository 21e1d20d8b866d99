/**
 * The questions the report asks the store. Each view is computed from cell rows (run x asset
 * type x label tallies) so that no query scans the assets table; the snapshot (the latest
 * date of each site and region, all runs of that date added up, so --repeat runs vote) is
 * read once and shared by the landscape and the matrix.
 */
import { inflateSync } from 'node:zlib';
import type { AssetRecord, Evidence, FlowRecord, ProfileRef, VerdictRecord } from '../results/schema.js';
import { dominantLabel, mergeTallies, type Dominant, type LabelTally } from './dominant.js';
import type { Store } from './open.js';

export interface StoreSummary {
  runs: number;
  incompleteRuns: number;
  sites: number;
  regions: string[];
  dates: string[];
  flows: number;
  assets: number;
  labBenchmarks: number;
}

export function storeSummary(store: Store): StoreSummary {
  const db = store.db;
  const one = (sql: string): number => (db.prepare(sql).pluck().get() as number | null) ?? 0;
  return {
    runs: one('SELECT COUNT(*) FROM runs'),
    incompleteRuns: one("SELECT COUNT(*) FROM runs WHERE status = 'incomplete'"),
    sites: one('SELECT COUNT(DISTINCT site) FROM runs'),
    regions: db.prepare('SELECT DISTINCT region FROM runs ORDER BY region').pluck().all() as string[],
    dates: db.prepare('SELECT DISTINCT date FROM runs ORDER BY date').pluck().all() as string[],
    flows: one('SELECT COUNT(*) FROM flows'),
    assets: one('SELECT COUNT(*) FROM assets'),
    labBenchmarks: one('SELECT COUNT(*) FROM lab_benchmarks'),
  };
}

// ------------------------------------------------------------------------------- snapshot

export interface SnapshotCell {
  site: string;
  region: string;
  date: string;
  assetType: string;
  dominant: Dominant;
}

export interface Snapshot {
  asOf: string | null;
  cells: SnapshotCell[];
  /** Per site and region: the label over all its asset types (by bytes). */
  sites: Array<{ site: string; region: string; date: string; dominant: Dominant }>;
  /** Flows per region and label in the snapshot's runs (every judged flow, with or without assets). */
  flows: Array<{ region: string; label: string; kind: string; flows: number }>;
}

const SNAP_CTE = `WITH latest AS (SELECT site, region, MAX(date) AS date FROM runs WHERE date <= @asOf GROUP BY site, region),
snap AS (SELECT r.run_pk, r.site, r.region, r.date FROM runs r JOIN latest l ON r.site = l.site AND r.region = l.region AND r.date = l.date)`;

type CellTuple = [string, string, string, string, string, string, number, number, number, number];

/** The newest date of each site and region (on or before asOf, a YYYY-MM-DD day). */
export function snapshot(store: Store, asOf?: string): Snapshot {
  // Rows arrive grouped by site and region (the scan follows runs_site_region_date), so tallies
  // are kept per group and flushed when the group changes: no key is built per row.
  const rows = store.db
    .prepare(`${SNAP_CTE}
      SELECT s.site, s.region, s.date, c.asset_type, c.label, c.kind, c.bytes, c.flows, c.assets, c.conf_bytes
      FROM snap s JOIN cells c ON c.run_pk = s.run_pk ORDER BY s.site, s.region`)
    .raw()
    .iterate({ asOf: asOf ?? '9999-12-31' }) as IterableIterator<CellTuple>;
  const cells: SnapshotCell[] = [];
  const sites: Snapshot['sites'] = [];
  let group: { site: string; region: string; date: string; byType: Map<string, Map<string, LabelTally>>; all: Map<string, LabelTally> } | null = null;
  const flush = (): void => {
    if (!group) return;
    for (const [assetType, t] of group.byType) cells.push({ site: group.site, region: group.region, date: group.date, assetType, dominant: dominantLabel([...t.values()])! });
    sites.push({ site: group.site, region: group.region, date: group.date, dominant: dominantLabel([...group.all.values()])! });
  };
  for (const [site, region, date, assetType, label, kind, bytes, flows, assets, confBytes] of rows) {
    if (!group || group.site !== site || group.region !== region) {
      flush();
      group = { site, region, date, byType: new Map(), all: new Map() };
    }
    let t = group.byType.get(assetType);
    if (!t) group.byType.set(assetType, (t = new Map()));
    const tally: LabelTally = { label, kind, bytes, flows, assets, confBytes };
    mergeTallies(group.all, tally); // copies on first sight
    mergeTallies(t, tally, true); // keeps this object
  }
  flush();
  const flows = store.db
    .prepare(`${SNAP_CTE}
      SELECT s.region AS region, v.label AS label, v.kind AS kind, COUNT(*) AS flows
      FROM snap s JOIN verdicts v ON v.run_pk = s.run_pk GROUP BY s.region, v.label, v.kind`)
    .all({ asOf: asOf ?? '9999-12-31' }) as Snapshot['flows'];
  return { asOf: asOf ?? null, cells, sites, flows };
}

// ------------------------------------------------------------------------------ landscape

export interface LabelCounts {
  total: number;
  counts: Record<string, number>;
}

export interface Landscape {
  regions: string[];
  assetTypes: string[];
  /** Every label that occurs, most frequent first. */
  labels: string[];
  /** Sites per label in each region (a site's label: the one carrying most of its bytes). */
  byRegion: Array<{ region: string } & LabelCounts>;
  /** The same over all regions (unit: a site in a region). */
  allRegions: LabelCounts;
  /** Sites serving each asset type, per label; key = region, or '*' for all regions. */
  byAssetType: Record<string, Array<{ assetType: string } & LabelCounts>>;
  /** Judged flows per label in each region. */
  flowsByRegion: Array<{ region: string } & LabelCounts>;
}

function bump(lc: LabelCounts, label: string, n = 1): void {
  lc.total += n;
  lc.counts[label] = (lc.counts[label] ?? 0) + n;
}
/** Keys are hostile strings (a label could be "__proto__"): dictionaries have no prototype. */
function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
const emptyCounts = (): LabelCounts => ({ total: 0, counts: dict<number>() });

export function landscapeOf(s: Snapshot): Landscape {
  const regions = [...new Set(s.sites.map((x) => x.region))].sort();
  const assetTypes = [...new Set(s.cells.map((c) => c.assetType))].sort();
  const freq = new Map<string, number>();
  const byRegion = new Map(regions.map((r) => [r, emptyCounts()]));
  const allRegions = emptyCounts();
  for (const x of s.sites) {
    bump(byRegion.get(x.region)!, x.dominant.label);
    bump(allRegions, x.dominant.label);
    freq.set(x.dominant.label, (freq.get(x.dominant.label) ?? 0) + 1);
  }
  const byAssetType: Landscape['byAssetType'] = dict();
  for (const key of ['*', ...regions]) byAssetType[key] = assetTypes.map((assetType) => ({ assetType, ...emptyCounts() }));
  for (const c of s.cells) {
    const i = assetTypes.indexOf(c.assetType);
    bump(byAssetType['*'][i], c.dominant.label);
    bump(byAssetType[c.region][i], c.dominant.label);
    freq.set(c.dominant.label, (freq.get(c.dominant.label) ?? 0) + 1);
  }
  const flowsByRegion = new Map(regions.map((r) => [r, emptyCounts()]));
  for (const f of s.flows) {
    const lc = flowsByRegion.get(f.region);
    if (lc) bump(lc, f.label, f.flows);
    if (!freq.has(f.label)) freq.set(f.label, 0);
  }
  return {
    regions,
    assetTypes,
    labels: [...freq.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([l]) => l),
    byRegion: regions.map((region) => ({ region, ...byRegion.get(region)! })),
    allRegions,
    byAssetType,
    flowsByRegion: regions.map((region) => ({ region, ...flowsByRegion.get(region)! })),
  };
}

export function landscape(store: Store, asOf?: string): Landscape {
  return landscapeOf(snapshot(store, asOf));
}

// --------------------------------------------------------------------------------- matrix

export interface MatrixCell extends Dominant {
  date: string;
}

export interface MatrixRow {
  site: string;
  /** cells[assetType][region] */
  cells: Record<string, Record<string, MatrixCell>>;
  /** Asset types whose CCA answer differs between regions (non-answers do not count). */
  differs: string[];
}

export interface Matrix {
  regions: string[];
  assetTypes: string[];
  rows: MatrixRow[];
}

/** Distinct CCA answers among a cell's regions > 1: the "differs across regions" mark. */
export function differsAcrossRegions(byRegion: Record<string, Dominant>): boolean {
  const answers = new Set(Object.values(byRegion).filter((d) => d.kind === 'cca').map((d) => d.label));
  return answers.size > 1;
}

export function matrixOf(s: Snapshot): Matrix {
  const rows = new Map<string, MatrixRow>();
  for (const c of s.cells) {
    let row = rows.get(c.site);
    if (!row) rows.set(c.site, (row = { site: c.site, cells: dict(), differs: [] }));
    // The snapshot's Dominant objects are ours: tag them with the date instead of copying.
    (row.cells[c.assetType] ??= dict())[c.region] = Object.assign(c.dominant, { date: c.date });
  }
  for (const row of rows.values()) {
    row.differs = Object.keys(row.cells).filter((t) => differsAcrossRegions(row.cells[t])).sort();
  }
  return {
    regions: [...new Set(s.cells.map((c) => c.region))].sort(),
    assetTypes: [...new Set(s.cells.map((c) => c.assetType))].sort(),
    rows: [...rows.values()].sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0)),
  };
}

export function matrix(store: Store, asOf?: string): Matrix {
  return matrixOf(snapshot(store, asOf));
}

// ------------------------------------------------------------------------------ site runs

export interface SiteFlow extends FlowRecord {
  verdict: VerdictRecord | null;
}

/** What the store and the report's site pages both say about a run (its details aside). */
export interface RunHeader {
  runId: string;
  region: string;
  date: string;
  startedAt: string;
  endedAt: string | null;
  status: 'complete' | 'incomplete';
  incompleteReason: string | null;
  scenario: { name: string; kind: string; file: string };
  startUrl: string;
  mode: string;
  profiles: ProfileRef[];
  repeat: { index: number; of: number } | null;
  versions: { tool: string; browser: string; model: string | null };
  /** False when flows and assets were not loaded or kept (see siteRuns' detail option). */
  detailed: boolean;
  flowCount: number;
  assetCount: number;
}

export interface SiteRun extends RunHeader {
  site: string;
  flows: SiteFlow[];
  assets: AssetRecord[];
}

interface RunRow {
  run_pk: number; run_id: string; site: string; region: string; date: string; started_at: string; ended_at: string | null;
  status: 'complete' | 'incomplete'; incomplete_reason: string | null; scenario_name: string; scenario_kind: string;
  scenario_file: string; start_url: string; mode: string; profiles: string; repeat_index: number | null; repeat_of: number | null;
  tool_version: string; browser_version: string; model: string | null;
}
interface FlowRow {
  flow_pk: number; flow_id: string; profile: string; protocol: FlowRecord['protocol']; transport: FlowRecord['transport'];
  client_ip: string; client_port: number; server_ip: string; server_port: number; server_name: string | null; bytes_down: number;
  bytes_up: number; packets_down: number; packets_up: number; start_ms: number; duration_ms: number; rtt_ms: number | null;
  bif_method: FlowRecord['bifMethod']; retransmissions: number | null; label: string | null; kind: VerdictRecord['kind'] | null;
  confidence: number | null; reason: string | null; posterior: string | null; shape_cluster: VerdictRecord['shapeCluster'] | null;
  deflated: Buffer | null;
}
interface AssetRow {
  flow_id: string | null; har_index: number; profile: string; url: string; host: string; asset_type: AssetRecord['assetType'];
  mime: string; bytes: number; status: number | null; protocol: AssetRecord['protocol']; start_ms: number; end_ms: number;
}

function siteStatements(store: Store) {
  const db = store.db;
  return {
    runs: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE site = ? ORDER BY date DESC, region, started_at DESC'),
    flows: db.prepare<[number], FlowRow>(`SELECT f.*, v.label, v.kind, v.confidence, v.reason, v.posterior, v.shape_cluster, e.deflated
      FROM flows f LEFT JOIN verdicts v ON v.flow_pk = f.flow_pk LEFT JOIN evidence e ON e.flow_pk = f.flow_pk
      WHERE f.run_pk = ? ORDER BY f.flow_pk`),
    assets: db.prepare<[number], AssetRow>(`SELECT f.flow_id, a.har_index, a.profile, a.url, a.host, a.asset_type, a.mime, a.bytes,
      a.status, a.protocol, a.start_ms, a.end_ms FROM assets a LEFT JOIN flows f ON f.flow_pk = a.flow_pk
      WHERE a.run_pk = ? ORDER BY a.asset_pk`),
    counts: db.prepare<[number, number], { flows: number; assets: number }>(
      'SELECT (SELECT COUNT(*) FROM flows WHERE run_pk = ?) AS flows, (SELECT COUNT(*) FROM assets WHERE run_pk = ?) AS assets',
    ),
  };
}
const siteCache = new WeakMap<Store, ReturnType<typeof siteStatements>>();

export interface SiteRunsOptions {
  /** Load flows, verdicts and assets of every run ('all', default) or of each region's latest date only. */
  detail?: 'all' | 'latest';
  /** Inflate the evidence traces (default true). */
  evidence?: boolean;
}

/** Every run of a site (newest first) with its flows, verdicts, evidence and assets. */
export function siteRuns(store: Store, site: string, opts: SiteRunsOptions = {}): SiteRun[] {
  let st = siteCache.get(store);
  if (!st) siteCache.set(store, (st = siteStatements(store)));
  const withEvidence = opts.evidence ?? true;
  const runs = st.runs.all(site);
  const latest = new Map<string, string>();
  for (const r of runs) if ((latest.get(r.region) ?? '') < r.date) latest.set(r.region, r.date);
  return runs.map((r) => siteRun(st, r, opts.detail !== 'latest' || latest.get(r.region) === r.date, withEvidence));
}

function siteRun(st: ReturnType<typeof siteStatements>, r: RunRow, detailed: boolean, withEvidence: boolean): SiteRun {
  const counts = detailed ? null : st.counts.get(r.run_pk, r.run_pk)!;
  const flows = detailed ? st.flows.all(r.run_pk) : [];
  const assets = detailed ? st.assets.all(r.run_pk) : [];
  return {
    runId: r.run_id,
    site: r.site,
    region: r.region,
    date: r.date,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    status: r.status,
    incompleteReason: r.incomplete_reason,
    scenario: { name: r.scenario_name, kind: r.scenario_kind, file: r.scenario_file },
    startUrl: r.start_url,
    mode: r.mode,
    profiles: JSON.parse(r.profiles) as ProfileRef[],
    repeat: r.repeat_index !== null && r.repeat_of !== null ? { index: r.repeat_index, of: r.repeat_of } : null,
    versions: { tool: r.tool_version, browser: r.browser_version, model: r.model },
    detailed,
    flowCount: counts ? counts.flows : flows.length,
    assetCount: counts ? counts.assets : assets.length,
    flows: flows.map((f) => ({
      id: f.flow_id,
      profile: f.profile,
      protocol: f.protocol,
      transport: f.transport,
      client: { ip: f.client_ip, port: f.client_port },
      server: { ip: f.server_ip, port: f.server_port },
      ...(f.server_name !== null ? { serverName: f.server_name } : {}),
      bytes: { down: f.bytes_down, up: f.bytes_up },
      packets: { down: f.packets_down, up: f.packets_up },
      startMs: f.start_ms,
      durationMs: f.duration_ms,
      rttMs: f.rtt_ms,
      bifMethod: f.bif_method,
      retransmissions: f.retransmissions,
      verdict:
        f.label === null
          ? null
          : {
              flowId: f.flow_id,
              label: f.label,
              kind: f.kind!,
              confidence: f.confidence!,
              reason: f.reason!,
              posterior: Object.assign(dict<number>(), JSON.parse(f.posterior!) as Record<string, number>),
              ...(f.shape_cluster !== null ? { shapeCluster: f.shape_cluster } : {}),
              evidence: withEvidence && f.deflated ? (JSON.parse(inflateSync(f.deflated).toString('utf8')) as Evidence) : null,
            },
    })),
    assets: assets.map((a) => ({
      harIndex: a.har_index,
      profile: a.profile,
      url: a.url,
      host: a.host,
      assetType: a.asset_type,
      mime: a.mime,
      bytes: a.bytes,
      ...(a.status !== null ? { status: a.status } : {}),
      flowId: a.flow_id,
      protocol: a.protocol,
      startMs: a.start_ms,
      endMs: a.end_ms,
    })),
  };
}

export function listSites(store: Store): string[] {
  return store.db.prepare('SELECT DISTINCT site FROM runs ORDER BY site').pluck().all() as string[];
}

// -------------------------------------------------------------------------------- changes

export interface LabelAt {
  date: string;
  label: string;
  kind: string;
  confidence: number;
}

export interface Change {
  site: string;
  region: string;
  assetType: string;
  from: LabelAt;
  to: LabelAt;
}

export interface Changes {
  dates: string[];
  /** Consecutive measured dates of one site, region and asset type with different CCA answers. */
  changes: Change[];
  /** Per date: site x region x asset type cells per label measured that day. */
  perDate: Array<{ date: string } & LabelCounts>;
}

/** Where a site's CCA changed between dates. Non-answers neither start nor end a change. */
export function changes(store: Store): Changes {
  // Grouped by site and region (index order), dates ascending within a group.
  const rows = store.db
    .prepare(`SELECT r.site, r.region, r.date, c.asset_type, c.label, c.kind, c.bytes, c.flows, c.assets, c.conf_bytes
      FROM runs r JOIN cells c ON c.run_pk = r.run_pk ORDER BY r.site, r.region, r.date`)
    .raw()
    .iterate() as IterableIterator<CellTuple>;
  const dates = new Set<string>();
  const perDate = new Map<string, LabelCounts>();
  const out: Change[] = [];
  let group: { site: string; region: string; byType: Map<string, Map<string, Map<string, LabelTally>>> } | null = null;
  const flush = (): void => {
    if (!group) return;
    for (const [assetType, byDate] of group.byType) {
      let prev: LabelAt | null = null;
      for (const [date, t] of byDate) {
        const d = dominantLabel([...t.values()])!;
        dates.add(date);
        let lc = perDate.get(date);
        if (!lc) perDate.set(date, (lc = emptyCounts()));
        bump(lc, d.label);
        if (d.kind !== 'cca') continue;
        const cur: LabelAt = { date, label: d.label, kind: d.kind, confidence: d.confidence };
        if (prev && prev.label !== cur.label) out.push({ site: group.site, region: group.region, assetType, from: prev, to: cur });
        prev = cur;
      }
    }
  };
  for (const [site, region, date, assetType, label, kind, bytes, flows, assets, confBytes] of rows) {
    if (!group || group.site !== site || group.region !== region) {
      flush();
      group = { site, region, byType: new Map() };
    }
    let byDate = group.byType.get(assetType);
    if (!byDate) group.byType.set(assetType, (byDate = new Map()));
    let t = byDate.get(date);
    if (!t) byDate.set(date, (t = new Map()));
    mergeTallies(t, { label, kind, bytes, flows, assets, confBytes }, true);
  }
  flush();
  out.sort((a, b) => (a.to.date !== b.to.date ? (a.to.date < b.to.date ? 1 : -1) : a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
  const sortedDates = [...dates].sort();
  return { dates: sortedDates, changes: out, perDate: sortedDates.map((date) => ({ date, ...perDate.get(date)! })) };
}

// ----------------------------------------------------------------------------------- lab

export function labBenchmarks(store: Store): unknown[] {
  return (store.db.prepare('SELECT body FROM lab_benchmarks ORDER BY created_at DESC, name').pluck().all() as string[]).map((b) => JSON.parse(b) as unknown);
}
