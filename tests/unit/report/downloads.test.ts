import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inlineTables, storeTables, summaryTables, writeTables } from '../../../src/report/downloads.js';
import { changes, ingestRun, landscape, matrix, openStore } from '../../../src/store/index.js';
import { readRunDir } from '../../../src/results/index.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'results', 'run-minimal');

function storeWithHostileAsset() {
  const s = openStore(':memory:');
  const d = readRunDir(FIXTURE);
  d.assets[1] = { ...d.assets[1], url: '=HYPERLINK("http://x","y")', mime: 'text/"quoted", with comma\nand newline' };
  ingestRun(s, d);
  return s;
}

describe('downloads', () => {
  it('writes each table as CSV and JSON with the same rows, files matching what the page embeds', () => {
    const s = storeWithHostileAsset();
    const tables = [...summaryTables(landscape(s), matrix(s), changes(s)), ...storeTables(s)];
    const dir = mkdtempSync(join(tmpdir(), 'ccb-dl-'));
    const files = writeTables(dir, 'data/', tables);
    expect(files.map((f) => f.name)).toEqual(['landscape', 'matrix', 'changes', 'runs', 'flows', 'assets'].flatMap((n) => [`${n}.csv`, `${n}.json`]));
    const inline = inlineTables(tables);
    for (const f of files) {
      const text = readFileSync(join(dir, f.name), 'utf8');
      expect(Buffer.byteLength(text)).toBe(f.bytes);
      expect(f.path).toBe(`data/${f.name}`);
      expect(inline.find((i) => i.name === f.name)!.content).toBe(text);
      if (f.format === 'json') expect(JSON.parse(text).data).toHaveLength(f.rows);
    }
    const split = JSON.parse(readFileSync(join(dir, 'assets.json'), 'utf8')) as { columns: string[]; data: unknown[][] };
    const assets = split.data.map((row) => Object.fromEntries(split.columns.map((c, i) => [c, row[i]])));
    expect(assets).toHaveLength(5);
    expect(assets[1]).toMatchObject({ url: '=HYPERLINK("http://x","y")', label: 'CUBIC', flow_id: 'f1' });
    expect(assets[3]).toMatchObject({ flow_id: null, label: null });
    const csv = readFileSync(join(dir, 'assets.csv'), 'utf8');
    // the formula is neutralised and the multi-line MIME type stays in one quoted cell
    expect(csv).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csv).toContain('"text/""quoted"", with comma\nand newline"');
    const matrixCsv = readFileSync(join(dir, 'matrix.csv'), 'utf8').trim().split('\r\n');
    expect(matrixCsv).toHaveLength(1 + 3); // document, script, video
    expect(matrixCsv.find((l) => l.includes(',video,'))).toMatch(/^vod\.lab\.example,lab-eu,video,BBRv1,cca,0\.8,1,1,2300000,2025-02-03,false$/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('an empty store gives header-only files', () => {
    const s = openStore(':memory:');
    const files = inlineTables([...summaryTables(landscape(s), matrix(s), changes(s)), ...storeTables(s)]);
    expect(files.every((f) => f.rows === 0)).toBe(true);
    const flows = JSON.parse(files.find((f) => f.name === 'flows.json')!.content!);
    expect(flows.data).toEqual([]);
    expect(flows.columns[0]).toBe('run_id');
  });
});
