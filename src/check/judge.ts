/**
 * An expectation's verdict in one region, from what the measurement observed (observe.ts):
 *
 * - an answer (a CCA, or WebRTC media) at or above the minimum confidence: pass when one of
 *   the allowed labels, else fail ("expected BBR, observed CUBIC");
 * - a non-answer (Unknown, Short flow, Application-limited, or an answer below the minimum
 *   confidence) counts as the rule says: `fail`, `warn` (passes, with a warning), or `retry`
 *   (measure again while the budget lasts, then inconclusive). A non-answer that is the
 *   measurement's (conditions outside the model's training, a disturbed bottleneck, a profile
 *   not for classification) is never a failure of the service: under `fail` it is
 *   inconclusive, and `retry` measures again only when that can help (a disturbed host);
 * - nothing observed (the site never served it, the run failed): inconclusive, never a pass
 *   (after the retries of a `retry` rule).
 *
 * Several subjects (a host pattern matching several hosts) each get a verdict; the worst
 * stands: fail, then (pending) retry, then inconclusive, then warn, then pass.
 */
import { describeSpecs, labelAllowed } from './labels.js';
import { isAnswer, type CheckRun, type Observation } from './observe.js';
import type { PlannedExpectation } from './plan.js';

export type CaseVerdict = 'pass' | 'warn' | 'fail' | 'inconclusive';
/** While measuring: `retry` asks for one more run. */
export type PendingVerdict = CaseVerdict | 'retry';

const RANK: Record<PendingVerdict, number> = { fail: 4, retry: 3, inconclusive: 2, warn: 1, pass: 0 };

export interface Judgement {
  verdict: PendingVerdict;
  reason: string;
}

const conf = (c: number) => c.toFixed(2);

/** "BBRv1 0.84", "Unknown", for messages and tables. */
export function labelWithConfidence(o: Pick<Observation, 'label' | 'kind' | 'confidence'>): string {
  return isAnswer(o.kind) ? `${o.label} ${conf(o.confidence)}` : o.label;
}

function judgeOne(x: PlannedExpectation, o: Observation, runs: number, canRetry: boolean): Judgement {
  const expected = describeSpecs(x.cca);
  const who = (m: string) => (o.subject === x.assetType || o.subject === x.host ? m : `${o.subject}: ${m}`);
  if (isAnswer(o.kind) && o.confidence >= x.minConfidence) {
    return labelAllowed(x.cca, o.label)
      ? { verdict: 'pass', reason: who(`${o.label} (${conf(o.confidence)}) is ${expected}`) }
      : { verdict: 'fail', reason: who(`expected ${expected}, observed ${o.label} (${conf(o.confidence)})`) };
  }
  const why = isAnswer(o.kind)
    ? `${o.label} at confidence ${conf(o.confidence)}, below the minimum ${conf(x.minConfidence)}`
    : `${o.label}: ${o.nonAnswer?.detail ?? o.reason}`;
  const measurement = !isAnswer(o.kind) && o.nonAnswer?.cause === 'measurement';
  const retryHelps = !measurement || o.nonAnswer!.retryHelps;
  switch (x.onNonAnswer) {
    case 'warn':
      return { verdict: 'warn', reason: who(`no answer, counted as a warning (${why})`) };
    case 'retry':
      if (canRetry && retryHelps) return { verdict: 'retry', reason: who(`no answer yet (${why})`) };
      return { verdict: 'inconclusive', reason: who(retryHelps ? `no answer after ${runs} run(s) (${why})` : `no answer, and measuring again would not change it (${why})`) };
    default:
      return measurement
        ? { verdict: 'inconclusive', reason: who(`the measurement could not judge it, not counted as a failure (${why})`) }
        : { verdict: 'fail', reason: who(`expected ${expected}, no answer (${why})`) };
  }
}

/** Why nothing was observed, from the runs. */
function nothingSeen(x: PlannedExpectation, region: string, runs: readonly CheckRun[]): string {
  const subject = x.assetType && x.host ? `${x.assetType} from ${x.host}` : x.assetType ?? `host ${x.host}`;
  if (runs.length === 0) return `no run of the scenario in ${region}`;
  const incomplete = runs.filter((r) => r.status === 'incomplete').map((r) => r.incompleteReason ?? 'incomplete');
  const after = `${runs.length} run(s)`;
  return `no ${subject} seen in ${region} after ${after}${incomplete.length ? ` (${[...new Set(incomplete)].join('; ')})` : ''}`;
}

/** The expectation's verdict in one region. */
export function judge(x: PlannedExpectation, region: string, observed: readonly Observation[], runs: readonly CheckRun[], canRetry: boolean): Judgement {
  if (observed.length === 0) {
    const reason = nothingSeen(x, region, runs);
    return { verdict: canRetry && x.onNonAnswer === 'retry' ? 'retry' : 'inconclusive', reason };
  }
  const each = observed.map((o) => judgeOne(x, o, runs.length, canRetry));
  const worst = each.reduce((a, b) => (RANK[b.verdict] > RANK[a.verdict] ? b : a));
  const reasons = each.filter((j) => j.verdict === worst.verdict).map((j) => j.reason);
  return { verdict: worst.verdict, reason: reasons.join('; ') };
}

/** The check's outcome and exit code: 1 for any failure, 4 when only inconclusive ones kept it from passing. */
export function overall(verdicts: readonly CaseVerdict[]): { outcome: 'pass' | 'fail' | 'inconclusive'; exitCode: 0 | 1 | 4 } {
  if (verdicts.includes('fail')) return { outcome: 'fail', exitCode: 1 };
  if (verdicts.includes('inconclusive')) return { outcome: 'inconclusive', exitCode: 4 };
  return { outcome: 'pass', exitCode: 0 };
}
