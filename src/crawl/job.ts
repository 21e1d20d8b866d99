/**
 * Running one crawl job: a probe of a URL through each profile, or a browser session (the
 * target's own scenario, or a generic page visit). What comes back is a result to record or a
 * failure with its reason; whether the failure is worth a retry is said here, where it is known.
 */
import { readRunningLab, type RunningLab } from '../lab/state.js';
import { probeOnce, resolveProbeTarget, type ProbeResult, type ProbeTarget, type TransferWatch } from '../probe/probe.js';
import type { KeptProbePaths } from '../probe/paths.js';
import { loadProfile, type Profile } from '../shaper/profile.js';
import { loadScenario } from '../scenario/load.js';
import { scenarioSchema, type Scenario } from '../scenario/schema.js';
import { scrollThrough } from '../scenario/helpers.js';
import type { ScenarioContext } from '../scenario/define.js';
import { runScenarioSession } from '../session/run.js';
import { labUpstream } from '../session/lab-upstream.js';
import { internetUpstream } from '../session/upstream.js';
import { CcbError, ExitCode } from '../util/errors.js';
import { browserRunTraces, traceDisturbance } from './disturbed.js';
import type { TraceSeen } from './jobs-at-once.js';
import type { Job, JobResult } from './queue.js';

/** A job that did not produce a result: why, and whether retrying may help. */
export class JobFailure extends Error {
  constructor(message: string, readonly permanent = false) {
    super(message);
    this.name = 'JobFailure';
  }
}

export interface JobContext {
  /** Where run and probe directories go (this host). */
  outDir: string;
  /** Aborted on Ctrl-C, the job's time limit, or the crawl's cancellation. */
  signal: AbortSignal;
  progress?: (m: string) => void;
  /**
   * Probe jobs that ask to stop when stable: the watcher of one transfer, TCP or HTTP/3 (the caller brings
   * the model and the rule; the crawl layer knows nothing of verdicts). Absent: transfers run to the end.
   */
  watchProbe?: (target: ProbeTarget, profile: Profile) => TransferWatch;
  /**
   * Each complete probe, retakes included, and each profile of a complete browser run: whether
   * the host disturbed its bottleneck (jobs-at-once.ts).
   */
  traceMeasured?: (p: TraceSeen) => void;
  /** The worker's kept probe paths (probe/paths.ts): probes measure through them instead of building their own. */
  paths?: KeptProbePaths;
}

/** The page visit a bare URL gets in browser mode: load, scroll through, stay a while. */
export function pageVisitScenario(url: string, visitSeconds: number, lab: boolean): Scenario {
  const host = new URL(url).hostname;
  return scenarioSchema.parse({
    name: `visit-${host.replace(/[^a-z0-9.-]/gi, '-').toLowerCase()}`.slice(0, 64),
    description: `generic page visit of ${url} (crawl)`,
    kind: 'static',
    startUrl: url,
    lab,
    activitySeconds: visitSeconds,
    steps: async ({ page, signal }: ScenarioContext) => { await scrollThrough(page, { steps: 6, pauseMs: 500, signal }); },
  });
}

function labOf(job: Job): RunningLab | undefined {
  if (!job.spec.lab) return undefined;
  const lab = readRunningLab(job.spec.lab);
  if (!lab) throw new JobFailure(`lab ${job.spec.lab} is not running`);
  if (!lab.regions.some((r) => r.name === job.region)) throw new JobFailure(`lab ${job.spec.lab} has no region ${job.region}`, true);
  return lab;
}

/** A bad-input error (a URL no origin serves, a scenario that does not load) will fail again. */
function asFailure(err: unknown): JobFailure {
  if (err instanceof JobFailure) return err;
  const permanent = err instanceof CcbError && err.exitCode === ExitCode.badInput;
  return new JobFailure((err as Error)?.message ?? String(err), permanent);
}

/** A probe measured again because the host disturbed it: what was set aside, and why. */
interface Remeasure { profile: string; why: string; setAside: { runId: string; dir: string } }

async function runProbeJob(job: Job, lab: RunningLab, profiles: Profile[], ctx: JobContext): Promise<JobResult> {
  const target = resolveProbeTarget(lab, job.spec.url!, job.region);
  const probes: ProbeResult[] = [];
  const remeasured: Remeasure[] = [];
  const probe = async (profile: Profile) => {
    const watch = job.spec.stopWhenStable ? ctx.watchProbe?.(target, profile) : undefined;
    const p = await probeOnce(lab, target, profile, { region: job.region, outDir: ctx.outDir, timeoutSeconds: job.spec.timeoutSeconds, signal: ctx.signal, progress: ctx.progress, watch, paths: ctx.paths });
    // No delay-line figures, no evidence either way: not counted.
    if (p.status === 'complete' && p.disturbance) ctx.traceMeasured?.({ disturbed: traceDisturbance(p) !== null, startedAt: Date.parse(p.startedAt) });
    return p;
  };
  for (const profile of profiles) {
    if (ctx.signal.aborted) break;
    let p = await probe(profile);
    // A bottleneck the host held back (a busy or shared machine, several jobs at once) gives a
    // trace whose verdict is withheld: measure it again, up to the crawl's limit. The first
    // capture stays on disk and in the result's detail; the census reads the last complete one
    // (a retake that fails keeps the disturbed capture rather than failing the job).
    for (let again = 0; again < (job.spec.remeasureDisturbed ?? 0) && p.status === 'complete' && !ctx.signal.aborted; again++) {
      const why = traceDisturbance(p);
      if (!why) break;
      ctx.progress?.(`${p.runId}: ${why}; measuring ${profile.name} again`);
      const retake = await probe(profile);
      if (retake.status !== 'complete' && !ctx.signal.aborted) {
        ctx.progress?.(`${retake.runId}: the retake did not complete (${retake.error ?? 'incomplete'}); keeping ${p.runId}`);
        break;
      }
      remeasured.push({ profile: profile.name, why, setAside: { runId: p.runId, dir: p.dir } });
      p = retake;
    }
    probes.push(p);
  }
  const bad = probes.find((p) => p.status !== 'complete');
  if (ctx.signal.aborted || bad || probes.length < profiles.length) {
    throw new JobFailure(bad ? `probe through ${bad.profile.name}: ${bad.error ?? 'incomplete'}` : 'interrupted');
  }
  return {
    status: 'complete',
    dirs: probes.map((p) => p.dir),
    runIds: probes.map((p) => p.runId),
    detail: {
      mode: 'probe', url: job.spec.url,
      probes: probes.map((p) => ({ profile: p.profile.name, runId: p.runId, bytes: p.bytes, seconds: p.seconds, packets: p.capture.captured,
        origin: p.origin.name, serve: p.origin.serve, groundTruthCca: p.origin.cca,
        ...(p.disturbance ? { disturbance: p.disturbance } : {}),
        ...(p.earlyStop ? { earlyStop: { why: p.earlyStop.why, label: p.earlyStop.label, confidence: p.earlyStop.confidence, neededSeconds: p.earlyStop.neededSeconds } } : {}) })),
      ...(remeasured.length ? { remeasured } : {}),
    },
  };
}

async function runBrowserJob(job: Job, lab: RunningLab | undefined, profiles: Profile[], ctx: JobContext): Promise<JobResult> {
  const scenario = job.spec.scenarioFile
    ? await loadScenario(job.spec.scenarioFile)
    : pageVisitScenario(job.spec.url!, job.spec.visitSeconds, lab !== undefined);
  if (scenario.lab && !lab) throw new JobFailure(`scenario ${scenario.name} is a lab scenario: give the crawl a lab`, true);
  const startedAt = Date.now();
  const o = await runScenarioSession({
    scenario, scenarioFile: job.spec.scenarioFile ?? `crawl:${job.spec.url}`, upstream: lab ? labUpstream(lab, job.region) : internetUpstream(), region: job.region,
    loadedProfiles: profiles, outDir: ctx.outDir, progress: ctx.progress, signal: ctx.signal,
  });
  if (o.status !== 'complete') throw new JobFailure(`run ${o.runId} incomplete: ${o.incompleteReason ?? 'unknown reason'}`);
  for (const trace of browserRunTraces(o.dir, profiles, startedAt)) ctx.traceMeasured?.(trace);
  return {
    status: 'complete', dirs: [o.dir], runIds: [o.runId],
    detail: { mode: 'browser', scenario: scenario.name, url: scenario.startUrl, hosts: o.summary.map((r) => ({ host: r.host, label: r.label, confidence: r.confidence })) },
  };
}

/** Runs a job; throws JobFailure (never anything else) when it produced no result. */
export async function runJob(job: Job, ctx: JobContext): Promise<JobResult> {
  try {
    const profiles = await Promise.all(job.spec.profiles.map((p) => loadProfile(p)));
    const lab = labOf(job);
    if (job.spec.mode === 'probe') {
      if (!lab) throw new JobFailure('probe mode needs a lab', true);
      return await runProbeJob(job, lab, profiles, ctx);
    }
    return await runBrowserJob(job, lab, profiles, ctx);
  } catch (err) {
    throw asFailure(err);
  }
}
