/**
 * What the Node side embeds in each page and the front end (report/) reads: the only shared
 * surface between them. Types only, plus tiny pure helpers both sides use. No Node imports:
 * esbuild bundles this file into the browser code.
 *
 * Dictionaries keyed by measured strings (labels, regions) are avoided: a label could be
 * "__proto__". Labels travel as indexes into `labels`; per-label counts as arrays.
 */
import type { LabBench } from '../results/labBench.js';
import type { AssetRecord, Evidence, FlowRecord, ProfileRef, VerdictRecord } from '../results/schema.js';
import type { RunHeader } from '../store/queries.js';

export type { AssetRecord, Evidence, FlowRecord, ProfileRef } from '../results/schema.js';
export type { LabBench } from '../results/labBench.js';

export const REPORT_DATA_VERSION = 1;

export type PageName = 'landscape' | 'matrix' | 'changes' | 'lab' | 'downloads' | 'site';

export interface LabelInfo {
  name: string;
  kind: string;
  /** Fill colour and the text colour readable on it. */
  color: string;
  ink: string;
  /** Short text drawn inside small cells. */
  short: string;
}

export interface Summary {
  runs: number;
  incompleteRuns: number;
  sites: number;
  regions: string[];
  dates: string[];
  flows: number;
  assets: number;
}

export interface Common {
  version: typeof REPORT_DATA_VERSION;
  generatedAt: string;
  title: string;
  summary: Summary;
  /** Every label any page shows, in legend order. */
  labels: LabelInfo[];
  /** True when everything is in one HTML file (links are #fragments). */
  singleFile: boolean;
  /** Prefix from this page to the report root ('' or '../'); unused in single-file mode. */
  root: string;
  hasLab: boolean;
  hasChanges: boolean;
}

/** Counts per label: counts[i] belongs to labels[i] of the page's Common. */
export interface CountsRow {
  key: string;
  total: number;
  counts: number[];
}

export interface LandscapeView {
  regions: string[];
  assetTypes: string[];
  byRegion: CountsRow[];
  allRegions: CountsRow;
  /** One block per region selection: '*' = all regions. */
  byAssetType: Array<{ region: string; rows: CountsRow[] }>;
  flowsByRegion: CountsRow[];
}

/**
 * The matrix in columns (20,000 sites x 10 asset types x 5 regions stays a few MB):
 * cells[(s * assetTypes.length + t) * regions.length + r] = encodeCell(...) or -1 when absent.
 */
export interface MatrixView {
  regions: string[];
  assetTypes: string[];
  sites: string[];
  slugs: string[];
  /** Bit t set: asset type t differs across regions for that site. */
  differs: number[];
  cells: number[];
  /** Snapshot date of each site x region: index into `dates`, -1 when not measured. */
  siteDates: number[];
  dates: string[];
}

/** label index, confidence and share (0..100 each) in one integer. */
export function encodeCell(label: number, confidence: number, share: number): number {
  const c = Math.max(0, Math.min(100, Math.round(confidence * 100)));
  const s = Math.max(0, Math.min(100, Math.round(share * 100)));
  return (label * 101 + c) * 101 + s;
}

export function decodeCell(code: number): { label: number; confidence: number; share: number } | null {
  if (code < 0) return null;
  const s = code % 101;
  const rest = (code - s) / 101;
  const c = rest % 101;
  return { label: (rest - c) / 101, confidence: c / 100, share: s / 100 };
}

export interface SiteFlowView extends FlowRecord {
  verdict: (Omit<VerdictRecord, 'posterior' | 'evidence'> & { posterior: Array<[string, number]>; evidence: Evidence | null }) | null;
}

export interface SiteRunView extends RunHeader {
  flows: SiteFlowView[];
  assets: AssetColumns;
}

/**
 * A run's assets column-wise with a shared string table (hosts, MIME types, profiles, flow
 * ids repeat on every row): a quarter of the size of the objects. Each row is
 * [harIndex, profile, url, host, assetType, mime, bytes, status, flowId, protocol, startMs, endMs]
 * where profile, host, assetType, mime index `strings`, and status, flowId, protocol are -1 when null.
 */
export interface AssetColumns {
  strings: string[];
  rows: Array<[number, number, string, number, number, number, number, number, number, number, number, number]>;
}

export function encodeAssets(assets: readonly AssetRecord[]): AssetColumns {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const s = (x: string): number => {
    let i = index.get(x);
    if (i === undefined) index.set(x, (i = strings.push(x) - 1));
    return i;
  };
  return {
    strings,
    rows: assets.map((a) => [a.harIndex, s(a.profile), a.url, s(a.host), s(a.assetType), s(a.mime), a.bytes, a.status ?? -1, a.flowId === null ? -1 : s(a.flowId), a.protocol === null ? -1 : s(a.protocol), a.startMs, a.endMs]),
  };
}

export function decodeAssets(c: AssetColumns): AssetRecord[] {
  const str = c.strings;
  return c.rows.map(([harIndex, profile, url, host, assetType, mime, bytes, status, flowId, protocol, startMs, endMs]) => ({
    harIndex,
    profile: str[profile],
    url,
    host: str[host],
    assetType: str[assetType] as AssetRecord['assetType'],
    mime: str[mime],
    bytes,
    ...(status >= 0 ? { status } : {}),
    flowId: flowId < 0 ? null : str[flowId],
    protocol: protocol < 0 ? null : (str[protocol] as AssetRecord['protocol']),
    startMs,
    endMs,
  }));
}

export interface SiteView {
  site: string;
  slug: string;
  /** This site's row of the snapshot matrix. */
  regions: string[];
  assetTypes: string[];
  cells: number[];
  differs: number;
  runs: SiteRunView[];
}

export interface ChangesView {
  dates: string[];
  perDate: CountsRow[];
  /** [site, slug, region, assetType, fromDate, fromLabel, fromConfidence, toDate, toLabel, toConfidence] */
  changes: Array<[string, string, string, string, string, number, number, string, number, number]>;
}

export interface LabView {
  benches: LabBench[];
}

export interface DownloadFile {
  name: string;
  description: string;
  format: 'csv' | 'json';
  rows: number;
  bytes: number;
  /** Relative path (multi-file) ... */
  path?: string;
  /** ... or the content itself (single-file: the page makes a Blob of it). */
  content?: string;
}

export interface DownloadsView {
  files: DownloadFile[];
}

export type PageData =
  | { page: 'landscape'; data: LandscapeView }
  | { page: 'matrix'; data: MatrixView }
  | { page: 'changes'; data: ChangesView }
  | { page: 'lab'; data: LabView }
  | { page: 'downloads'; data: DownloadsView }
  | { page: 'site'; data: SiteView };

/** What one HTML page embeds: the common header plus its page, or (single file) all pages. */
export type Embedded =
  | (Common & { mode: 'page'; content: PageData })
  | (Common & {
      mode: 'single';
      pages: { landscape: LandscapeView; matrix: MatrixView; changes: ChangesView; lab: LabView; downloads: DownloadsView };
      sites: SiteView[];
    });

/** Page file names relative to the report root. */
export const PAGE_FILES: Record<Exclude<PageName, 'site'>, string> = {
  landscape: 'index.html',
  matrix: 'matrix.html',
  changes: 'changes.html',
  lab: 'lab.html',
  downloads: 'downloads.html',
};
