/**
 * How many jobs a worker runs at once, adapted to what its host does to the traces. Each job's
 * probes go through their own bottleneck, but the delay lines share the host: past some number
 * of jobs at once (which depends on the host and on what else runs there) the host holds the
 * bottlenecks back, the traces come out disturbed, and their verdicts are withheld or measured
 * again. More jobs at once then buy no more answers (docs/benchmarks/crawl.md: on one 2-core VM
 * five at once gave 151 site-measurements per hour with 39 of 54 flows disturbed, three at once
 * 145 per hour with 4). A crawl gets answers at about N x (1 - d) for N jobs at once with a
 * share d of disturbed probes (a disturbed probe is measured again: its time is lost), so one
 * job fewer pays as soon as d passes 1/2 (measured on that VM, by probes running beside each
 * other: d 0.85 at five, 0.80 at four, 0.35 at three and two, 0.15 alone). So the worker's
 * `concurrency` is a ceiling: one job fewer when over half of the recent probes were disturbed,
 * one more after a run of clean ones.
 *
 * A browser job counts each of its profiles' traces as a probe (the same bounds, on the
 * disturbance its run recorded): not measured again, but its verdicts are withheld all the
 * same, so the same half applies. Only probes that began once the running jobs were down to the
 * new number count toward the next change: those that began earlier ran beside more jobs. After
 * a while with none (a worker that moved on to other crawls) the ceiling comes back.
 */

export interface JobsAtOnceOptions {
  /** The most jobs at once (the crawl's or the command's `concurrency`). */
  ceiling: number;
  /** How many of the latest probes (since the last change) the decrease looks at (default 10). */
  window?: number;
  /**
   * One fewer when this many of the window's probes were disturbed (default 6 of 10: over half;
   * a host that disturbs a third of the probes gets there in 3% of windows, one that disturbs
   * three quarters in 78%).
   */
  lowerAt?: number;
  /** One more after this many clean probes in a row (default 12: a host that disturbs 3 in 10 gets there from a given probe 1.4% of the time). */
  raiseAfter?: number;
  /** Back to the ceiling after this long with no probe seen (default 10 min). */
  idleResetMs?: number;
}

/** One trace through a bottleneck: a probe's transfer, or one profile of a browser job. */
export interface TraceSeen {
  disturbed: boolean;
  /** When it began (ms since the epoch; a browser job's start for each of its profiles). */
  startedAt: number;
}

export interface JobsAtOnceChange { from: number; to: number; why: string }

export class JobsAtOnce {
  private current: number;
  /** False after a decrease until the jobs running are within the new limit. */
  private settled = true;
  /** Probes that began before this (the last change, or when the jobs settled after it) do not count. */
  private countFrom = -Infinity;
  /** The latest probes counted since the last change, oldest first: disturbed or not. */
  private latest: boolean[] = [];
  private cleanInARow = 0;
  private lastSeenAt = -Infinity;
  private readonly window: number;
  private readonly lowerAt: number;
  private readonly raiseAfter: number;
  private readonly idleResetMs: number;

  constructor(private readonly o: JobsAtOnceOptions) {
    this.current = o.ceiling;
    this.window = o.window ?? 10;
    this.lowerAt = o.lowerAt ?? 6;
    this.raiseAfter = o.raiseAfter ?? 12;
    this.idleResetMs = o.idleResetMs ?? 10 * 60_000;
  }

  limit(): number {
    return this.current;
  }

  /**
   * The worker's jobs running now: after a decrease, traces count again once these are within
   * the limit. A long while with no trace seen brings the ceiling back (the change, if any).
   */
  running(jobs: number, now = Date.now()): JobsAtOnceChange | null {
    if (!this.settled && jobs <= this.current) { this.settled = true; this.countFrom = now; }
    if (this.current < this.o.ceiling && this.lastSeenAt > -Infinity && now - this.lastSeenAt >= this.idleResetMs) {
      return this.change(this.o.ceiling, `no trace for ${Math.round((now - this.lastSeenAt) / 60_000)} min`, now);
    }
    return null;
  }

  /** One trace measured (a probe's, or a browser job's profile); returns the change it caused, if any. */
  observe(p: TraceSeen, now = Date.now()): JobsAtOnceChange | null {
    this.lastSeenAt = now;
    if (!this.settled || p.startedAt < this.countFrom) return null;
    this.latest.push(p.disturbed);
    if (this.latest.length > this.window) this.latest.shift();
    this.cleanInARow = p.disturbed ? 0 : this.cleanInARow + 1;
    const disturbed = this.latest.filter(Boolean).length;
    if (disturbed >= this.lowerAt && this.current > 1) {
      return this.change(this.current - 1, `${disturbed} of the last ${this.latest.length} traces went through a bottleneck the host disturbed`, now);
    }
    if (this.cleanInARow >= this.raiseAfter && this.current < this.o.ceiling) {
      return this.change(this.current + 1, `${this.cleanInARow} clean traces in a row`, now);
    }
    return null;
  }

  private change(to: number, why: string, now: number): JobsAtOnceChange {
    const from = this.current;
    this.current = to;
    // More: the jobs running are already within it. Fewer: wait until they are (running()).
    this.settled = to > from;
    this.countFrom = now;
    this.latest = [];
    this.cleanInARow = 0;
    return { from, to, why };
  }
}
