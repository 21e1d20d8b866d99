/**
 * summary.json: a run's fused verdicts, as its end tables show them (src/session/summary.ts):
 * one row per server host, per asset type, and per host and asset type, each with the verdict
 * fused across the run's profiles and what each profile contributed. Written by analysis
 * beside verdicts.json (and rewritten by `ccbrowse analyze`), so `ccbrowse check --from-runs`
 * re-checks a run with exactly the verdicts the run itself reported, without re-analysing it.
 * Versioned like the other run files; unknown keys are dropped on read.
 */
import { z } from 'zod';
import { parseFile } from './read.js';
import { writeJsonAtomic } from './write.js';

export const SUMMARY_SCHEMA_VERSION = 1;
export const SUMMARY_FILE = 'summary.json';

const id = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
const confidence = z.number().min(0).max(1);
const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();

export const profileVerdictSchema = z.object({
  flowId: id,
  label: z.string().min(1),
  kind: z.string().min(1),
  confidence,
  reason: z.string(),
  bytes: amount,
  durationMs: amount,
  /** The profile gave no evidence: conditions outside the model's training, or a disturbed bottleneck. */
  notJudged: z.object({ cause: z.enum(['outside-training', 'host-disturbed']), reason: z.string() }).optional(),
});

export const withheldSchema = z.object({ label: z.string().min(1), confidence, minAnswer: confidence });

const rowVerdict = {
  label: z.string().min(1),
  /** cca | short-flow | application-limited | unknown | media */
  kind: z.string().min(1),
  confidence,
  reason: z.string(),
  /** A "low confidence" Unknown's held-back answer: label, calibrated confidence, the model's minimum answer. */
  withheld: withheldSchema.optional(),
  perProfile: z.record(z.string(), profileVerdictSchema),
};

export const hostRowSchema = z.object({ ...rowVerdict, host: z.string(), assetTypes: z.array(z.string()), protocol: z.string(), flows: count, bytes: amount });
export const assetTypeRowSchema = z.object({ ...rowVerdict, assetType: z.string().min(1), hosts: z.array(z.string()), protocols: z.array(z.string()), flows: count, bytes: amount });
export const hostAssetTypeRowSchema = z.object({ ...rowVerdict, host: z.string(), assetType: z.string().min(1), protocols: z.array(z.string()), flows: count, bytes: amount });

/** Requests of a host and asset type that got no response (a host that never answered). */
export const unansweredRowSchema = z.object({ host: z.string(), assetType: z.string().min(1), requests: count, perProfile: z.record(z.string(), z.array(z.string())) });

export const summaryFileSchema = z.object({
  schemaVersion: z.literal(SUMMARY_SCHEMA_VERSION),
  runId: id,
  /** The model of the verdicts (as verdicts.json). */
  model: z.string(),
  analysedAt: z.iso.datetime({ offset: true }),
  byHost: z.array(hostRowSchema),
  byAssetType: z.array(assetTypeRowSchema),
  byHostAssetType: z.array(hostAssetTypeRowSchema),
  /** Share of the page's bytes tied to flows, per profile. */
  byteCoverage: z.record(z.string(), amount),
  /** The page's requests no server answered, per host and asset type (absent in older files). */
  unanswered: z.array(unansweredRowSchema).default([]),
});

export type SummaryFile = z.infer<typeof summaryFileSchema>;

/** Validates, then writes atomically. */
export function writeSummaryFile(path: string, summary: z.input<typeof summaryFileSchema>): SummaryFile {
  const r = summaryFileSchema.safeParse(summary);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new Error(`refusing to write ${path}: ${first.path.map(String).join('.') || '(top level)'}: ${first.message}`);
  }
  writeJsonAtomic(path, r.data);
  return r.data;
}

export function readSummaryFile(path: string): SummaryFile {
  return parseFile(path, summaryFileSchema);
}
