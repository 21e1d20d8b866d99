/**
 * How many jobs a worker runs at once, adapted to what its host does to the traces. Each job's
 * probes go through their own bottleneck, but the delay lines share the host: past some number
 * of jobs at once (which depends on the host and on what else runs there) the host holds the
 * bottlenecks back, the traces come out disturbed, and their verdicts are withheld or measured
 * again. More jobs at once then buy no more answers (docs/benchmarks/crawl.md: on one 2-core VM
 * five at once gave 151 site-measurements per hour with 39 of 54 flows disturbed, three at once
 * 145 per hour with 4). A crawl gets answers at about N x (1 - d) for N jobs at once with a
 * share d of disturbed probes (a disturbed probe is measured again: its time is lost), so one
 * job fewer pays as soon as d passes 1/2 (measured on that VM: d ~0.9 at five and four at once,
 * ~0.75 at three, ~0.3 at two). So the worker's `concurrency` is a ceiling: one job fewer when
 * over half of the recent probes were disturbed, one more after a run of clean ones.
 *
 * Only probes that began once the running jobs were down to the new number count toward the
 * next change: those that began earlier ran beside more jobs.
 */

export interface JobsAtOnceOptions {
  /** The most jobs at once (the crawl's or the command's `concurrency`). */
  ceiling: number;
  /** Probes judged between changes (default 10: a few rounds of jobs, two profiles each). */
  window?: number;
  /**
   * One fewer when this many of a window's probes were disturbed (default 6 of 10: over half;
   * a host that disturbs a third of the probes gets there in 3% of windows, one that disturbs
   * three quarters in 78%).
   */
  lowerAt?: number;
  /** One more after this many clean probes in a row (default 8). */
  raiseAfter?: number;
}

export interface ProbeSeen {
  disturbed: boolean;
  /** When the probe began (ms since the epoch). */
  startedAt: number;
}

export interface JobsAtOnceChange { from: number; to: number; why: string }

export class JobsAtOnce {
  private current: number;
  /** Since when the jobs running have been no more than the limit (after the last change). */
  private settledAt = -Infinity;
  private settled = true;
  private seen = 0;
  private disturbed = 0;
  private cleanInARow = 0;
  private readonly window: number;
  private readonly lowerAt: number;
  private readonly raiseAfter: number;

  constructor(private readonly o: JobsAtOnceOptions) {
    this.current = o.ceiling;
    this.window = o.window ?? 10;
    this.lowerAt = o.lowerAt ?? 6;
    this.raiseAfter = o.raiseAfter ?? 8;
  }

  limit(): number {
    return this.current;
  }

  /** The worker's jobs running now: probes count again once they are down to the limit. */
  running(jobs: number, now = Date.now()): void {
    if (!this.settled && jobs <= this.current) { this.settled = true; this.settledAt = now; }
  }

  /** One probe measured; returns the change it caused, if any. */
  observe(p: ProbeSeen, now = Date.now()): JobsAtOnceChange | null {
    if (!this.settled || p.startedAt < this.settledAt) return null;
    this.seen++;
    if (p.disturbed) { this.disturbed++; this.cleanInARow = 0; } else this.cleanInARow++;
    if (this.disturbed >= this.lowerAt && this.current > 1) {
      return this.change(this.current - 1, `${this.disturbed} of the last ${this.seen} probes went through a bottleneck the host disturbed`, now);
    }
    if (this.cleanInARow >= this.raiseAfter && this.current < this.o.ceiling) {
      return this.change(this.current + 1, `${this.cleanInARow} clean probes in a row`, now);
    }
    if (this.seen >= this.window) this.restart();
    return null;
  }

  private change(to: number, why: string, now: number): JobsAtOnceChange {
    const from = this.current;
    this.current = to;
    // One more: the jobs running are already within it. One fewer: wait until they are.
    this.settled = to > from;
    this.settledAt = now;
    this.cleanInARow = 0;
    this.restart();
    return { from, to, why };
  }

  private restart(): void {
    this.seen = 0;
    this.disturbed = 0;
  }
}
