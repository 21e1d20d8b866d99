/**
 * Site lists of a crawl: a CSV (a header naming a url/site/domain column, or Tranco's
 * headerless "rank,domain") or a plain top-list, one URL or domain a line. A bare domain
 * becomes its https:// home page; blank lines and `#` comments are skipped, repeats dropped.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';

const URL_COLUMNS = ['url', 'site', 'domain', 'origin', 'host'];

/** One CSV line into cells (double quotes may wrap a cell and double themselves inside). */
export function csvCells(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { cells.push(cur.trim()); cur = ''; }
    else cur += ch;
  }
  cells.push(cur.trim());
  return cells;
}

/** A list entry as a URL: "example.org" -> "https://example.org/"; throws on anything else. */
export function siteUrl(entry: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `https://${entry}/`;
  const u = new URL(text);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`not an http(s) URL: ${entry}`);
  return u.href;
}

/** The URLs a site list holds, in order; errors name the line. */
export function parseSiteList(text: string, csv: boolean): string[] {
  const lines = text.split(/\r?\n/);
  let column: number | undefined;
  const out: string[] = [];
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (!line || line.startsWith('#')) continue;
    let entry = line;
    if (csv) {
      const cells = csvCells(line);
      if (column === undefined) {
        const named = cells.findIndex((c) => URL_COLUMNS.includes(c.toLowerCase()));
        if (named >= 0) { column = named; continue; } // the header line
        column = cells.length > 1 && /^\d+$/.test(cells[0]) ? 1 : 0; // Tranco: rank,domain
      }
      entry = cells[column] ?? '';
    }
    try {
      out.push(siteUrl(entry));
    } catch (err) {
      throw new Error(`line ${n + 1}: "${entry}" is not a URL or a domain (${(err as Error).message})`);
    }
  }
  return [...new Set(out)];
}

/** Reads a site list file (CSV by its .csv extension). */
export function readSiteList(path: string): string[] {
  return parseSiteList(readFileSync(path, 'utf8'), extname(path).toLowerCase() === '.csv');
}
