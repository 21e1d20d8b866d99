/**
 * A sender's cumulative sent and lost bytes, sampled on a fixed time grid. WHY: whole-flow
 * loss counts cannot be recounted for part of a flow, so a trace cut at 30 s (datasets) or
 * shorter (shorter-trace studies) had to drop them; with checkpoints the cut keeps the counts
 * as they stood at its last checkpoint, at most one grid step early.
 */
import type { LossCheckpoint } from './types.js';

/** Share of the sent bytes that were lost (at most 1); null when the trace could not count them. */
export function lossShareOf(loss: { sentBytes: number; lostBytes: number } | null | undefined): number | null {
  return loss && loss.sentBytes > 0 ? Math.min(1, loss.lostBytes / loss.sentBytes) : null;
}

/** Grid step: a cut recounts losses to within this much flow time. */
export const LOSS_CHECKPOINT_SECONDS = 0.5;

export class LossTimeline {
  private sent = 0;
  private lost = 0;
  private next = NaN;
  /** [time, bytes sent before it, bytes lost before it], times on the caller's clock. */
  readonly checkpoints: LossCheckpoint[] = [];

  constructor(private readonly step = LOSS_CHECKPOINT_SECONDS) {}

  /** Payload bytes the sender put on the wire at time t (retransmissions included). */
  onSent(t: number, bytes: number): void {
    this.advance(t);
    this.sent += bytes;
  }

  /** Bytes declared lost (QUIC) or retransmitted (TCP) at time t. */
  onLost(t: number, bytes: number): void {
    this.advance(t);
    this.lost += bytes;
  }

  private advance(t: number): void {
    if (Number.isNaN(this.next)) this.next = t + this.step;
    // Events arrive in capture order; a checkpoint holds everything strictly before its time.
    if (t >= this.next) {
      this.checkpoints.push([this.next, this.sent, this.lost]);
      // Nothing happened between it and t, so it stands for every grid point up to t: one
      // checkpoint per gap, however long (a corrupt capture's time jump cannot make millions).
      this.next += this.step * (Math.floor((t - this.next) / this.step) + 1);
      // At times so large that a step is below a double's resolution, move past t anyway.
      if (!(this.next > t)) this.next = t + Math.max(this.step, Math.abs(t) * Number.EPSILON * 2);
    }
  }
}

/**
 * Checkpoints moved to a clock that starts at `origin` (the flow's first packet), rounded up to
 * 0.1 ms: rounding down could place a checkpoint before events it counts, so a cut there would
 * see a loss from after it.
 */
export function rebaseCheckpoints(checkpoints: readonly LossCheckpoint[], origin: number): LossCheckpoint[] {
  return checkpoints.map(([t, sent, lost]) => [Math.ceil((t - origin) * 1e4 - 1e-6) / 1e4, sent, lost]);
}

/**
 * The counts as they stood at `maxSeconds` (checkpoint times on the same clock): the last
 * checkpoint at or before it (no event lies between it and the next grid point it skipped), or the whole-flow totals when the flow ended before it.
 * Null when the flow ran past the cut but no checkpoint came before it.
 */
export function lossAt(
  loss: { sentBytes: number; lostBytes: number; checkpoints?: LossCheckpoint[] },
  maxSeconds: number,
  flowEndSeconds: number,
): { sentBytes: number; lostBytes: number; checkpoints: LossCheckpoint[] } | null {
  const cps = loss.checkpoints ?? [];
  if (flowEndSeconds <= maxSeconds) return { sentBytes: loss.sentBytes, lostBytes: loss.lostBytes, checkpoints: cps };
  let n = 0;
  while (n < cps.length && cps[n][0] <= maxSeconds) n++;
  if (n === 0) return null;
  const [, sentBytes, lostBytes] = cps[n - 1];
  return { sentBytes, lostBytes, checkpoints: cps.slice(0, n) };
}
