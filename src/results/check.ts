/**
 * The result of `ccbrowse check` (its --json, and what --baseline reads back): one case per
 * expectation and region with its verdict (pass, warn, fail, inconclusive), the reason, what
 * was observed and the runs it came from; every asset type each scenario showed in each
 * region (what the next check's baseline compares with); and the changes since a baseline.
 * Versioned like the run files: `schemaVersion` is bumped on a breaking change, unknown keys
 * are dropped on read.
 */
import { z } from 'zod';
import { parseFile } from './read.js';

export const CHECK_SCHEMA_VERSION = 1;

const confidence = z.number().min(0).max(1);
const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();
const isoTime = z.iso.datetime({ offset: true });

export const CASE_VERDICTS = ['pass', 'warn', 'fail', 'inconclusive'] as const;
export const DRIFT_CHANGES = ['moved', 'lost', 'found'] as const;

export const observationSchema = z.object({
  subject: z.string(),
  label: z.string(),
  kind: z.string(),
  confidence,
  flows: count,
  bytes: amount,
  runsSeen: count,
  votes: z.record(z.string(), count).optional(),
  reason: z.string(),
  /** A "low confidence" Unknown's held-back answer: the classifier's best label, its calibrated confidence, the model's minimum answer. */
  withheld: z.object({ label: z.string(), confidence, minAnswer: confidence }).optional(),
  nonAnswer: z.object({ cause: z.enum(['measurement', 'service']), detail: z.string(), retryHelps: z.boolean() }).optional(),
});

export const checkRunSchema = z.object({
  runId: z.string(),
  dir: z.string(),
  status: z.enum(['complete', 'incomplete']),
  incompleteReason: z.string().optional(),
  startedAt: isoTime,
  /** The run's page in the report (`ccbrowse report`), under --report-url. */
  reportUrl: z.string(),
});

export const checkCaseSchema = z.object({
  id: z.string(),
  name: z.string(),
  scenario: z.string(),
  site: z.string(),
  region: z.string(),
  source: z.object({ file: z.string(), line: z.number().int().positive().optional() }),
  expectation: z.object({
    assetType: z.string().optional(),
    host: z.string().optional(),
    cca: z.array(z.string()),
    minConfidence: confidence,
    onNonAnswer: z.enum(['fail', 'warn', 'retry']),
  }),
  verdict: z.enum(CASE_VERDICTS),
  reason: z.string(),
  observed: z.array(observationSchema),
  /** The runs that were judged (a --repeat vote, and the retries of a `retry` rule). */
  runs: z.array(checkRunSchema),
  seconds: amount,
});

/** One asset type a scenario showed in a region: what a later check compares with. */
export const observedTypeSchema = z.object({
  scenario: z.string(),
  site: z.string(),
  region: z.string(),
  assetType: z.string(),
  label: z.string(),
  kind: z.string(),
  confidence,
  flows: count,
  bytes: amount,
  runs: count,
});

export const driftSchema = z.object({
  scenario: z.string().optional(),
  site: z.string(),
  region: z.string(),
  assetType: z.string(),
  /** moved: one controller to another; lost: a controller, now no answer; found: no answer, now a controller. */
  change: z.enum(DRIFT_CHANGES),
  from: z.object({ label: z.string(), kind: z.string(), at: z.string().optional() }),
  to: z.object({ label: z.string(), kind: z.string() }),
  /** "video moved from BBRv1 to CUBIC in sg". */
  message: z.string(),
});

export const checkReportSchema = z.object({
  schemaVersion: z.literal(CHECK_SCHEMA_VERSION),
  name: z.string(),
  createdAt: isoTime,
  tool: z.string(),
  /** live: scenarios were run; from-runs: existing run directories were re-checked. */
  mode: z.enum(['live', 'from-runs']),
  inputs: z.array(z.string()),
  regions: z.array(z.string()),
  repeat: z.number().int().positive(),
  outcome: z.enum(['pass', 'fail', 'inconclusive']),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(4)]),
  counts: z.object({ pass: count, warn: count, fail: count, inconclusive: count }),
  cases: z.array(checkCaseSchema),
  observations: z.array(observedTypeSchema),
  baseline: z.object({ source: z.string(), kind: z.enum(['check', 'store']), asOf: z.string().nullable() }).nullable(),
  drift: z.array(driftSchema),
});

export type CheckReport = z.infer<typeof checkReportSchema>;
export type CheckCase = z.infer<typeof checkCaseSchema>;
export type CheckRunRef = z.infer<typeof checkRunSchema>;
export type ObservedType = z.infer<typeof observedTypeSchema>;
export type Drift = z.infer<typeof driftSchema>;

export function readCheckReport(path: string): CheckReport {
  return parseFile(path, checkReportSchema);
}
