/**
 * Runs many probes against a running lab with a small worker pool. Each probe measures through
 * its own path (kept for the round's next probe of the same profile: probe/paths.ts), so a few
 * run concurrently; more than ~3 at once only adds CPU contention on small hosts, which distorts
 * timing (and therefore BiF).
 */
import { throwIfInterrupted } from '../util/interrupt.js';
import type { RunningLab } from '../lab/state.js';
import { KeptProbePaths } from '../probe/paths.js';
import { probeOnce, resolveProbeTarget, type CrossTraffic, type ProbeResult, type ProbeTarget, type TransferWatch } from '../probe/probe.js';
import { BadInputError } from '../util/errors.js';
import type { Profile } from '../shaper/profile.js';
import { labelFor, type LabTarget } from './labels.js';

export interface ProbeJob {
  target: LabTarget;
  region: string;
  profile: Profile;
  path: string;
  rep: number;
}

export interface ProbeOutcome extends ProbeJob {
  result: ProbeResult | null;
  error?: string;
}

/** Every bulk origin in the lab for one region: tcp-<cca>, quinn-<cc>, aioquic-<cc>. */
export function labTargets(lab: RunningLab, region: string, only?: string[]): LabTarget[] {
  const out: LabTarget[] = [];
  for (const o of lab.origins) {
    if (o.region !== region || !/^(tcp|quinn|aioquic|quiche)-/.test(o.name)) continue;
    if (only && !only.includes(o.name)) continue;
    const protocol = o.serve === 'tcp' ? 'tcp' : 'quic';
    out.push({ origin: o.name, protocol, stack: protocol === 'tcp' ? 'tcp' : (o.stack ?? 'quic'), cca: o.cca, label: labelFor(protocol, o.cca), host: o.hosts[0] });
  }
  return out.sort((a, b) => a.origin.localeCompare(b.origin));
}

/** Runs fn over items, `concurrency` at a time; once `signal` aborts no new item starts (the result then has gaps). */
export async function runPool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}

/** Cross traffic for every probe: a download of `bytes` from lab origin `origin` (same region), `leadSeconds` ahead. */
export interface CrossTrafficSpec { origin: string; bytes: number; leadSeconds: number }

/** The cross-traffic download of one region as a probe target. */
export function crossTrafficTarget(lab: RunningLab, spec: CrossTrafficSpec, region: string): CrossTraffic {
  const o = lab.origins.find((x) => x.name === spec.origin && x.region === region);
  if (!o) throw new BadInputError(`no lab origin ${spec.origin} in region ${region} for cross traffic`, "'ccbrowse lab status' lists the origins");
  if (o.serve !== 'tcp') throw new BadInputError(`cross traffic comes from a TCP origin; ${spec.origin} serves HTTP/3`);
  return { target: resolveProbeTarget(lab, `https://${o.hosts[0]}/bytes/${spec.bytes}`, region), leadSeconds: spec.leadSeconds };
}

export async function runProbes(lab: RunningLab, jobs: ProbeJob[], opts: {
  outDir: string; concurrency?: number; progress?: (m: string) => void; crossTraffic?: CrossTrafficSpec;
  /** Ctrl-C: running probes stop and keep what they captured; no new one starts; then this throws. */
  signal?: AbortSignal;
  /** A watcher per probe that may end its transfer early (`--stop-when-stable`); none: every transfer runs to its end. */
  watchFor?: (target: ProbeTarget, profile: Profile) => TransferWatch | undefined;
}): Promise<ProbeOutcome[]> {
  const say = opts.progress ?? (() => {});
  let done = 0;
  // Cross traffic makes a probe slower (it shares the link): more time before giving up.
  const timeoutSeconds = opts.crossTraffic ? 180 : 90;
  // A wrong cross-traffic origin is one error, not one per job.
  if (opts.crossTraffic) for (const region of new Set(jobs.map((j) => j.region))) crossTrafficTarget(lab, opts.crossTraffic, region);
  // Probes measure through kept paths: removing namespaces mid-round stalls the host under the others (probe/paths.ts).
  const paths = new KeptProbePaths();
  const outcomes = await runPool(jobs, opts.concurrency ?? 3, async (job) => {
    try {
      const t = resolveProbeTarget(lab, `https://${job.target.host}${job.path}`, job.region);
      const crossTraffic = opts.crossTraffic ? crossTrafficTarget(lab, opts.crossTraffic, job.region) : undefined;
      const watch = opts.watchFor?.(t, job.profile);
      const result = await probeOnce(lab, t, job.profile, { region: job.region, outDir: opts.outDir, timeoutSeconds, crossTraffic, signal: opts.signal, watch, paths });
      const stopped = result.earlyStop?.stoppedTransfer ? `, stopped: ${result.earlyStop.label} after ${result.earlyStop.neededSeconds?.toFixed(1)} s of trace` : '';
      say(`[${++done}/${jobs.length}] ${job.target.origin} ${job.profile.name} ${job.region} #${job.rep}: ${result.status} ${result.seconds.toFixed(1)} s${stopped}${result.error ? ` (${result.error})` : ''}`);
      return { ...job, result, ...(result.status === 'complete' ? {} : { error: result.error ?? 'incomplete' }) };
    } catch (e) {
      say(`[${++done}/${jobs.length}] ${job.target.origin} ${job.profile.name}: failed: ${(e as Error).message}`);
      return { ...job, result: null, error: (e as Error).message };
    }
  }, opts.signal).finally(() => paths.close(say));
  throwIfInterrupted(opts.signal);
  return outcomes;
}
