/**
 * `ccbrowse run --repeat N`: the majority vote. Each repetition is one measurement: its
 * verdict per asset type and per host is already fused across its profiles (summary.ts, the
 * Nebby rule: profiles that disagree give Unknown). The N measurements then vote per group:
 *
 * - Ballots are the runs that saw the group (a run that never loaded that type casts none).
 * - Only congestion-control answers (kind "cca") compete for the label. Non-answers (Short
 *   flow, Application-limited, Unknown) abstain: a run too short to judge says nothing against
 *   a run that could, so they never outvote a CCA label. They lower the confidence instead.
 * - The label with the most answers wins (a plurality). A tie for first place between CCA
 *   labels gives Unknown (confidence 0): N runs that split evenly did not settle the question,
 *   and the classifier's confidences are not calibrated well enough to break the tie.
 * - Confidence = mean confidence of the winner's ballots x agreement (winner / answers)
 *   x (0.5 + 0.5 x answers / ballots), the same coverage factor profile fusion uses.
 * - With no CCA answer at all: WebRTC media when the group is media (confidence = its share of
 *   ballots); otherwise the most frequent non-answer (ties: Unknown, then Application-limited,
 *   then Short flow), confidence 0.
 */
import type { AssetTypeRow, SummaryRow } from './summary.js';

export interface Ballot {
  runId: string;
  label: string;
  /** cca | short-flow | application-limited | unknown | media */
  kind: string;
  confidence: number;
}

export interface VoteOutcome {
  label: string;
  kind: string;
  confidence: number;
  /** Ballots per label (every label cast, answers and non-answers). */
  votes: Record<string, number>;
  /** Runs that cast a ballot for this group. */
  ballots: number;
  /** Ballots that named a CCA. */
  answers: number;
  /** Ballots for the winning label. */
  winnerVotes: number;
  reason: string;
}

export const VOTE_RULE = 'per group, each run (fused across its profiles) casts one ballot; only CCA labels compete '
  + '(Short flow, Application-limited and Unknown abstain); plurality wins; a tie for first is Unknown; '
  + 'confidence = mean winner confidence x winner/answers x (0.5 + 0.5 x answers/ballots)';

const NON_ANSWER_ORDER = ['Unknown', 'Application-limited', 'Short flow'];

function rankNonAnswer(label: string): number {
  const i = NON_ANSWER_ORDER.indexOf(label);
  return i < 0 ? NON_ANSWER_ORDER.length : i;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function describeVotes(votes: Record<string, number>): string {
  return Object.entries(votes).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([l, n]) => `${l} ${n}`).join(', ');
}

export function majorityVote(ballots: readonly Ballot[]): VoteOutcome {
  const votes: Record<string, number> = {};
  for (const b of ballots) votes[b.label] = (votes[b.label] ?? 0) + 1;
  const base = { votes, ballots: ballots.length };
  if (ballots.length === 0) {
    return { ...base, label: 'Unknown', kind: 'unknown', confidence: 0, answers: 0, winnerVotes: 0, reason: 'no run saw it' };
  }
  const answers = ballots.filter((b) => b.kind === 'cca');
  if (answers.length > 0) {
    const count = new Map<string, number>();
    for (const b of answers) count.set(b.label, (count.get(b.label) ?? 0) + 1);
    const ranked = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const [label, n] = ranked[0];
    const tied = ranked.filter(([, c]) => c === n).map(([l]) => l);
    if (tied.length > 1) {
      return {
        ...base, label: 'Unknown', kind: 'unknown', confidence: 0, answers: answers.length, winnerVotes: 0,
        reason: `tie: ${tied.map((l) => `${l} ${n}`).join(' vs ')} of ${ballots.length} run(s) (${describeVotes(votes)})`,
      };
    }
    const mine = answers.filter((b) => b.label === label);
    const meanConf = mine.reduce((a, b) => a + b.confidence, 0) / mine.length;
    const confidence = meanConf * (n / answers.length) * (0.5 + (0.5 * answers.length) / ballots.length);
    return {
      ...base, label, kind: 'cca', confidence: round(confidence), answers: answers.length, winnerVotes: n,
      reason: `${n} of ${ballots.length} run(s) say ${label} (${describeVotes(votes)}; non-answers abstain)`,
    };
  }
  const media = ballots.filter((b) => b.kind === 'media');
  if (media.length > 0) {
    return {
      ...base, label: media[0].label, kind: 'media', confidence: round(media.length / ballots.length), answers: 0, winnerVotes: media.length,
      reason: `${media.length} of ${ballots.length} run(s): real-time media (${describeVotes(votes)})`,
    };
  }
  const [label, n] = Object.entries(votes).sort((a, b) => b[1] - a[1] || rankNonAnswer(a[0]) - rankNonAnswer(b[0]) || a[0].localeCompare(b[0]))[0];
  const kind = ballots.find((b) => b.label === label)!.kind;
  return {
    ...base, label, kind, confidence: 0, answers: 0, winnerVotes: n,
    reason: `no run identified a CCA (${describeVotes(votes)})`,
  };
}

/** What one repetition contributes: its fused rows (RunOutcome has these). */
export interface RunForVote {
  runId: string;
  summary: SummaryRow[];
  byAssetType: AssetTypeRow[];
}

export interface VoteGroup extends VoteOutcome {
  dimension: 'asset-type' | 'host';
  /** The asset type or the host. */
  key: string;
  /** Asset-type groups: the hosts that served it; host groups: the asset types it served. */
  related: string[];
  protocols: string[];
  /** Each run's ballot, in run order. */
  perRun: Ballot[];
}

export function voteGroups(runs: readonly RunForVote[]): VoteGroup[] {
  const groups = new Map<string, { dimension: VoteGroup['dimension']; key: string; related: Set<string>; protocols: Set<string>; perRun: Ballot[] }>();
  const add = (dimension: VoteGroup['dimension'], key: string, related: string[], protocols: string[], b: Ballot) => {
    const id = `${dimension}\u0000${key}`;
    const g = groups.get(id) ?? { dimension, key, related: new Set<string>(), protocols: new Set<string>(), perRun: [] };
    for (const r of related) g.related.add(r);
    for (const p of protocols) g.protocols.add(p);
    g.perRun.push(b);
    groups.set(id, g);
  };
  for (const run of runs) {
    for (const r of run.byAssetType) {
      add('asset-type', r.assetType, r.hosts, r.protocols, { runId: run.runId, label: r.label, kind: r.kind, confidence: r.confidence });
    }
    for (const r of run.summary) {
      add('host', r.host, r.assetTypes, [r.protocol], { runId: run.runId, label: r.label, kind: r.kind, confidence: r.confidence });
    }
  }
  return [...groups.values()]
    .map((g) => ({
      dimension: g.dimension, key: g.key, related: [...g.related].sort(), protocols: [...g.protocols].sort(), perRun: g.perRun,
      ...majorityVote(g.perRun),
    }))
    .sort((a, b) => (a.dimension === b.dimension ? a.key.localeCompare(b.key) : a.dimension === 'asset-type' ? -1 : 1));
}
