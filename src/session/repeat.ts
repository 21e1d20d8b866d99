/**
 * After `ccbrowse run --repeat N`: the N runs' majority vote (vote.ts), written as a small
 * vote file beside the run directories.
 */
import { basename, join } from 'node:path';
import { parseFile } from '../results/read.js';
import { runSchema } from '../results/schema.js';
import { VOTE_SCHEMA_VERSION, writeVoteFile, type VoteFile } from '../results/vote.js';
import type { RunOutcome } from './run.js';
import { VOTE_RULE, voteGroups } from './vote.js';

export function voteFileName(voteId: string, scenario: string, at: Date): string {
  return `${at.toISOString().slice(0, 19).replace(/[:T]/g, '-')}-${scenario}-${voteId}.vote.json`;
}

/** Votes over the runs (in order) and writes `<outDir>/<date>-<scenario>-<voteId>.vote.json`. */
export function writeRunVote(outDir: string, voteId: string, repeat: number, outcomes: readonly RunOutcome[]): { path: string; vote: VoteFile } {
  if (outcomes.length === 0) throw new Error('no run to vote over');
  const first = parseFile(join(outcomes[0].dir, 'run.json'), runSchema);
  const createdAt = new Date();
  const path = join(outDir, voteFileName(voteId, first.scenario.name, new Date(first.startedAt)));
  const vote = writeVoteFile(path, {
    schemaVersion: VOTE_SCHEMA_VERSION, voteId, createdAt: createdAt.toISOString(),
    scenario: first.scenario, site: first.site, region: first.region, mode: first.mode,
    profiles: first.profiles.map((p) => p.name), model: first.versions.model, repeat,
    runs: outcomes.map((o) => ({ runId: o.runId, dir: basename(o.dir), status: o.status })),
    rule: VOTE_RULE,
    groups: voteGroups(outcomes),
  });
  return { path, vote };
}
