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
 * - a "low confidence" Unknown whose held-back label (the classifier's best, below the model's
 *   minimum answer) is not allowed and reaches the expectation's minimum confidence: fail, as
 *   an answer would ("expected BBRv1, observed CUBIC (0.79, below the classifier's 0.8 minimum
 *   answer)"); a `retry` rule measures again first. Any other held-back label is a non-answer
 *   (a pass needs the classifier's own answer), its reason naming the label;
 * - nothing observed (the site never served it, its host never answered, the run failed):
 *   inconclusive, never a pass (after the retries of a `retry` rule); the reason names the
 *   requests no server answered ("no flow answered for video ...").
 *
 * Several subjects (a host pattern matching several hosts) each get a verdict; the worst
 * stands: fail, then (pending) retry, then inconclusive, then warn, then pass.
 */
import { hostMatches } from '../scenario/expectations.js';
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
/** A held-back answer's confidence, rounded down: 0.7996 below a 0.8 minimum reads 0.79, never "0.80, below 0.8". */
export const heldBackConfidence = (c: number) => (Math.floor(c * 100 + 1e-9) / 100).toFixed(2);
/** The model's threshold as it was set ("0.8"), not padded. */
const threshold = (c: number) => String(Number(c.toFixed(2)));

/** "BBRv1 0.84", "Unknown", "CUBIC 0.79 (below the 0.8 minimum answer)", for messages and tables. */
export function labelWithConfidence(o: Pick<Observation, 'label' | 'kind' | 'confidence' | 'withheld'>): string {
  if (isAnswer(o.kind)) return `${o.label} ${conf(o.confidence)}`;
  return o.withheld ? `${o.withheld.label} ${heldBackConfidence(o.withheld.confidence)} (below the ${threshold(o.withheld.minAnswer)} minimum answer)` : o.label;
}

/**
 * Whether a non-answer's evidence points at a label the expectation does not allow: the
 * classifier held its best label back (its calibrated confidence stayed below the model's
 * minimum answer), and that confidence reaches the expectation's own minimum. The check fails
 * on that, as on an answer; it never passes on a held-back label (a pass needs the classifier's
 * answer), so a team's low minimum can only make the check stricter, never more lenient.
 */
export function pointsElsewhere(x: Pick<PlannedExpectation, 'cca' | 'minConfidence'>, o: Pick<Observation, 'kind' | 'withheld'>): boolean {
  const w = isAnswer(o.kind) ? undefined : o.withheld;
  return w !== undefined && w.confidence >= x.minConfidence && !labelAllowed(x.cca, w.label);
}

function judgeOne(x: PlannedExpectation, o: Observation, runs: number, canRetry: boolean): Judgement {
  const expected = describeSpecs(x.cca);
  const who = (m: string) => (o.subject === x.assetType || o.subject === x.host ? m : `${o.subject}: ${m}`);
  if (isAnswer(o.kind) && o.confidence >= x.minConfidence) {
    return labelAllowed(x.cca, o.label)
      ? { verdict: 'pass', reason: who(`${o.label} (${conf(o.confidence)}) is ${expected}`) }
      : { verdict: 'fail', reason: who(`expected ${expected}, observed ${o.label} (${conf(o.confidence)})`) };
  }
  const w = isAnswer(o.kind) ? undefined : o.withheld;
  if (w && pointsElsewhere(x, o)) {
    const observed = `${w.label} (${heldBackConfidence(w.confidence)}, below the classifier's ${threshold(w.minAnswer)} minimum answer)`;
    // A retry rule asks for more runs first: their vote may settle it either way.
    if (x.onNonAnswer === 'retry' && canRetry) return { verdict: 'retry', reason: who(`pointing at ${observed}, measuring again`) };
    return { verdict: 'fail', reason: who(`expected ${expected}, observed ${observed}`) };
  }
  const why = isAnswer(o.kind)
    ? `${o.label} at confidence ${conf(o.confidence)}, below the minimum ${conf(x.minConfidence)}`
    : w
      ? `${o.label}: the classifier's best, ${w.label} at ${conf(w.confidence)}, is below its ${threshold(w.minAnswer)} minimum answer${w.confidence < x.minConfidence ? ` and the rule's ${conf(x.minConfidence)}` : ''}`
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

/** The page's requests of the expectation's asset type and/or host that no server answered. */
function unansweredOf(x: PlannedExpectation, runs: readonly CheckRun[]): string[] {
  const mine = runs.flatMap((r) => r.unanswered).filter((u) => (x.assetType === undefined || u.assetType === x.assetType) && (x.host === undefined || hostMatches(x.host, u.host)));
  const byKey = new Map<string, { requests: number; why: Set<string> }>();
  for (const u of mine) {
    const key = x.assetType !== undefined ? u.host : `${u.host} (${u.assetType})`;
    const k = byKey.get(key) ?? { requests: 0, why: new Set<string>() };
    k.requests += u.requests;
    for (const w of Object.values(u.perProfile).flat()) k.why.add(w);
    byKey.set(key, k);
  }
  return [...byKey.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([key, k]) => `${k.requests} request(s) to ${key} without a response (${[...k.why].join(', ')})`);
}

/** Why nothing was observed, from the runs: no flow answered (a host that never answered), or not seen at all. */
function nothingSeen(x: PlannedExpectation, region: string, runs: readonly CheckRun[]): string {
  const subject = x.assetType && x.host ? `${x.assetType} from ${x.host}` : x.assetType ?? `host ${x.host}`;
  if (runs.length === 0) return `no run of the scenario in ${region}`;
  const incomplete = runs.filter((r) => r.status === 'incomplete').map((r) => r.incompleteReason ?? 'incomplete');
  const after = `${runs.length} run(s)`;
  const unanswered = unansweredOf(x, runs);
  const what = unanswered.length ? `no flow answered for ${subject} in ${region} after ${after}: ${unanswered.join('; ')}` : `no ${subject} seen in ${region} after ${after}`;
  return `${what}${incomplete.length ? ` (${[...new Set(incomplete)].join('; ')})` : ''}`;
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
