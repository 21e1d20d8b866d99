/**
 * What a measurement (the runs of one scenario in one region) shows for an expectation: its
 * rows (asset type, host, or host and asset type) from each run, as the runs reported them
 * (fused across profiles, src/session/summary.ts), and across runs the majority vote of
 * `--repeat` (src/session/vote.ts): CCA answers compete, non-answers abstain. A non-answer
 * also says whose it is: the measurement's (every profile was left out of fusion because its
 * conditions lay outside the model's training, the host disturbed the bottleneck, or the
 * profile is not for classification; nothing could be read) or the service's (flows judged
 * and matching no known controller, profiles disagreeing, too short, application-limited).
 */
import { hostMatches } from '../scenario/expectations.js';
import type { SummaryFile } from '../results/summary.js';
import { majorityVote } from '../session/vote.js';
import type { PlannedExpectation } from './plan.js';

type HostRow = SummaryFile['byHost'][number];
type TypeRow = SummaryFile['byAssetType'][number];
type HostTypeRow = SummaryFile['byHostAssetType'][number];
type Row = HostRow | TypeRow | HostTypeRow;

/** One run as a check reads it (live: the run's outcome; --from-runs: run.json + summary.json). */
export interface CheckRun {
  runId: string;
  dir: string;
  status: 'complete' | 'incomplete';
  incompleteReason?: string;
  scenario: string;
  site: string;
  region: string;
  startedAt: string;
  endedAt: string | null;
  /** Profiles marked not for classification (their flows are Unknown). */
  notForClassification: string[];
  byHost: HostRow[];
  byAssetType: TypeRow[];
  byHostAssetType: HostTypeRow[];
  /** The page's requests no server answered, per host and asset type (summary.json). */
  unanswered: SummaryFile['unanswered'];
}

/** Whose a non-answer is: see the file's comment. */
export type NonAnswerCause = 'measurement' | 'service';

export interface Observation {
  /** "video", "media.example.com", or "video from media.example.com". */
  subject: string;
  label: string;
  kind: string;
  confidence: number;
  flows: number;
  bytes: number;
  /** Runs that saw it, of the measurement's runs. */
  runsSeen: number;
  /** Ballots per label, when more than one run saw it. */
  votes?: Record<string, number>;
  reason: string;
  /**
   * For a "low confidence" Unknown: the classifier's best label, held back because its
   * calibrated confidence stayed below the model's minimum answer (over runs: their vote).
   */
  withheld?: { label: string; confidence: number; minAnswer: number };
  /** For a non-answer (kind other than cca and media). */
  nonAnswer?: { cause: NonAnswerCause; detail: string; retryHelps: boolean };
}

const ANSWER_KINDS = new Set(['cca', 'media']);

export function isAnswer(kind: string): boolean {
  return ANSWER_KINDS.has(kind);
}

/** Whose one run's non-answer is. */
function causeOf(row: Row, run: CheckRun): NonNullable<Observation['nonAnswer']> {
  const profiles = Object.entries(row.perProfile);
  if (profiles.length === 0) return { cause: 'measurement', detail: row.reason || 'no flow of it could be read', retryHelps: true };
  const left = profiles.map(([p, v]) => (run.notForClassification.includes(p)
    ? { why: `profile ${p} is not for classification`, retry: false }
    : v.notJudged ? { why: v.notJudged.reason, retry: v.notJudged.cause === 'host-disturbed' } : undefined));
  if (left.every((l) => l !== undefined)) {
    return { cause: 'measurement', detail: [...new Set(left.map((l) => l!.why))].join('; '), retryHelps: left.some((l) => l!.retry) };
  }
  // The fused reason says how profiles combined; each profile's own says why it found nothing.
  const own = [...new Set(profiles.filter(([, v]) => v.reason && v.reason !== row.reason).map(([p, v]) => `${p}: ${v.reason}`))];
  return { cause: 'service', detail: [row.reason, ...own].join('; '), retryHelps: true };
}

function rowsOf(x: PlannedExpectation, run: CheckRun): Array<{ subject: string; row: Row }> {
  if (x.assetType !== undefined && x.host !== undefined) {
    return run.byHostAssetType.filter((r) => r.assetType === x.assetType && hostMatches(x.host!, r.host)).map((row) => ({ subject: `${row.assetType} from ${row.host}`, row }));
  }
  if (x.host !== undefined) return run.byHost.filter((r) => hostMatches(x.host!, r.host)).map((row) => ({ subject: row.host, row }));
  return run.byAssetType.filter((r) => r.assetType === x.assetType).map((row) => ({ subject: row.assetType, row }));
}

/**
 * When no run answered, the runs' held-back answers vote as answers would (the same rule:
 * non-answers abstain and lower the confidence, a tie is none), so several runs leaning the
 * same way show where the evidence points.
 */
function withheldVote(rows: readonly Row[], runIds: readonly string[]): Observation['withheld'] {
  if (!rows.some((r) => r.withheld)) return undefined;
  const v = majorityVote(rows.map((r, i) => (r.withheld
    ? { runId: runIds[i], label: r.withheld.label, kind: 'cca', confidence: r.withheld.confidence }
    : { runId: runIds[i], label: r.label, kind: r.kind, confidence: r.confidence })));
  if (v.kind !== 'cca') return undefined;
  return { label: v.label, confidence: v.confidence, minAnswer: Math.max(...rows.map((r) => r.withheld?.minAnswer ?? 0)) };
}

/** Every subject the expectation matches in the runs, each voted over the runs that saw it. */
export function observe(x: PlannedExpectation, runs: readonly CheckRun[]): Observation[] {
  const bySubject = new Map<string, Array<{ run: CheckRun; row: Row }>>();
  for (const run of runs) {
    for (const { subject, row } of rowsOf(x, run)) (bySubject.get(subject) ?? bySubject.set(subject, []).get(subject)!).push({ run, row });
  }
  return [...bySubject.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([subject, seen]) => {
    const flows = seen.reduce((a, s) => a + s.row.flows, 0);
    const bytes = seen.reduce((a, s) => a + s.row.bytes, 0);
    let o: Observation;
    if (seen.length === 1) {
      const r = seen[0].row;
      o = { subject, label: r.label, kind: r.kind, confidence: r.confidence, flows, bytes, runsSeen: 1, reason: r.reason, ...(r.withheld ? { withheld: r.withheld } : {}) };
    } else {
      const v = majorityVote(seen.map((s) => ({ runId: s.run.runId, label: s.row.label, kind: s.row.kind, confidence: s.row.confidence })));
      o = { subject, label: v.label, kind: v.kind, confidence: v.confidence, flows, bytes, runsSeen: seen.length, votes: v.votes, reason: v.reason };
      const w = v.answers === 0 ? withheldVote(seen.map((s) => s.row), seen.map((s) => s.run.runId)) : undefined;
      if (w) o.withheld = w;
    }
    if (!isAnswer(o.kind)) {
      // A vote without an answer: every ballot was a non-answer, or the answers tied.
      const causes = seen.filter((s) => !isAnswer(s.row.kind)).map((s) => causeOf(s.row, s.run));
      const tie = causes.length < seen.length;
      const all = causes.length > 0 && !tie && causes.every((c) => c.cause === 'measurement');
      o.nonAnswer = all
        ? { cause: 'measurement', detail: [...new Set(causes.map((c) => c.detail))].join(' / '), retryHelps: causes.some((c) => c.retryHelps) }
        : { cause: 'service', detail: tie ? o.reason : causes.find((c) => c.cause === 'service')?.detail ?? o.reason, retryHelps: true };
    }
    return o;
  });
}
