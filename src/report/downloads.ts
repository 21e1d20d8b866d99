/**
 * The Downloads page's files: each table as CSV and as JSON in the "split" layout
 * {"columns": [...], "data": [[...], ...]} (pandas: read_json(f, orient='split')): repeating
 * the column names in every row would double the size of a large export. Multi-file reports write them under data/ streaming row by row; the single
 * file embeds their text (its page turns it into a Blob on click).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store/open.js';
import { ASSET_COLUMNS, FLOW_COLUMNS, RUN_COLUMNS, iterateAssets, iterateFlows, iterateRuns } from '../store/export.js';
import type { Changes, Landscape, Matrix } from '../store/queries.js';
import type { DownloadFile } from './contract.js';
import { csvLine, type CsvValue } from './csv.js';

export interface Table {
  name: string;
  description: string;
  columns: readonly string[];
  rows: () => Iterable<readonly CsvValue[]>;
}

export function summaryTables(l: Landscape, m: Matrix, c: Changes): Table[] {
  return [
    {
      name: 'landscape',
      description: 'Sites per label by region (asset_type "*") and by asset type, at each site’s latest date.',
      columns: ['region', 'asset_type', 'label', 'count', 'total', 'share'],
      *rows() {
        for (const r of l.byRegion) for (const [label, n] of Object.entries(r.counts)) yield [r.region, '*', label, n, r.total, n / r.total];
        for (const [region, rows] of Object.entries(l.byAssetType)) {
          for (const r of rows) for (const [label, n] of Object.entries(r.counts)) yield [region, r.assetType, label, n, r.total, n / r.total];
        }
      },
    },
    {
      name: 'matrix',
      description: 'One row per site, region and asset type: the label that carried most bytes, its confidence and share.',
      columns: ['site', 'region', 'asset_type', 'label', 'kind', 'confidence', 'share', 'flows', 'bytes', 'date', 'differs_across_regions'],
      *rows() {
        for (const row of m.rows) {
          for (const [type, byRegion] of Object.entries(row.cells)) {
            const differs = row.differs.includes(type);
            for (const [region, d] of Object.entries(byRegion)) yield [row.site, region, type, d.label, d.kind, d.confidence, d.share, d.flows, d.bytes, d.date, differs];
          }
        }
      },
    },
    {
      name: 'changes',
      description: 'Sites whose CCA answer changed between two consecutive measured dates.',
      columns: ['site', 'region', 'asset_type', 'from_date', 'from_label', 'from_confidence', 'to_date', 'to_label', 'to_confidence'],
      *rows() {
        for (const x of c.changes) yield [x.site, x.region, x.assetType, x.from.date, x.from.label, x.from.confidence, x.to.date, x.to.label, x.to.confidence];
      },
    },
  ];
}

export function storeTables(store: Store): Table[] {
  return [
    { name: 'runs', description: 'Every run: site, region, date, scenario, status, versions.', columns: RUN_COLUMNS, rows: () => iterateRuns(store) },
    { name: 'flows', description: 'Every flow with its 5-tuple, sizes, RTT and verdict (label, kind, confidence, reason).', columns: FLOW_COLUMNS, rows: () => iterateFlows(store) },
    { name: 'assets', description: 'Every request (HAR entry): URL, type, MIME, bytes, timing, the flow that carried it and its verdict.', columns: ASSET_COLUMNS, rows: () => iterateAssets(store) },
  ];
}

/** Buffered appends to one file: large downloads never sit in memory whole. */
class FileSink {
  private fd: number;
  private buf: string[] = [];
  private size = 0;
  bytes = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  write(s: string): void {
    this.buf.push(s);
    this.size += s.length;
    if (this.size > 1 << 20) this.flush();
  }
  private flush(): void {
    if (!this.buf.length) return;
    const chunk = Buffer.from(this.buf.join(''), 'utf8');
    writeSync(this.fd, chunk);
    this.bytes += chunk.length;
    this.buf = [];
    this.size = 0;
  }
  close(): number {
    this.flush();
    closeSync(this.fd);
    return this.bytes;
  }
}

/** A row as a JSON array: undefined and non-finite numbers become null. */
function jsonRow(row: readonly CsvValue[]): string {
  return JSON.stringify(row);
}

function jsonHead(columns: readonly string[]): string {
  return `{"columns":${JSON.stringify(columns)},"data":[`;
}

/** Writes <dir>/<name>.csv and .json for each table; returns their descriptions (paths relative to the report root). */
export function writeTables(dir: string, rel: string, tables: Table[]): DownloadFile[] {
  const out: DownloadFile[] = [];
  for (const t of tables) {
    const csv = new FileSink(join(dir, `${t.name}.csv`));
    const json = new FileSink(join(dir, `${t.name}.json`));
    csv.write(csvLine(t.columns));
    json.write(jsonHead(t.columns));
    let n = 0;
    for (const r of t.rows()) {
      csv.write(csvLine(r));
      json.write(`${n ? ',' : ''}\n${jsonRow(r)}`);
      n++;
    }
    json.write('\n]}\n');
    out.push({ name: `${t.name}.csv`, description: t.description, format: 'csv', rows: n, bytes: csv.close(), path: `${rel}${t.name}.csv` });
    out.push({ name: `${t.name}.json`, description: t.description, format: 'json', rows: n, bytes: json.close(), path: `${rel}${t.name}.json` });
  }
  return out;
}

/** The same files as text, for the single-file report. */
export function inlineTables(tables: Table[]): DownloadFile[] {
  const out: DownloadFile[] = [];
  for (const t of tables) {
    let csv = csvLine(t.columns);
    const json: string[] = [];
    for (const r of t.rows()) {
      csv += csvLine(r);
      json.push(jsonRow(r));
    }
    const jsonText = `${jsonHead(t.columns)}${json.length ? `\n${json.join(',\n')}` : ''}\n]}\n`;
    out.push({ name: `${t.name}.csv`, description: t.description, format: 'csv', rows: json.length, bytes: Buffer.byteLength(csv), content: csv });
    out.push({ name: `${t.name}.json`, description: t.description, format: 'json', rows: json.length, bytes: Buffer.byteLength(jsonText), content: jsonText });
  }
  return out;
}
