/**
 * `ccbrowse run <scenario>`: for each profile (and repetition), a fresh topology with the
 * bottleneck, an upstream to the servers (upstream.ts: the lab, or the internet; the session
 * does not care which), a capture running before the browser starts, the browser session,
 * then analysis (analyze-run.ts). Everything is written into one run directory; an
 * interrupted or failed run keeps what it gathered and says so in run.json.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inBatches, profilesAtOnce } from '../util/concurrency.js';
import { CleanupStack } from '../net/cleanup.js';
import { newRunId, waitForAddresses } from '../net/netns.js';
import { createTopology } from '../net/topology.js';
import { applyShaper } from '../shaper/shaper.js';
import { bottleneckModelOf } from '../shaper/bottleneck-model.js';
import { bufferBytes, loadProfile, type Profile } from '../shaper/profile.js';
import { startCapture } from '../capture/tcpdump.js';
import type { Scenario } from '../scenario/schema.js';
import { loadModel, type Model } from '../classify/model.js';
import type { StopRule } from '../classify/early-stop.js';
import { lookEvery, type LookLoop } from '../util/look-loop.js';
import { activityWatch, type ActivityWatch } from './activity-watch.js';
import { DEFAULT_ACTIVITY_STOP } from './activity-stop.js';
import { writeRunFiles } from '../results/write.js';
import type { ActivityEarlyStop, RunInfo } from '../results/schema.js';
import { isInterruption, throwIfInterrupted } from '../util/interrupt.js';
import { ARTIFACTS, runBrowserSession } from './browser-session.js';
import { modelId, REQUESTS_FILE } from './analyze.js';
import { analyzeRunDir, defaultModelPath } from './analyze-run.js';
import type { Upstream } from './upstream.js';
import { DISTURBANCE_FILE, disturbanceOf, loadAverage } from '../shaper/disturbance.js';
import { formatBytes, formatProgress, ProgressMeter, type ProgressSample } from './progress.js';
import { summarize, summarizeAssetTypes, type AssetTypeRow, type HostAssetTypeRow, type SummaryRow } from './summary.js';

export { summarize, summarizeAssetTypes, type AssetTypeRow, type HostAssetTypeRow, type SummaryRow, type ProgressSample };
export { analyzeRunDir, defaultModelPath };

export interface RunOptions {
  scenario: Scenario;
  scenarioFile: string;
  /** Where the servers are: labUpstream(lab, region) (lab-upstream.ts) or internetUpstream() (upstream.ts). */
  upstream: Upstream;
  /** Tag of the run (a crawl from Singapore: "sg"); a lab upstream serves its own region. */
  region: string;
  profiles?: string[];
  outDir: string;
  keepKeys?: boolean;
  modelPath?: string;
  /** For --repeat N: this run's index among N, and the id shared by the N runs (their vote). */
  repeat?: { index: number; of: number; group?: string };
  progress?: (msg: string) => void;
  /** The same progress as data (about once a second per profile session). */
  onProgress?: (s: ProgressSample) => void;
  /**
   * Ctrl-C / SIGTERM: the profile in progress stops where it is (its capture, HAR and NetLog
   * so far are kept), later profiles are not started, analysis is left to `ccbrowse analyze`,
   * and run.json says the run is incomplete and why.
   */
  signal?: AbortSignal;
  /** Profiles already loaded (validated before anything was created); else loaded here. */
  loadedProfiles?: Profile[];
  /** Profiles run at once (default: as many as the host has cores for, profilesAtOnce). */
  concurrency?: number;
  /**
   * `--stop-when-stable` (issue 20): end each profile's activity once every flow that matters
   * has a stable verdict (activity-stop.ts); the activity's own length is the ceiling.
   */
  stopWhenStable?: { rule: StopRule; model?: Model; minBytes?: number; quietSeconds?: number };
}

export interface RunOutcome {
  dir: string;
  runId: string;
  status: 'complete' | 'incomplete';
  incompleteReason?: string;
  /** One row per server host, verdict fused across profiles. */
  summary: SummaryRow[];
  /** One row per asset type, verdict fused across profiles. */
  byAssetType: AssetTypeRow[];
  /** One row per host and asset type, verdict fused across profiles. */
  byHostAssetType: HostAssetTypeRow[];
  byteCoverage: Record<string, number>;
}

const TOOL_VERSION = '0.1.0';

export async function runScenarioSession(opts: RunOptions): Promise<RunOutcome> {
  const say = opts.progress ?? (() => {});
  const runId = newRunId();
  const startedAt = new Date();
  const site = (() => { try { return new URL(opts.scenario.startUrl).hostname; } catch { return opts.scenario.name; } })();
  const dir = resolve(opts.outDir, `${startedAt.toISOString().slice(0, 19).replace(/[:T]/g, '-')}-${opts.scenario.name}-${runId}`);
  // Profiles are validated before the run directory exists: bad input leaves nothing behind.
  const profiles: Profile[] = opts.loadedProfiles ?? await Promise.all((opts.profiles ?? opts.scenario.profiles).map((p) => loadProfile(p)));
  throwIfInterrupted(opts.signal);
  mkdirSync(dir, { recursive: true });
  const modelPath = opts.modelPath ?? defaultModelPath();
  // Said before anything runs: a profile no controller was measured through names none.
  for (const p of profiles.filter((x) => !x.forClassification)) {
    say(`warning: profile ${p.name} is not for classification (${p.classificationNote ?? 'never measured in the lab'}): its flows will be Unknown`);
  }
  let browserVersion = 'unknown';
  const incomplete: string[] = [];
  // Per profile, what --stop-when-stable did (run.json keeps it with the profile).
  const earlyStops = new Map<string, ActivityEarlyStop>();
  const watchModel = opts.stopWhenStable ? opts.stopWhenStable.model ?? loadModel(modelPath) : undefined;
  const signal = opts.signal;

  const runInfo = (status: 'complete' | 'incomplete', endedAt: Date | null): RunInfo => ({
    schemaVersion: 1, runId,
    scenario: { name: opts.scenario.name, kind: opts.scenario.kind, file: opts.scenarioFile },
    site, startUrl: opts.scenario.startUrl, region: opts.region, mode: opts.upstream.mode,
    profiles: profiles.map((p) => ({ name: p.name, rateKbit: p.rateKbit, delayMs: p.delayMs, bufferBytes: bufferBytes(p), lossPercent: p.lossPercent, forClassification: p.forClassification, bottleneck: bottleneckModelOf(p) ?? null, ...(earlyStops.has(p.name) ? { earlyStop: earlyStops.get(p.name) } : {}) })),
    repeat: opts.repeat, startedAt: startedAt.toISOString(), endedAt: endedAt?.toISOString() ?? null,
    status, incompleteReason: status === 'incomplete' ? incomplete.join('; ') || 'interrupted' : undefined,
    versions: { tool: TOOL_VERSION, browser: browserVersion, model: modelId(modelPath) },
  } as RunInfo);
  // Written first as incomplete: a run killed outright is never mistaken for a finished one.
  writeRunFiles(dir, { run: runInfo('incomplete', null) });

  // One profile's session: its own topology, bottleneck, capture and browser (never shared).
  const runProfile = async (profile: Profile): Promise<void> => {
    if (signal?.aborted) {
      incomplete.push(`${profile.name}: not started (${signal.reason?.message ?? 'interrupted'})`);
      return;
    }
    const pdir = join(dir, profile.name);
    mkdirSync(pdir, { recursive: true });
    const stack = new CleanupStack(`run-${runId}-${profile.name}`);
    const profileStart = Date.now() / 1000;
    let looking: LookLoop | undefined;
    // Between two steps: an interrupted run builds nothing more.
    const step = () => throwIfInterrupted(signal);
    try {
      say(`[${profile.name}] topology and bottleneck (${profile.rateKbit} kbit/s, ${profile.delayMs} ms, ${profile.queue})`);
      // Each profile gets its own topology (and id): profiles never share a queue or a capture.
      const topo = await createTopology(stack, newRunId(), { clientMtu: profile.clientMtu });
      step();
      const shaper = await applyShaper(stack, topo, profile);
      step();
      const upstream = await opts.upstream.attach(stack, topo, opts.scenario);
      step();
      const capture = await startCapture(stack, { netns: topo.shaperNs, dev: topo.shaperServerDev, file: join(pdir, ARTIFACTS.pcap), signal });
      // --stop-when-stable: only the activity can end early, through its own end, so looks begin
      // with it (the first look catches up on every checkpoint the page's flows have reached:
      // nothing is traced again and again while a slow page loads).
      let watch: ActivityWatch | undefined;
      if (opts.stopWhenStable && watchModel) {
        if (!profile.forClassification) say(`[${profile.name}] --stop-when-stable: not watched (profile not for classification: its verdicts are Unknown)`);
        else {
          const w = activityWatch({ model: watchModel, rule: opts.stopWhenStable.rule, rateKbit: profile.rateKbit,
            minBytes: opts.stopWhenStable.minBytes ?? DEFAULT_ACTIVITY_STOP.minBytes, quietSeconds: opts.stopWhenStable.quietSeconds ?? DEFAULT_ACTIVITY_STOP.quietSeconds });
          watch = w;
        }
      }
      await upstream.beforeBrowser?.((m) => say(`[${profile.name}] ${m}`));
      await waitForAddresses(topo.clientNs);
      step();
      say(`[${profile.name}] browser: ${opts.scenario.startUrl}`);
      // Progress once a second from the browser's start to its end (phase, elapsed, flows, bytes).
      const meter = new ProgressMeter({
        profile: profile.name, capturePid: capture.pid, dev: topo.shaperServerDev, startedAt: Date.now(),
        flowsSeen: () => shaper.classifier.flowsSeen(),
        // The caller's live line when it has one; else a plain progress line.
        emit: (s) => { if (opts.onProgress) opts.onProgress(s); else say(formatProgress(s)); },
      });
      const ticker = setInterval(() => { void meter.tick(); }, 1000);
      let session: Awaited<ReturnType<typeof runBrowserSession>>;
      try {
        session = await runBrowserSession(stack, {
          netns: topo.clientNs, dir: pdir, scenario: opts.scenario, baseArgs: upstream.chromiumArgs, lab: upstream.labContext, log: (m) => say(`[${profile.name}] ${m}`),
          signal,
          onTick: () => {
            meter.phase = 'activity';
            const w = watch;
            // No key log for the page's watcher (unlike a probe's): a keyed look decrypts every
            // QUIC flow of the page once a second, with no checkpoint bound on the looks, a CPU
            // cost not yet measured against the delay line on a 2-core host. HTTP/3 flows hold.
            if (w && !looking) looking = lookEvery(w.everySeconds, () => w.look(capture.file));
          },
          endActivityEarly: watch ? () => watch.settled() : undefined,
        });
      } finally {
        clearInterval(ticker);
        await looking?.stop();
      }
      if (watch) {
        const a = session.outcome.activity;
        const rec = watch.record({ endedEarly: a?.endedEarly === true, seconds: a ? a.seconds : null, ceilingSeconds: opts.scenario.activitySeconds, interrupted: session.outcome.status === 'aborted' });
        earlyStops.set(profile.name, rec);
        say(`[${profile.name}] stop when stable: ${rec.endedActivity ? `activity ended after ${rec.activitySeconds} s of ${rec.ceilingSeconds} s` : (rec.why === 'interrupted' || rec.why === 'no-activity' ? `activity not ended early (${rec.why})` : `activity ran its length (${rec.why})`)}; `
          + (rec.flows.map((f) => `${f.flow} ${f.standing}${f.neededSeconds !== undefined ? ` ${f.label} at ${f.neededSeconds} s` : ''}`).join(', ') || 'no flow mattered'));
      }
      browserVersion = session.browserVersion;
      writeFileSync(join(pdir, REQUESTS_FILE), JSON.stringify(session.requests));
      // How the host disturbed the bottleneck meanwhile: a verdict through a disturbed one says so.
      // No delay line (or no answer from it): no record, rather than zeros that read as a quiet host.
      const late = await shaper.delayLine?.stats().catch(() => undefined);
      if (late) writeFileSync(join(pdir, DISTURBANCE_FILE), JSON.stringify(disturbanceOf(late, profileStart * 1e6, Date.now() * 1000, await loadAverage())));
      const atEnd = meter.counters();
      const stats = await capture.stop();
      writeFileSync(join(pdir, 'capture-stats.json'), JSON.stringify({ ...stats, ...atEnd }));
      upstream.collect?.(pdir, profileStart, Date.now() / 1000);
      if (shaper.delayLine && !shaper.delayLine.isAlive()) incomplete.push(`${profile.name}: the delay line died`);
      if (signal?.aborted) {
        const why = (signal.reason as Error | undefined)?.message ?? 'interrupted';
        incomplete.push(`${profile.name}: ${why}${session.outcome.detail === why ? '' : ` (${session.outcome.detail})`}`);
      } else if (session.outcome.status !== 'ok') {
        incomplete.push(`${profile.name}: ${session.outcome.status}: ${session.outcome.detail}${session.outcome.error ? ` (${session.outcome.error})` : ''}`);
      }
      say(`[${profile.name}] ${session.outcome.status}: ${session.outcome.detail}; ${stats.captured} packets captured, `
        + `${formatBytes(atEnd.bytesDown)} down / ${formatBytes(atEnd.bytesUp)} up`);
    } catch (err) {
      incomplete.push(`${profile.name}: ${(err as Error).message}`);
      say(`[${profile.name}] ${isInterruption(err) ? 'stopped' : 'failed'}: ${(err as Error).message}`);
    } finally {
      // A failure between the capture and the session's end must not leave the look loop running.
      await looking?.stop();
      const failures = await stack.unwind();
      for (const f of failures) say(`[${profile.name}] could not remove ${f} (the reaper retries at the next start)`);
    }
  };
  // Profiles at once when the host has the cores for them (each is a browser, a capture and a
  // delay line): the run then takes as long as its longest profile, not their sum.
  const atOnce = Math.max(1, Math.min(opts.concurrency ?? profilesAtOnce(profiles.length), profiles.length));
  if (atOnce > 1) say(`profiles ${profiles.map((p) => p.name).join(', ')}: ${atOnce} at once`);
  await inBatches(profiles, atOnce, runProfile);
  if (signal?.aborted) {
    // Ctrl-C means stop now: the raw data stays, marked incomplete, for `ccbrowse analyze` later.
    if (!opts.keepKeys) for (const p of profiles) rmSync(join(dir, p.name, ARTIFACTS.keylog), { force: true });
    writeRunFiles(dir, { run: runInfo('incomplete', new Date()) });
    say(`${signal.reason?.message ?? 'interrupted'}: partial data kept in ${dir} (not analysed: 'ccbrowse analyze ${dir}')`);
    return { dir, runId, status: 'incomplete', incompleteReason: incomplete.join('; '), summary: [], byAssetType: [], byHostAssetType: [], byteCoverage: {} };
  }
  say('analysis: trace, correlate, classify');
  let result: Awaited<ReturnType<typeof analyzeRunDir>>;
  try {
    // The key log makes QUIC bytes in flight exact, so it is read here and only then removed.
    result = await analyzeRunDir(dir, { modelPath, rules: opts.scenario.assetRules, profiles: profiles.map((p) => p.name), lab: opts.upstream.mode === 'lab' });
  } finally {
    if (!opts.keepKeys) for (const p of profiles) rmSync(join(dir, p.name, ARTIFACTS.keylog), { force: true });
  }
  const status = incomplete.length ? 'incomplete' : 'complete';
  writeRunFiles(dir, { run: runInfo(status, new Date()) });
  return {
    dir, runId, status, incompleteReason: incomplete.join('; ') || undefined,
    summary: result.summary, byAssetType: result.byAssetType, byHostAssetType: result.byHostAssetType, byteCoverage: result.byteCoverage,
  };
}
