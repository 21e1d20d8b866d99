/**
 * vote.json: the majority vote of `ccbrowse run --repeat N`, written beside the N run
 * directories (`<out>/<date>-<scenario>-<voteId>.vote.json`). One group per asset type and per
 * server host, each with the label the N runs voted for, the ballots per label, a confidence
 * and each run's own ballot. The rule itself is src/session/vote.ts; `rule` repeats it in words.
 * Versioned like the run files: `schemaVersion` is bumped on a breaking change, unknown keys are
 * dropped on read.
 */
import { z } from 'zod';
import { SCENARIO_KINDS } from './schema.js';
import { parseFile } from './read.js';
import { writeJsonAtomic } from './write.js';

export const VOTE_SCHEMA_VERSION = 1;

const id = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
const confidence = z.number().min(0).max(1);
const count = z.number().int().nonnegative();

export const ballotSchema = z.object({
  runId: id,
  label: z.string().min(1),
  kind: z.string().min(1),
  confidence,
});

export const voteGroupSchema = z.object({
  dimension: z.enum(['asset-type', 'host']),
  /** The asset type or the server host. */
  key: z.string().min(1),
  /** Asset-type groups: hosts that served it; host groups: the asset types it served. */
  related: z.array(z.string()),
  protocols: z.array(z.string()),
  label: z.string().min(1),
  kind: z.string().min(1),
  confidence,
  /** Ballots per label (answers and non-answers). */
  votes: z.record(z.string(), count),
  /** Runs that cast a ballot (saw this group). */
  ballots: count,
  /** Ballots that named a CCA. */
  answers: count,
  winnerVotes: count,
  reason: z.string(),
  perRun: z.array(ballotSchema),
});

export const voteFileSchema = z.object({
  schemaVersion: z.literal(VOTE_SCHEMA_VERSION),
  /** Shared by the N runs (run.json repeat.group). */
  voteId: id,
  createdAt: z.iso.datetime({ offset: true }),
  scenario: z.object({ name: z.string().min(1), kind: z.enum(SCENARIO_KINDS), file: z.string() }),
  site: z.string().min(1),
  region: z.string().min(1),
  mode: z.enum(['lab', 'internet']),
  profiles: z.array(z.string().min(1)).min(1),
  /** The model of the verdicts that voted. */
  model: z.string(),
  /** N as asked; `runs` lists the ones that ran (fewer when interrupted). */
  repeat: z.number().int().positive(),
  runs: z.array(z.object({ runId: id, dir: z.string(), status: z.enum(['complete', 'incomplete']) })).min(1),
  /** The voting rule, in words. */
  rule: z.string(),
  groups: z.array(voteGroupSchema),
});

export type VoteFile = z.infer<typeof voteFileSchema>;
export type VoteGroupRecord = z.infer<typeof voteGroupSchema>;

/** Validates, then writes atomically (temp + rename). */
export function writeVoteFile(path: string, vote: z.input<typeof voteFileSchema>): VoteFile {
  const r = voteFileSchema.safeParse(vote);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new Error(`refusing to write ${path}: ${first.path.map(String).join('.') || '(top level)'}: ${first.message}`);
  }
  writeJsonAtomic(path, r.data);
  return r.data;
}

export function readVoteFile(path: string): VoteFile {
  return parseFile(path, voteFileSchema);
}
