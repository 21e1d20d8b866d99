/**
 * `ccbrowse report`: build the static site from a results store or from run directories.
 *
 *   <out>/index.html (Landscape), matrix.html, changes.html, lab.html, downloads.html,
 *   sites/<slug>.html (one per site), assets/report.{js,css}, data/*.{csv,json}
 *   or, with singleFile, <out>/report.html holding everything.
 *
 * Every page embeds its own data (prepared here, escaped), so the site works from file:// and
 * from any sub-path of a static host, and makes no request at all.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { labBenchSchema, type LabBench } from '../results/labBench.js';
import { readLabBench } from '../results/read.js';
import { ingestRunDir } from '../store/ingest.js';
import { openStore, type Store } from '../store/open.js';
import { changes as queryChanges, labBenchmarks, landscapeOf, listSites, matrixOf, siteRuns, snapshot, storeSummary } from '../store/queries.js';
import { BadInputError } from '../util/errors.js';
import { frontendBundle } from './bundle.js';
import { PAGE_FILES, REPORT_DATA_VERSION, type Common, type DownloadFile, type Embedded, type PageData, type SiteView } from './contract.js';
import { inlineTables, storeTables, summaryTables, writeTables, type Table } from './downloads.js';
import { pageHtml, type Assets } from './html.js';
import { labelInfos } from './palette.js';
import { siteSlug } from './slug.js';
import { LabelIndex, changesView, landscapeView, matrixView, siteView } from './views.js';

export interface ReportOptions {
  /** A results store (SQLite file), opened read-only ... */
  store?: string;
  /** ... or run directories (read, validated and indexed in memory). */
  runs?: string[];
  out: string;
  /** Everything in <out>/report.html. */
  singleFile?: boolean;
  /** Lab benchmark result files (in addition to those in the store). */
  lab?: string[];
  title?: string;
  /** Snapshot on or before this day (YYYY-MM-DD) instead of the latest. */
  asOf?: string;
  /** Site pages: details (flows, traces, requests) of each region's latest date only (default), or of every run. */
  siteHistory?: 'latest' | 'all';
  /** Downloads: every table (default), the summary tables only (landscape, matrix, changes, runs), or none. */
  downloads?: 'all' | 'summary' | 'none';
  /** Fixed generation time (reproducible builds, tests). */
  now?: Date;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface ReportStats {
  sites: number;
  runs: number;
  pages: number;
  bytes: number;
  ms: { total: number; query: number; bundle: number; pages: number; sitePages: number; downloads: number };
  warnings: string[];
}

const MARKER = '.ccbrowse-report';
const OWNED = ['index.html', 'matrix.html', 'changes.html', 'lab.html', 'downloads.html', 'report.html', 'sites', 'data', 'assets', MARKER];

/** Refuses to write over a directory that is not an earlier report; clears an earlier one. */
function prepareOut(out: string): void {
  if (existsSync(out)) {
    const entries = readdirSync(out);
    if (entries.length && !entries.includes(MARKER)) {
      throw new BadInputError(`${out} is not empty and does not hold an earlier report`, 'pass --out with a new or empty directory (ccbrowse never deletes files it did not write)');
    }
    for (const e of entries) if (OWNED.includes(e)) rmSync(join(out, e), { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, MARKER), JSON.stringify({ tool: 'ccbrowse report', version: REPORT_DATA_VERSION }) + '\n');
}

function openSource(opts: ReportOptions): { store: Store } {
  const hasRuns = !!opts.runs?.length;
  if (opts.store && hasRuns) throw new BadInputError('pass either --store or run directories, not both', 'ingest the runs into the store first (`ccbrowse analyze RUN`), then report from the store');
  if (opts.store) return { store: openStore(opts.store, { readonly: true }) };
  if (!hasRuns) throw new BadInputError('nothing to report on', 'pass --store FILE or one or more run directories');
  const store = openStore(':memory:');
  try {
    for (const dir of opts.runs!) ingestRunDir(store, dir);
  } catch (err) {
    store.close();
    throw err;
  }
  return { store };
}

function labResults(store: Store, files: readonly string[], warnings: string[]): LabBench[] {
  const out: LabBench[] = [];
  for (const raw of labBenchmarks(store)) {
    const r = labBenchSchema.safeParse(raw);
    if (r.success) out.push(r.data);
    else warnings.push(`a lab benchmark in the store does not match the schema and was skipped: ${r.error.issues[0]?.message ?? ''}`);
  }
  for (const f of files) out.push(readLabBench(f));
  return out;
}

export async function buildReport(opts: ReportOptions): Promise<{ files: string[]; stats: ReportStats }> {
  const t0 = performance.now();
  const warnings: string[] = [];
  const files: string[] = [];
  const progress = opts.onProgress ?? (() => {});
  const { store } = openSource(opts);
  try {
    // Start bundling while the store is queried (esbuild runs in its own process).
    const bundleP = frontendBundle();
    const tq = performance.now();
    const summary = storeSummary(store);
    const snap = snapshot(store, opts.asOf);
    const land = landscapeOf(snap);
    const mat = matrixOf(snap);
    const chg = queryChanges(store);
    const labs = labResults(store, opts.lab ?? [], warnings);
    const labelRows = store.db.prepare('SELECT DISTINCT label AS name, kind FROM verdicts').all() as Array<{ name: string; kind: string }>;
    const L = new LabelIndex(labelInfos(labelRows));
    const slugs = new Map<string, string>();
    const slugOf = (site: string): string => {
      let s = slugs.get(site);
      if (!s) slugs.set(site, (s = siteSlug(site)));
      return s;
    };
    const landscape = landscapeView(land, L);
    const matrix = matrixView(mat, L, slugOf);
    const changes = changesView(chg, L, slugOf);
    const lab = { benches: labs };
    const rowsBySite = new Map(mat.rows.map((r) => [r.site, r]));
    const qms = performance.now() - tq;

    const tb = performance.now();
    const bundle = await bundleP;
    const bms = performance.now() - tb;

    const common = (root: string, singleFile: boolean): Common => ({
      version: REPORT_DATA_VERSION,
      generatedAt: (opts.now ?? new Date()).toISOString(),
      title: opts.title ?? 'ccbrowse report',
      summary: { runs: summary.runs, incompleteRuns: summary.incompleteRuns, sites: summary.sites, regions: summary.regions, dates: summary.dates, flows: summary.flows, assets: summary.assets },
      labels: L.infos.slice(),
      singleFile,
      root,
      hasLab: labs.length > 0,
      hasChanges: chg.dates.length > 1,
    });
    prepareOut(opts.out);
    files.push(join(opts.out, MARKER));
    const sites = listSites(store);
    let bytes = 0;
    const write = (path: string, text: string): void => {
      writeFileSync(path, text);
      bytes += Buffer.byteLength(text);
      files.push(path);
    };
    const history = opts.siteHistory ?? 'latest';
    const siteOf = (site: string): SiteView => siteView(site, slugOf(site), siteRuns(store, site, { detail: history }), rowsBySite.get(site), mat, L);
    const which = opts.downloads ?? 'all';
    const tables = (): Table[] => {
      if (which === 'none') return [];
      const all = [...summaryTables(land, mat, chg), ...storeTables(store)];
      return which === 'all' ? all : all.filter((t) => t.name !== 'flows' && t.name !== 'assets');
    };
    let pms = 0;
    let sms = 0;
    let dms = 0;

    if (opts.singleFile) {
      const td = performance.now();
      const downloads = { files: inlineTables(tables()) };
      dms = performance.now() - td;
      const ts = performance.now();
      const siteViews = sites.map((s, i) => (progress('sites', i + 1, sites.length), siteOf(s)));
      sms = performance.now() - ts;
      const tp = performance.now();
      const data: Embedded = { ...common('', true), mode: 'single', pages: { landscape, matrix, changes, lab, downloads }, sites: siteViews };
      write(join(opts.out, 'report.html'), pageHtml({ title: opts.title ?? 'ccbrowse report', data, assets: { kind: 'inline', js: bundle.js, css: bundle.css } }));
      pms = performance.now() - tp;
      if (bytes > 100 * 1024 * 1024) warnings.push(`report.html is ${(bytes / 1024 / 1024).toFixed(0)} MB: browsers get slow above ~100 MB; use the multi-file report for stores this large`);
    } else {
      mkdirSync(join(opts.out, 'assets'));
      write(join(opts.out, 'assets', 'report.js'), bundle.js);
      write(join(opts.out, 'assets', 'report.css'), bundle.css);
      const td = performance.now();
      mkdirSync(join(opts.out, 'data'));
      const downloadFiles: DownloadFile[] = writeTables(join(opts.out, 'data'), 'data/', tables());
      for (const f of downloadFiles) {
        files.push(join(opts.out, f.path!));
        bytes += f.bytes;
      }
      dms = performance.now() - td;
      const tp = performance.now();
      const assets: Assets = { kind: 'linked', root: '' };
      const pages: Array<[keyof typeof PAGE_FILES, string, PageData]> = [
        ['landscape', 'Landscape', { page: 'landscape', data: landscape }],
        ['matrix', 'Matrix', { page: 'matrix', data: matrix }],
        ['changes', 'Changes over time', { page: 'changes', data: changes }],
        ['lab', 'Lab accuracy', { page: 'lab', data: lab }],
        ['downloads', 'Downloads', { page: 'downloads', data: { files: downloadFiles } }],
      ];
      for (const [name, title, content] of pages) {
        write(join(opts.out, PAGE_FILES[name]), pageHtml({ title: `${title} · ${opts.title ?? 'ccbrowse report'}`, data: { ...common('', false), mode: 'page', content }, assets }));
      }
      pms = performance.now() - tp;
      const ts = performance.now();
      mkdirSync(join(opts.out, 'sites'));
      const siteAssets: Assets = { kind: 'linked', root: '../' };
      sites.forEach((s, i) => {
        const v = siteOf(s);
        write(join(opts.out, 'sites', `${v.slug}.html`), pageHtml({ title: `${s} · ${opts.title ?? 'ccbrowse report'}`, data: { ...common('../', false), mode: 'page', content: { page: 'site', data: v } }, assets: siteAssets }));
        if (i % 500 === 0 || i === sites.length - 1) progress('sites', i + 1, sites.length);
      });
      sms = performance.now() - ts;
    }
    const stats: ReportStats = {
      sites: sites.length,
      runs: summary.runs,
      pages: opts.singleFile ? 1 : 5 + sites.length,
      bytes,
      ms: { total: performance.now() - t0, query: qms, bundle: bms, pages: pms, sitePages: sms, downloads: dms },
      warnings,
    };
    return { files, stats };
  } finally {
    // Read-only file or in-memory copy of the run directories: closing loses nothing.
    store.close();
  }
}
