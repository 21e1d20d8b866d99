/** Reading the majority votes of `run --repeat N` series back from the store (schema v2). */
import type { Store } from './open.js';

export interface StoredVoteGroup {
  dimension: 'asset-type' | 'host';
  key: string;
  label: string;
  kind: string;
  confidence: number;
  ballots: number;
  answers: number;
  winnerVotes: number;
  votes: Record<string, number>;
  reason: string;
  related: string[];
  protocols: string[];
}

export interface StoredVote {
  voteId: string;
  site: string;
  region: string;
  date: string;
  createdAt: string;
  scenario: string;
  repeat: number;
  model: string;
  runIds: string[];
  groups: StoredVoteGroup[];
}

/** Votes, newest first; optionally of one site. */
export function listVotes(store: Store, opts: { site?: string } = {}): StoredVote[] {
  const rows = store.db.prepare(`SELECT vote_pk, vote_id, site, region, date, created_at, scenario_name, repeat_of, model, runs FROM votes
    ${opts.site ? 'WHERE site = ?' : ''} ORDER BY created_at DESC, vote_id`).all(...(opts.site ? [opts.site] : [])) as Array<{
    vote_pk: number; vote_id: string; site: string; region: string; date: string; created_at: string; scenario_name: string;
    repeat_of: number; model: string; runs: string;
  }>;
  const groups = store.db.prepare(`SELECT dimension, key, label, kind, confidence, ballots, answers, winner_votes, votes, reason, related,
    protocols FROM vote_groups WHERE vote_pk = ? ORDER BY dimension, key`);
  return rows.map((r) => ({
    voteId: r.vote_id, site: r.site, region: r.region, date: r.date, createdAt: r.created_at, scenario: r.scenario_name,
    repeat: r.repeat_of, model: r.model, runIds: JSON.parse(r.runs) as string[],
    groups: (groups.all(r.vote_pk) as Array<Record<string, unknown>>).map((g) => ({
      dimension: g.dimension as StoredVoteGroup['dimension'], key: g.key as string, label: g.label as string, kind: g.kind as string,
      confidence: g.confidence as number, ballots: g.ballots as number, answers: g.answers as number, winnerVotes: g.winner_votes as number,
      votes: JSON.parse(g.votes as string) as Record<string, number>, reason: g.reason as string,
      related: JSON.parse(g.related as string) as string[], protocols: JSON.parse(g.protocols as string) as string[],
    })),
  }));
}
