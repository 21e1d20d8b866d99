import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunDir, readVoteFile, writeVoteFile } from '../../../src/results/index.js';
import { ingestRunDir, ingestVote, listVotes, MIGRATIONS, openStore } from '../../../src/store/index.js';
import { writeRunVote } from '../../../src/session/repeat.js';
import type { RunOutcome } from '../../../src/session/run.js';
import type { AssetTypeRow, SummaryRow } from '../../../src/session/summary.js';
import { copyFixture, editJson, tempDir, removeTempDirs } from './helpers.js';

afterAll(removeTempDirs);

const typeRow = (assetType: string, label: string, kind = 'cca', confidence = 0.8): AssetTypeRow =>
  ({ assetType, hosts: ['cdn.example'], protocols: ['tcp'], flows: 1, bytes: 1000, label, kind, confidence, reason: '', perProfile: {} });
const hostRow = (host: string, label: string, kind = 'cca'): SummaryRow =>
  ({ host, assetTypes: ['video'], protocol: 'tcp', flows: 1, bytes: 1000, label, kind, confidence: 0.7, reason: '', perProfile: {} });

/** Three repetitions of the fixture run: video BBRv1, BBRv1, Short flow; images CUBIC vs BBRv1 (a tie). */
function threeRuns(): RunOutcome[] {
  const labels: Array<[string, string, string]> = [['BBRv1', 'cca', 'CUBIC'], ['BBRv1', 'cca', 'BBRv1'], ['Short flow', 'short-flow', 'Short flow']];
  return labels.map(([video, kind, image], i) => {
    const dir = copyFixture();
    editJson(dir, 'run.json', (o) => { o.repeat = { index: i + 1, of: 3, group: 'v0a1b2' }; });
    return {
      dir, runId: `run-${i + 1}`, status: 'complete', byteCoverage: { 'nebby-50': 1 },
      byAssetType: [typeRow('video', video, kind, kind === 'cca' ? 0.8 : 0), typeRow('image', image, image === 'Short flow' ? 'short-flow' : 'cca')],
      summary: [hostRow('cdn.example', video, kind)], byHostAssetType: [],
    };
  });
}

describe('vote file', () => {
  it('is written beside the run directories, schema-versioned, and reads back', () => {
    const runs = threeRuns();
    const out = dirname(runs[0].dir);
    const { path, vote } = writeRunVote(out, 'v0a1b2', 3, runs);
    expect(dirname(path)).toBe(out);
    expect(basename(path)).toBe('2025-02-03-10-00-00-lab vod-v0a1b2.vote.json');
    expect(readVoteFile(path)).toEqual(vote);
    expect(vote).toMatchObject({ schemaVersion: 1, voteId: 'v0a1b2', site: 'vod.lab.example', region: 'lab-eu', repeat: 3, profiles: ['nebby-50', 'nebby-100'] });
    expect(vote.runs.map((r) => r.runId)).toEqual(['run-1', 'run-2', 'run-3']);
    const g = (dim: string, key: string) => vote.groups.find((x) => x.dimension === dim && x.key === key)!;
    expect(g('asset-type', 'video')).toMatchObject({ label: 'BBRv1', votes: { BBRv1: 2, 'Short flow': 1 }, ballots: 3, answers: 2, winnerVotes: 2 });
    expect(g('asset-type', 'video').confidence).toBeCloseTo(0.8 * (0.5 + 0.5 * 2 / 3), 3);
    expect(g('asset-type', 'image')).toMatchObject({ label: 'Unknown', confidence: 0 });
    expect(g('host', 'cdn.example').label).toBe('BBRv1');
    // The runs name their vote.
    expect(readRunDir(runs[0].dir).run.repeat).toEqual({ index: 1, of: 3, group: 'v0a1b2' });
  });

  it('refuses to write an invalid vote, and reading names the bad field', () => {
    const dir = tempDir();
    const { vote } = writeRunVote(dirname(threeRuns()[0].dir), 'v1', 3, threeRuns());
    const bad = structuredClone(vote);
    bad.groups[0].confidence = 1.5;
    expect(() => writeVoteFile(join(dir, 'x.vote.json'), bad)).toThrow(/groups\.0\.confidence/);
    expect(existsSync(join(dir, 'x.vote.json'))).toBe(false);
    writeFileSync(join(dir, 'y.vote.json'), JSON.stringify({ ...vote, schemaVersion: 2 }));
    expect(() => readVoteFile(join(dir, 'y.vote.json'))).toThrow(/schemaVersion/);
  });
});

describe('store: votes (schema version 2)', () => {
  it('migrates a version 1 store additively: its runs stay, the new column and tables appear', () => {
    const path = join(tempDir(), 'v1.db');
    const db = new Database(path);
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)');
    db.exec(MIGRATIONS[0].sql);
    db.prepare("INSERT INTO schema_version VALUES (1, 'v1', '2025-01-01')").run();
    db.prepare(`INSERT INTO runs (run_id, site, region, date, started_at, status, scenario_name, scenario_kind, scenario_file, start_url, mode,
      profiles, tool_version, browser_version, ingested_at) VALUES ('old', 's', 'r', '2025-01-01', '2025-01-01T00:00:00Z', 'complete', 'n', 'vod',
      'f', 'u', 'lab', '[]', 't', 'b', 'now')`).run();
    db.close();
    const s = openStore(path);
    expect(s.schemaVersion).toBe(2);
    expect(s.db.prepare('SELECT run_id, repeat_group FROM runs').all()).toEqual([{ run_id: 'old', repeat_group: null }]);
    expect(s.db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2]);
    expect(listVotes(s)).toEqual([]);
    s.close();
  });

  it('stores a vote and the runs\' repeat group; storing it again replaces it', () => {
    const s = openStore(':memory:');
    const runs = threeRuns();
    ingestRunDir(s, runs[0].dir);
    expect(s.db.prepare('SELECT repeat_index, repeat_of, repeat_group FROM runs').get()).toEqual({ repeat_index: 1, repeat_of: 3, repeat_group: 'v0a1b2' });
    const { path } = writeRunVote(dirname(runs[0].dir), 'v0a1b2', 3, runs);
    expect(ingestVote(s, path)).toEqual({ voteId: 'v0a1b2', replaced: false, groups: 3 });
    const [v] = listVotes(s, { site: 'vod.lab.example' });
    expect(v).toMatchObject({ voteId: 'v0a1b2', site: 'vod.lab.example', region: 'lab-eu', repeat: 3, runIds: ['run-1', 'run-2', 'run-3'] });
    expect(v.groups.find((g) => g.key === 'video')).toMatchObject({ dimension: 'asset-type', label: 'BBRv1', ballots: 3, winnerVotes: 2, votes: { BBRv1: 2, 'Short flow': 1 } });
    // Re-voting (e.g. after `analyze` with a new model) replaces the groups.
    const again = JSON.parse(readFileSync(path, 'utf8'));
    again.groups = again.groups.filter((g: { key: string }) => g.key === 'video');
    expect(ingestVote(s, again)).toEqual({ voteId: 'v0a1b2', replaced: true, groups: 1 });
    expect(listVotes(s)[0].groups).toHaveLength(1);
    expect(listVotes(s, { site: 'elsewhere' })).toEqual([]);
  });
});
