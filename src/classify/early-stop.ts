/**
 * When a growing trace has said enough (issue 20, shorter traces): the flow is re-classified at
 * checkpoints while its capture grows, and the measurement stops once the calibrated verdict has
 * named the same CCA, at or above the answer threshold, at K checkpoints in a row. A floor keeps
 * early checkpoints from deciding (a few seconds of slow start name nothing reliably: at 10 s
 * the cross-validated accuracy was 72% with 18 of 130 wrong), and a ceiling (today's full length)
 * ends a flow that never settles, so an Unknown-so-far flow costs what it costs today.
 *
 * The rule itself is pure (decideStop): the live probe feeds it verdicts of the capture so far;
 * replayStop feeds it verdicts of a recorded series cut at each checkpoint (offline benchmark).
 */
import type { BifSeries } from '../trace/types.js';
import { truncateSeries } from '../trace/truncate.js';
import { classifyFlow, type ClassifyContext } from './classifyFlow.js';
import { fuseProfiles } from './fusion.js';
import type { Model } from './model.js';
import type { Verdict, VerdictKind } from './verdict.js';

export interface StopRule {
  /**
   * The first checkpoint, in seconds of trace since the flow's first packet: no verdict before it
   * counts, so the earliest stop is floor + (K - 1) x step.
   */
  floorSeconds: number;
  /** Re-classify every this much trace. */
  stepSeconds: number;
  /** The same confident answer at this many checkpoints in a row stops the flow. */
  stableCheckpoints: number;
  /** Stop here whatever the verdicts say (today's full trace). */
  ceilingSeconds: number;
  /**
   * An answer counts only at or above this calibrated confidence. The shipped model's own
   * minimum answer already turns weaker answers into Unknown; this guards uncalibrated models.
   */
  minConfidence: number;
}

/**
 * The shortest median trace within 1 point of the full length's accuracy (bench/trace-length.ts,
 * docs/benchmarks/speed.md "Accuracy vs trace length"). First tuned on the g1 grid (floor 12);
 * retuned on a fresh quiet-host lab round (s29 r1) with the shipped model: floor 12 lost 8 points
 * (a profile stable at 12-18 s on an answer the other profile never shared), floor 14 none, at
 * the same 20 s median; K 3 lost 8 points, K 2 17-25 (a verdict held for 4-6 s can still flip).
 */
export const DEFAULT_STOP_RULE: StopRule = { floorSeconds: 14, stepSeconds: 2, stableCheckpoints: 4, ceilingSeconds: 30, minConfidence: 0.8 };

/** One checkpoint's verdict, as much of it as the rule looks at. */
export interface CheckpointVerdict {
  seconds: number;
  label: string;
  kind: VerdictKind;
  confidence: number;
}

export type StopWhy = 'stable' | 'ceiling' | 'flow-ended';

export type StopDecision =
  | { stop: false }
  | { stop: true; why: StopWhy; label: string; confidence: number; neededSeconds: number };

/**
 * The i-th trace length at which a flow is judged (floor, floor + step, ..., the ceiling last),
 * or null past the ceiling. Integer steps from the floor, so float sums never drift past the
 * ceiling; an infinite ceiling (a scenario activity, bounded by its own length) never ends.
 */
export function checkpointAt(rule: StopRule, i: number): number | null {
  const at = rule.floorSeconds + i * rule.stepSeconds;
  if (at < rule.ceilingSeconds - 1e-9) return at;
  const previous = rule.floorSeconds + (i - 1) * rule.stepSeconds;
  return i === 0 || previous < rule.ceilingSeconds - 1e-9 ? rule.ceilingSeconds : null;
}

/** Every checkpoint of a rule with a finite ceiling. */
export function checkpointTimes(rule: StopRule): number[] {
  if (!Number.isFinite(rule.ceilingSeconds)) throw new Error('checkpointTimes needs a finite ceiling');
  const out: number[] = [];
  for (let i = 0, at = checkpointAt(rule, 0); at !== null; at = checkpointAt(rule, ++i)) out.push(at);
  return out;
}

const answers = (v: CheckpointVerdict, rule: StopRule): boolean => v.kind === 'cca' && v.confidence >= rule.minConfidence;

/**
 * The rule. `history` holds the checkpoints judged so far, oldest first; `flowEnded` says the
 * flow finished on its own (nothing more will come). Stable: the last K checkpoints at or past
 * the floor all answer the same CCA confidently.
 */
export function decideStop(history: readonly CheckpointVerdict[], rule: StopRule, flowEnded = false): StopDecision {
  const last = history[history.length - 1];
  if (!last) return { stop: false };
  const done = (why: StopWhy): StopDecision => ({ stop: true, why, label: last.label, confidence: last.confidence, neededSeconds: last.seconds });
  const k = Math.max(1, rule.stableCheckpoints);
  const recent = history.slice(-k);
  if (recent.length === k && recent.every((v) => v.seconds >= rule.floorSeconds - 1e-9 && answers(v, rule) && v.label === last.label)) return done('stable');
  if (last.seconds >= rule.ceilingSeconds - 1e-9) return done('ceiling');
  if (flowEnded) return done('flow-ended');
  return { stop: false };
}

/** A single flow's verdict with the model's calibration applied (its single-profile map and minimum answer). */
export function calibratedFlowVerdict(series: BifSeries, model: Model, ctx: ClassifyContext = {}): Verdict {
  return fuseProfiles([classifyFlow(series, model, ctx)], { calibration: model.calibration });
}

export const checkpointOf = (seconds: number, v: Pick<Verdict, 'label' | 'kind' | 'confidence'>): CheckpointVerdict => ({ seconds, label: v.label, kind: v.kind, confidence: v.confidence });

export interface ReplayedStop {
  /** The trace length the verdict needed (seconds since the flow's first packet). */
  neededSeconds: number;
  why: StopWhy;
  /** The raw verdict of the series cut there (for fusing profiles as a probe run would). */
  verdict: Verdict;
  history: CheckpointVerdict[];
}

/**
 * The rule replayed on a recorded series: cut at each checkpoint, judged, stopped where the rule
 * says. `judgeAt` lets a caller reuse verdicts across rules (benchmark); by default the series
 * cut there is classified with the model's calibration.
 */
export function replayStop(series: BifSeries, rule: StopRule, judgeAt: (seconds: number) => { raw: Verdict; calibrated: Verdict }): ReplayedStop {
  const end = series.t.length ? series.t[series.t.length - 1] : 0;
  const history: CheckpointVerdict[] = [];
  for (const at of checkpointTimes(rule)) {
    // A flow that ended before this checkpoint is judged once, whole, and stops there.
    const ended = end <= at;
    const seconds = ended ? end : at;
    const v = judgeAt(seconds);
    history.push(checkpointOf(seconds, v.calibrated));
    const d = decideStop(history, rule, ended);
    if (d.stop) return { neededSeconds: d.neededSeconds, why: d.why, verdict: v.raw, history };
  }
  // checkpointTimes always ends at the ceiling, where decideStop stops.
  throw new Error('unreachable: the ceiling always stops');
}

/** replayStop with verdicts computed from the series itself (cut at each checkpoint). */
export function replayStopOn(series: BifSeries, model: Model, rule: StopRule, ctx: ClassifyContext = {}): ReplayedStop {
  return replayStop(series, rule, (seconds) => {
    const raw = classifyFlow(truncateSeries(series, seconds), model, ctx);
    return { raw, calibrated: fuseProfiles([raw], { calibration: model.calibration }) };
  });
}

/**
 * One flow judged while its trace grows (the live watchers of probes and scenario runs): each
 * call brings the series so far; every checkpoint it has reached is judged on the series cut
 * there, so a look that comes late (a loaded host) judges what the rule's schedule says, not a
 * later trace, and catches up on checkpoints it missed. Once stopped, the decision stays.
 */
export class GrowingFlowJudge {
  readonly history: CheckpointVerdict[] = [];
  private next = 0;
  private decided: StopDecision = { stop: false };

  constructor(private readonly model: Model, private readonly rule: StopRule, private readonly ctx: ClassifyContext = {}) {}

  /** The series so far (seconds since the flow's first packet); returns the rule's decision. */
  judge(series: BifSeries): StopDecision {
    const seconds = series.t.length ? series.t[series.t.length - 1] : 0;
    for (let at = checkpointAt(this.rule, this.next); at !== null && !this.decided.stop && seconds >= at - 1e-9; at = checkpointAt(this.rule, this.next)) {
      this.history.push(checkpointOf(at, calibratedFlowVerdict(truncateSeries(series, at), this.model, this.ctx)));
      this.next++;
      this.decided = decideStop(this.history, this.rule);
    }
    return this.decided;
  }

  decision(): StopDecision {
    return this.decided;
  }

  /** The trace length the next checkpoint needs (seconds), or null past the last one. */
  nextCheckpointSeconds(): number | null {
    return this.decided.stop ? null : checkpointAt(this.rule, this.next);
  }

  /** The checkpoints as plain JSON (confidence to three places). */
  checkpoints(): Array<{ seconds: number; label: string; confidence: number }> {
    return this.history.map((c) => ({ seconds: c.seconds, label: c.label, confidence: Math.round(c.confidence * 1000) / 1000 }));
  }
}
