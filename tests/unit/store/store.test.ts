import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunDir } from '../../../src/results/index.js';
import {
  cellsOfRun,
  deleteRun,
  ingestRun,
  ingestRunDir,
  matrix,
  openStore,
  siteRuns,
  storeSummary,
  STORE_SCHEMA_VERSION,
  MIGRATIONS,
  type IngestInput,
} from '../../../src/store/index.js';
import { copyFixture, editJson, FIXTURE_RUN, tempDir, removeTempDirs } from './helpers.js';

afterAll(removeTempDirs);

const count = (db: Database.Database, table: string): number => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('openStore', () => {
  it('creates the schema and records its version; reopening migrates nothing', () => {
    const path = join(tempDir(), 's.db');
    const s = openStore(path);
    expect(s.schemaVersion).toBe(STORE_SCHEMA_VERSION);
    const tables = s.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['runs', 'flows', 'verdicts', 'evidence', 'assets', 'cells', 'lab_benchmarks', 'schema_version']));
    s.close();
    const again = openStore(path);
    expect(count(again.db, 'schema_version')).toBe(MIGRATIONS.length);
    again.close();
  });

  it('refuses a store written by a newer version, and a missing file in read-only mode', () => {
    const path = join(tempDir(), 'new.db');
    openStore(path).close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_version VALUES (99, 'future', '2030-01-01')").run();
    db.close();
    expect(() => openStore(path)).toThrow(/schema version 99/);
    expect(() => openStore(join(tempDir(), 'none.db'), { readonly: true })).toThrow(/does not exist/);
  });

  it('refuses a file that is not SQLite', () => {
    const path = join(tempDir(), 'x.db');
    writeFileSync(path, 'not a database at all, just text'.repeat(40));
    expect(() => openStore(path)).toThrow(/not a usable results store|cannot open/);
  });
});

describe('ingest', () => {
  it('indexes runs, flows, verdicts, evidence, assets and cells', () => {
    const s = openStore(':memory:');
    const r = ingestRunDir(s, FIXTURE_RUN);
    expect(r).toMatchObject({ replaced: false, flows: 3, verdicts: 3, assets: 5 });
    expect([count(s.db, 'runs'), count(s.db, 'flows'), count(s.db, 'verdicts'), count(s.db, 'evidence'), count(s.db, 'assets')]).toEqual([1, 3, 3, 2, 5]);
    const run = s.db.prepare('SELECT site, region, date, model FROM runs').get();
    expect(run).toEqual({ site: 'vod.lab.example', region: 'lab-eu', date: '2025-02-03', model: 'ccbrowse-model.json sha256:ab12' });
    // the uncorrelated ad pixel is not in any cell
    const cells = s.db.prepare('SELECT asset_type, label, assets FROM cells ORDER BY asset_type, label').all();
    expect(cells).toEqual([
      { asset_type: 'document', label: 'CUBIC', assets: 1 },
      { asset_type: 'document', label: 'Short flow', assets: 1 },
      { asset_type: 'script', label: 'CUBIC', assets: 1 },
      { asset_type: 'video', label: 'BBRv1', assets: 1 },
    ]);
  });

  it('is idempotent, and re-ingesting a re-labelled run replaces its verdicts', () => {
    const s = openStore(':memory:');
    const dir = copyFixture();
    ingestRunDir(s, dir);
    const again = ingestRunDir(s, dir);
    expect(again.replaced).toBe(true);
    expect([count(s.db, 'runs'), count(s.db, 'flows'), count(s.db, 'assets'), count(s.db, 'cells')]).toEqual([1, 3, 5, 4]);
    expect(matrix(s).rows[0].cells['video']['lab-eu'].label).toBe('BBRv1');
    // `ccbrowse analyze` with a better model: f2 is now BBRv2
    editJson(dir, 'verdicts.json', (o) => {
      o.verdicts[1].label = 'BBRv2';
      o.model = 'model-v2';
    });
    ingestRunDir(s, dir);
    expect(count(s.db, 'runs')).toBe(1);
    expect(matrix(s).rows[0].cells['video']['lab-eu'].label).toBe('BBRv2');
    expect(s.db.prepare('SELECT model FROM runs').pluck().get()).toBe('model-v2');
    expect(count(s.db, 'verdicts')).toBe(3);
  });

  it('a failed ingest leaves the store as it was (one transaction)', () => {
    const s = openStore(':memory:');
    const d = readRunDir(FIXTURE_RUN);
    const bad: IngestInput = { ...d, verdicts: [...d.verdicts, { ...d.verdicts[0], flowId: 'ghost' }] };
    expect(() => ingestRun(s, bad)).toThrow(/unknown flow ghost/);
    expect(count(s.db, 'runs')).toBe(0);
    expect(count(s.db, 'flows')).toBe(0);
  });

  it('deleteRun removes a run and everything under it', () => {
    const s = openStore(':memory:');
    ingestRunDir(s, FIXTURE_RUN);
    expect(deleteRun(s, '2025-02-03T10-00-00Z_lab-eu_vod')).toBe(true);
    expect(deleteRun(s, '2025-02-03T10-00-00Z_lab-eu_vod')).toBe(false);
    for (const t of ['runs', 'flows', 'verdicts', 'evidence', 'assets', 'cells']) expect(count(s.db, t)).toBe(0);
  });

  it('siteRuns gives back what was ingested, evidence included', () => {
    const s = openStore(':memory:');
    ingestRunDir(s, FIXTURE_RUN);
    const d = readRunDir(FIXTURE_RUN);
    const [run] = siteRuns(s, 'vod.lab.example');
    expect(run.flows.map(({ verdict, ...f }) => f)).toEqual(d.flows);
    expect(run.flows.map((f) => f.verdict && { ...f.verdict, posterior: { ...f.verdict.posterior } })).toEqual(d.verdicts);
    expect(run.assets).toEqual(d.assets);
    expect(storeSummary(s)).toMatchObject({ runs: 1, sites: 1, regions: ['lab-eu'], dates: ['2025-02-03'], flows: 3, assets: 5 });
  });
});

describe('cellsOfRun', () => {
  it('weighs assets by bytes (at least 1), counts each flow once per type and skips unjudged flows', () => {
    const asset = (flowId: string | null, assetType: 'image' | 'video', bytes: number) =>
      ({ harIndex: 0, profile: 'p', url: 'u', host: 'h', assetType, mime: 'm', bytes, flowId, protocol: 'h2' as const, startMs: 0, endMs: 1 });
    const v = (flowId: string, label: string, confidence: number) => ({ flowId, label, kind: 'cca' as const, confidence, reason: '', posterior: {}, evidence: null });
    const cells = cellsOfRun(
      [asset('a', 'image', 100), asset('a', 'image', 0), asset('b', 'image', 300), asset('c', 'video', 1000), asset(null, 'video', 5)],
      [v('a', 'CUBIC', 0.5), v('b', 'CUBIC', 1)],
    );
    expect(cells).toEqual([{ assetType: 'image', label: 'CUBIC', kind: 'cca', bytes: 401, flows: 2, assets: 3, confBytes: 0.5 * 101 + 300 }]);
  });
});
