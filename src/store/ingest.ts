/**
 * Putting runs into the store. Idempotent: a run is keyed by its runId, and ingesting it again
 * (after `ccbrowse analyze` re-labelled it) deletes the old rows and inserts the new ones in
 * one transaction, so readers never see half a run.
 */
import { deflateSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { readLabBench, readRunDir, type RunData } from '../results/read.js';
import type { LabBench } from '../results/labBench.js';
import { readVoteFile, type VoteFile } from '../results/vote.js';
import { cellsOfRun } from './cells.js';
import type { Store } from './open.js';

export interface IngestResult {
  runId: string;
  /** True when the run was already in the store and has been replaced. */
  replaced: boolean;
  flows: number;
  verdicts: number;
  assets: number;
}

/** What ingestRun needs: a parsed run directory (dir optional, e.g. synthetic data). */
export type IngestInput = Omit<RunData, 'dir' | 'missing'> & { dir?: string };

function statements(db: Database.Database) {
  return {
    find: db.prepare<[string], { run_pk: number }>('SELECT run_pk FROM runs WHERE run_id = ?'),
    // Children first: explicit deletes are much faster than one cascade per row.
    del: [
      db.prepare('DELETE FROM cells WHERE run_pk = ?'),
      db.prepare('DELETE FROM assets WHERE run_pk = ?'),
      db.prepare('DELETE FROM evidence WHERE run_pk = ?'),
      db.prepare('DELETE FROM verdicts WHERE run_pk = ?'),
      db.prepare('DELETE FROM flows WHERE run_pk = ?'),
      db.prepare('DELETE FROM runs WHERE run_pk = ?'),
    ],
    run: db.prepare(`INSERT INTO runs (run_id, site, region, date, started_at, ended_at, status, incomplete_reason, scenario_name,
      scenario_kind, scenario_file, start_url, mode, profiles, repeat_index, repeat_of, repeat_group, tool_version, browser_version, model,
      source_dir, ingested_at) VALUES (@run_id, @site, @region, @date, @started_at, @ended_at, @status, @incomplete_reason,
      @scenario_name, @scenario_kind, @scenario_file, @start_url, @mode, @profiles, @repeat_index, @repeat_of, @repeat_group, @tool_version,
      @browser_version, @model, @source_dir, @ingested_at)`),
    flow: db.prepare(`INSERT INTO flows (run_pk, flow_id, profile, protocol, transport, client_ip, client_port, server_ip,
      server_port, server_name, bytes_down, bytes_up, packets_down, packets_up, start_ms, duration_ms, rtt_ms, bif_method,
      retransmissions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    verdict: db.prepare(`INSERT INTO verdicts (flow_pk, run_pk, label, kind, confidence, reason, posterior, shape_cluster)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    evidence: db.prepare('INSERT INTO evidence (flow_pk, run_pk, deflated) VALUES (?, ?, ?)'),
    asset: db.prepare(`INSERT INTO assets (run_pk, flow_pk, har_index, profile, url, host, asset_type, mime, bytes, status,
      protocol, start_ms, end_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    cell: db.prepare(`INSERT INTO cells (run_pk, asset_type, label, kind, bytes, flows, assets, conf_bytes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    findVote: db.prepare<[string], { vote_pk: number }>('SELECT vote_pk FROM votes WHERE vote_id = ?'),
    delVote: [db.prepare('DELETE FROM vote_groups WHERE vote_pk = ?'), db.prepare('DELETE FROM votes WHERE vote_pk = ?')],
    vote: db.prepare(`INSERT INTO votes (vote_id, site, region, date, created_at, scenario_name, scenario_kind, mode, profiles, model,
      repeat_of, runs, rule, source_file, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    voteGroup: db.prepare(`INSERT INTO vote_groups (vote_pk, dimension, key, label, kind, confidence, ballots, answers, winner_votes,
      votes, reason, related, protocols, per_run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    bench: db.prepare(`INSERT INTO lab_benchmarks (name, created_at, body) VALUES (?, ?, ?)
      ON CONFLICT (name, created_at) DO UPDATE SET body = excluded.body`),
  };
}
type Statements = ReturnType<typeof statements>;
const cache = new WeakMap<Database.Database, Statements>();
function stmts(db: Database.Database): Statements {
  let s = cache.get(db);
  if (!s) cache.set(db, (s = statements(db)));
  return s;
}

/** UTC calendar day of an ISO time: the store's date axis. */
export function dayOf(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10);
}

function insertRun(s: Statements, d: IngestInput, now: string): IngestResult {
  const old = s.find.get(d.run.runId);
  if (old) for (const del of s.del) del.run(old.run_pk);
  const r = d.run;
  const runPk = Number(
    s.run.run({
      run_id: r.runId,
      site: r.site,
      region: r.region,
      date: dayOf(r.startedAt),
      started_at: r.startedAt,
      ended_at: r.endedAt,
      status: r.status,
      incomplete_reason: r.incompleteReason ?? null,
      scenario_name: r.scenario.name,
      scenario_kind: r.scenario.kind,
      scenario_file: r.scenario.file,
      start_url: r.startUrl,
      mode: r.mode,
      profiles: JSON.stringify(r.profiles),
      repeat_index: r.repeat?.index ?? null,
      repeat_of: r.repeat?.of ?? null,
      repeat_group: r.repeat?.group ?? null,
      tool_version: r.versions.tool,
      browser_version: r.versions.browser,
      model: d.model ?? r.versions.model,
      source_dir: d.dir ?? null,
      ingested_at: now,
    }).lastInsertRowid,
  );
  const flowPk = new Map<string, number>();
  for (const f of d.flows) {
    const pk = s.flow.run(runPk, f.id, f.profile, f.protocol, f.transport, f.client.ip, f.client.port, f.server.ip, f.server.port,
      f.serverName ?? null, f.bytes.down, f.bytes.up, f.packets.down, f.packets.up, f.startMs, f.durationMs, f.rttMs, f.bifMethod,
      f.retransmissions).lastInsertRowid;
    flowPk.set(f.id, Number(pk));
  }
  for (const v of d.verdicts) {
    const pk = flowPk.get(v.flowId);
    if (pk === undefined) throw new Error(`verdict for unknown flow ${v.flowId} in run ${r.runId}`);
    s.verdict.run(pk, runPk, v.label, v.kind, v.confidence, v.reason, JSON.stringify(v.posterior), v.shapeCluster ?? null);
    if (v.evidence) s.evidence.run(pk, runPk, deflateSync(JSON.stringify(v.evidence), { level: 6 }));
  }
  for (const a of d.assets) {
    const pk = a.flowId === null ? null : (flowPk.get(a.flowId) ?? null);
    s.asset.run(runPk, pk, a.harIndex, a.profile, a.url, a.host, a.assetType, a.mime, a.bytes, a.status ?? null, a.protocol, a.startMs, a.endMs);
  }
  for (const c of cellsOfRun(d.assets, d.verdicts)) {
    s.cell.run(runPk, c.assetType, c.label, c.kind, c.bytes, c.flows, c.assets, c.confBytes);
  }
  return { runId: r.runId, replaced: !!old, flows: d.flows.length, verdicts: d.verdicts.length, assets: d.assets.length };
}

/** Insert (or replace) one parsed run. */
export function ingestRun(store: Store, data: IngestInput): IngestResult {
  const s = stmts(store.db);
  const now = new Date().toISOString();
  return store.db.transaction(() => insertRun(s, data, now))();
}

/** Insert many runs in one transaction (crawls, synthetic stores): much faster than one each. */
export function ingestRuns(store: Store, runs: Iterable<IngestInput>): IngestResult[] {
  const s = stmts(store.db);
  const now = new Date().toISOString();
  return store.db.transaction(() => {
    const out: IngestResult[] = [];
    for (const d of runs) out.push(insertRun(s, d, now));
    return out;
  })();
}

/** Read a run directory (validated, cross-checked) and insert or replace it. */
export function ingestRunDir(store: Store, dir: string): IngestResult {
  return ingestRun(store, readRunDir(dir));
}

/** Remove a run (and everything under it). Returns false when it was not in the store. */
export function deleteRun(store: Store, runId: string): boolean {
  const s = stmts(store.db);
  return store.db.transaction(() => {
    const old = s.find.get(runId);
    if (!old) return false;
    for (const del of s.del) del.run(old.run_pk);
    return true;
  })();
}

/** Store a lab benchmark result (replaces one with the same name and creation time). */
export function ingestLabBench(store: Store, bench: LabBench | string): void {
  const b = typeof bench === 'string' ? readLabBench(bench) : bench;
  stmts(store.db).bench.run(b.name, b.createdAt, JSON.stringify(b));
}

/**
 * Store the majority vote of a `run --repeat N` series (a vote file, or its parsed content);
 * keyed by its voteId, so storing it again replaces it. Its runs are ingested separately
 * (runs.repeat_group names the vote).
 */
export function ingestVote(store: Store, vote: VoteFile | string): { voteId: string; replaced: boolean; groups: number } {
  const v = typeof vote === 'string' ? readVoteFile(vote) : vote;
  const s = stmts(store.db);
  const now = new Date().toISOString();
  return store.db.transaction(() => {
    const old = s.findVote.get(v.voteId);
    if (old) for (const del of s.delVote) del.run(old.vote_pk);
    const pk = Number(s.vote.run(v.voteId, v.site, v.region, dayOf(v.createdAt), v.createdAt, v.scenario.name,
      v.scenario.kind, v.mode, JSON.stringify(v.profiles), v.model, v.repeat, JSON.stringify(v.runs.map((r) => r.runId)), v.rule,
      typeof vote === 'string' ? vote : null, now).lastInsertRowid);
    for (const g of v.groups) {
      s.voteGroup.run(pk, g.dimension, g.key, g.label, g.kind, g.confidence, g.ballots, g.answers, g.winnerVotes, JSON.stringify(g.votes),
        g.reason, JSON.stringify(g.related), JSON.stringify(g.protocols), JSON.stringify(g.perRun));
    }
    return { voteId: v.voteId, replaced: !!old, groups: v.groups.length };
  })();
}
