/**
 * The path a probe measures through: its three namespaces (client, shaper, upstream), the
 * bottleneck of one profile in the shaper, and the upstream's link to the lab router.
 *
 * A single probe builds its own and removes it after. A crawl keeps its paths (KeptProbePaths)
 * and measures each probe through an idle one of the same profile and lab. WHY: removing a
 * network namespace sets off the kernel's namespace clean-up, which froze the whole 2-core VM
 * for 50-200 ms at a time while the crawl's other probes were measuring (docs/benchmarks/crawl.md,
 * "Jobs at once on a new VM"). Between two probes on one path nothing needs resetting: the queues
 * have drained (a path rests QUIET_MS first), the flow classifier hands out classes in turn (a
 * probe's flows still get distinct ones), the delay line's log of late windows is emptied as the
 * path is taken, and a probe reads its ground truth and its disturbance by its own time window.
 */
import { CleanupStack } from '../net/cleanup.js';
import { newRunId } from '../net/netns.js';
import { createTopology, type Topology } from '../net/topology.js';
import { applyShaper, type AppliedShaper } from '../shaper/shaper.js';
import type { Profile } from '../shaper/profile.js';
import { connectRunToLab } from '../lab/network.js';
import type { RunningLab } from '../lab/state.js';
import { CcbError } from '../util/errors.js';
import { abortableSleep, throwIfInterrupted } from '../util/interrupt.js';

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

/** How long a released path rests before its next probe: the last probe's stragglers are gone by then. */
export const QUIET_MS = 1000;

interface Kept {
  path: ProbePath;
  stack: CleanupStack;
  /** Lab run and profile: a path is only lent for exactly these. */
  key: string;
  labRun: string;
  releasedAt: number;
}

/** One run of a lab: a lab restarted under the same name has a new supervisor (and router). */
function labRunOf(lab: RunningLab): string {
  return `${lab.name}|${lab.pid}|${lab.routerNs}`;
}

export class KeptProbePaths {
  private readonly idle: Kept[] = [];
  private readonly lent = new Set<Kept>();
  private closing: Promise<string[]> | undefined;
  /** Paths built, and probes that found one kept for them. */
  readonly counts = { built: 0, reused: 0, removed: 0 };

  /** An idle path for this lab and profile (the one idle longest), or a new one. */
  async acquire(lab: RunningLab, profile: Profile, signal?: AbortSignal): Promise<PathLease> {
    if (this.closing) throw new CcbError('the crawl\'s probe paths are being removed');
    const labRun = labRunOf(lab);
    // Paths into an earlier run of this lab lead nowhere: its router is gone.
    for (const k of this.idle.filter((x) => x.labRun !== labRun && x.labRun.startsWith(`${lab.name}|`))) await this.remove(k);
    const key = `${labRun}|${JSON.stringify(profile)}`;
    for (;;) {
      const k = this.idle.filter((x) => x.key === key).sort((a, b) => a.releasedAt - b.releasedAt)[0];
      if (!k) break;
      this.idle.splice(this.idle.indexOf(k), 1);
      this.lent.add(k);
      try {
        await abortableSleep(Math.max(0, k.releasedAt + QUIET_MS - Date.now()), signal);
        // Empties the late-window log (and says whether the delay line still runs).
        for (const dl of [k.path.shaper.delayLine, k.path.shaper.ackDelayLine]) await dl?.takeStats();
      } catch (err) {
        this.lent.delete(k);
        await this.remove(k);
        throwIfInterrupted(signal);
        continue; // a delay line that died while idle: that path is gone, try the next
      }
      this.counts.reused++;
      return this.lease(k, false);
    }
    const pathId = newRunId();
    const stack = new CleanupStack(`probe-path-${pathId}`);
    try {
      const path = await buildProbePath(stack, lab, profile, pathId, signal);
      const k: Kept = { path, stack, key, labRun, releasedAt: 0 };
      this.lent.add(k);
      this.counts.built++;
      return this.lease(k, true);
    } catch (err) {
      await stack.unwind();
      throw err;
    }
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

  private async remove(k: Kept): Promise<void> {
    const i = this.idle.indexOf(k);
    if (i >= 0) this.idle.splice(i, 1);
    this.counts.removed++;
    await k.stack.unwind();
  }

  /** Paths kept now (idle and lent). */
  get size(): number {
    return this.idle.length + this.lent.size;
  }

  /**
   * Removes every idle path, all at once (a crawl's end, Ctrl-C); paths still lent are removed as
   * they come back. Returns what could not be removed (left to the reaper).
   */
  close(): Promise<string[]> {
    this.closing ??= (async () => {
      const all = this.idle.splice(0);
      this.counts.removed += all.length;
      const failures = await Promise.all(all.map((k) => k.stack.unwind()));
      return failures.flat();
    })();
    return this.closing;
  }
}
