/**
 * The path a probe measures through: its three namespaces (client, shaper, upstream), the
 * bottleneck of one profile in the shaper, and the upstream's link to the lab router.
 *
 * A single probe builds its own and removes it after. A crawl worker, `probe --repeat` and lab
 * training rounds keep their paths (KeptProbePaths) and measure each probe through an idle one of
 * the same profile and lab. WHY: removing a
 * network namespace sets off the kernel's namespace clean-up, which froze the whole 2-core VM
 * for 50-200 ms at a time while the crawl's other probes were measuring (docs/benchmarks/crawl.md,
 * "Jobs at once on a new VM"). What a probe leaves on its path, and how the next is kept from it:
 * - packets still on their way (queues, delay stages): the path rests until they have drained;
 * - flow classes: the classifier starts a new generation, so a reused 5-tuple gets a fresh class;
 * - the delay line's log of late windows: emptied as the path is lent (the native log is bounded);
 * - TCP's per-destination metrics (RTT, reordering) for the path's fixed lab address: not kept,
 *   in the client namespace here and in the lab's origins (lab/network.ts);
 * - connections still closing at the origins: a probe keeps the ground truth of its own window,
 *   opened once its path is lent, and its readers keep its flow's port (validate/run-dir.ts).
 */
import { CleanupStack } from '../net/cleanup.js';
import { newRunId, sysctl } from '../net/netns.js';
import { createTopology, type Topology } from '../net/topology.js';
import { applyShaper, type AppliedShaper } from '../shaper/shaper.js';
import { bufferBytes } from '../shaper/bottleneck-model.js';
import type { Profile } from '../shaper/profile.js';
import { connectRunToLab } from '../lab/network.js';
import type { RunningLab } from '../lab/state.js';
import { CcbError } from '../util/errors.js';
import { abortableSleep, isInterruption, throwIfInterrupted } from '../util/interrupt.js';

export interface ProbePath {
  topo: Topology;
  shaper: AppliedShaper;
  /** The upstream's address on the lab router: what the origins see (their ground truth's key). */
  runAddr: string;
}

/** Builds a path on `stack` (which removes it). */
export async function buildProbePath(stack: CleanupStack, lab: RunningLab, profile: Profile, pathId: string, signal?: AbortSignal): Promise<ProbePath> {
  throwIfInterrupted(signal);
  const topo = await createTopology(stack, pathId, { clientMtu: profile.clientMtu });
  // The client's TCP remembers nothing of one probe's connections for the next.
  await sysctl(topo.clientNs, 'net.ipv4.tcp_no_metrics_save', '1');
  throwIfInterrupted(signal);
  const shaper = await applyShaper(stack, topo, profile);
  throwIfInterrupted(signal);
  const { runAddr } = await connectRunToLab(stack, { runId: pathId, upstreamNs: topo.upstreamNs, routerNs: lab.routerNs });
  return { topo, shaper, runAddr };
}

/** A kept path lent to one probe; `release` gives it back (or removes it when it may be broken). */
export interface PathLease {
  path: ProbePath;
  /** Whether this probe built the path (false: kept from an earlier probe). */
  fresh: boolean;
  release(healthy: boolean): Promise<void>;
}

/**
 * How long a released path rests before its next probe: what the last probe left in flight
 * has drained by then (both delay stages, a full queue at the rate, and half a second for the
 * lab's own server-side path).
 */
export function restMs(profile: Profile): number {
  const drainMs = (bufferBytes(profile) * 8) / profile.rateKbit;
  return Math.max(1000, Math.ceil(2 * profile.delayMs + drainMs + 500));
}

/** How long a path may stay idle before it is removed (a worker runs for days). */
export const IDLE_LIMIT_MS = 10 * 60_000;

interface Kept {
  path: ProbePath;
  stack: CleanupStack;
  /** Lab run and profile: a path is only lent for exactly these. */
  key: string;
  labRun: string;
  restMs: number;
  releasedAt: number;
}

/** One run of a lab: a lab restarted under the same name has a new supervisor (and router). */
function labRunOf(lab: RunningLab): string {
  return `${lab.name}|${lab.pid}|${lab.routerNs}`;
}

export type BuildPath = typeof buildProbePath;

export class KeptProbePaths {
  private readonly idle: Kept[] = [];
  private readonly lent = new Set<Kept>();
  private readonly failures: string[] = [];
  private closing: Promise<string[]> | undefined;
  /** Paths built, probes that found one kept for them, and paths removed. */
  readonly counts = { built: 0, reused: 0, removed: 0 };

  /**
   * `idleLimitMs`: a path idle this long is removed at the next acquire (a profile or lab the
   * worker no longer uses, fewer jobs at once than before). `build` is for tests of the pool's own logic.
   */
  constructor(private readonly build: BuildPath = buildProbePath, private readonly idleLimitMs = IDLE_LIMIT_MS) {}

  /** An idle path for this lab and profile (the one idle longest), or a new one. */
  async acquire(lab: RunningLab, profile: Profile, signal?: AbortSignal): Promise<PathLease> {
    this.refuseIfClosing();
    const labRun = labRunOf(lab);
    // Paths into an earlier run of this lab lead nowhere (its router is gone), and paths long
    // idle are not needed. Taken out of the idle list at once, so none is lent while removed.
    const stale = this.idle.filter((x) => (x.labRun !== labRun && x.labRun.startsWith(`${lab.name}|`)) || Date.now() - x.releasedAt > this.idleLimitMs);
    for (const k of stale) this.idle.splice(this.idle.indexOf(k), 1);
    await Promise.all(stale.map((k) => this.remove(k)));
    const key = `${labRun}|${JSON.stringify(profile)}`;
    for (;;) {
      this.refuseIfClosing();
      const k = this.idle.filter((x) => x.key === key).sort((a, b) => a.releasedAt - b.releasedAt)[0];
      if (!k) break;
      this.idle.splice(this.idle.indexOf(k), 1);
      this.lent.add(k);
      try {
        await abortableSleep(Math.max(0, k.releasedAt + k.restMs - Date.now()), signal);
        this.refuseIfClosing();
        // Empties the late-window log (and says whether the delay line still runs).
        for (const dl of [k.path.shaper.delayLine, k.path.shaper.ackDelayLine]) await dl?.takeStats();
        await k.path.shaper.classifier.nextGeneration();
      } catch (err) {
        this.lent.delete(k);
        // Interrupted while it rested: the path is as good as it was, for whoever comes next.
        if (isInterruption(err) || this.closing) {
          if (this.closing) await this.remove(k);
          else this.idle.push(k);
          throw err;
        }
        await this.remove(k);
        continue; // its delay line died while it was idle: that path is gone, try the next
      }
      this.counts.reused++;
      return this.lease(k, false);
    }
    const pathId = newRunId();
    const stack = new CleanupStack(`probe-path-${pathId}`);
    try {
      const path = await this.build(stack, lab, profile, pathId, signal);
      const k: Kept = { path, stack, key, labRun, restMs: restMs(profile), releasedAt: 0 };
      this.lent.add(k);
      this.counts.built++;
      return this.lease(k, true);
    } catch (err) {
      this.failures.push(...await stack.unwind());
      throw err;
    }
  }

  private refuseIfClosing(): void {
    if (this.closing) throw new CcbError('the crawl\'s probe paths are being removed');
  }

  private lease(k: Kept, fresh: boolean): PathLease {
    let released = false;
    return {
      path: k.path,
      fresh,
      release: async (healthy) => {
        if (released) return;
        released = true;
        this.lent.delete(k);
        if (!healthy || this.closing) return this.remove(k);
        k.releasedAt = Date.now();
        this.idle.push(k);
      },
    };
  }

  /** Removes a path no longer in the idle list. */
  private async remove(k: Kept): Promise<void> {
    this.counts.removed++;
    this.failures.push(...await k.stack.unwind());
  }

  /** Paths kept now (idle and lent). */
  get size(): number {
    return this.idle.length + this.lent.size;
  }

  /**
   * Removes every idle path, all at once (a crawl's end, Ctrl-C); a path still lent is removed
   * when it comes back. Returns what could not be removed so far (left to the reaper), each
   * also said through `say`.
   */
  close(say?: (m: string) => void): Promise<string[]> {
    this.closing ??= (async () => {
      await Promise.all(this.idle.splice(0).map((k) => this.remove(k)));
      for (const f of this.failures) say?.(`could not remove ${f} (the reaper will at the next start)`);
      return this.failures;
    })();
    return this.closing;
  }
}
