/**
 * `ccbrowse run <scenario>`: for each profile (and repetition), a fresh topology with the
 * bottleneck, an upstream to the lab or the internet, a capture running before the browser
 * starts, the browser session, then analysis. Everything is written into one run
 * directory; an interrupted or failed run keeps what it gathered and says so in run.json.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CleanupStack, unwindOnSignals } from '../net/cleanup.js';
import { newRunId, waitForAddresses } from '../net/netns.js';
import { createTopology } from '../net/topology.js';
import { attachNatUplink } from '../net/uplink.js';
import { applyShaper } from '../shaper/shaper.js';
import { bufferBytes, loadProfile, type Profile } from '../shaper/profile.js';
import { startCapture } from '../capture/tcpdump.js';
import { connectRunToLab } from '../lab/network.js';
import { extractGroundTruth } from '../probe/probe.js';
import { regionHostMap } from '../lab/lab.js';
import type { RunningLab } from '../lab/state.js';
import { labChromiumArgs } from '../lab/sites/chromium.js';
import { startCallPeer } from '../lab/sites/call-peer.js';
import { namespaceChromium } from '../browser/launch.js';
import { processStartTime, undo } from '../net/resources.js';
import { labUrl } from '../scenario/lab.js';
import type { LabContext } from '../scenario/lab.js';
import type { Scenario } from '../scenario/schema.js';
import { fuseProfiles } from '../classify/index.js';
import { loadModel } from '../classify/model.js';
import type { Verdict } from '../classify/verdict.js';
import { writeRunFiles } from '../results/write.js';
import type { RunInfo } from '../results/schema.js';
import { repoRoot } from '../util/paths.js';
import { ARTIFACTS, runBrowserSession } from './browser-session.js';
import { analyzeProfile, modelId, REQUESTS_FILE, type ProfileAnalysis } from './analyze.js';

export interface RunOptions {
  scenario: Scenario;
  scenarioFile: string;
  mode: 'lab' | 'internet';
  lab?: RunningLab;
  /** Tag of the run (a crawl from Singapore: "sg"); in lab mode also the lab region used. */
  region: string;
  profiles?: string[];
  outDir: string;
  keepKeys?: boolean;
  modelPath?: string;
  repeat?: { index: number; of: number };
  progress?: (msg: string) => void;
}

export interface SummaryRow {
  host: string;
  assetTypes: string[];
  protocol: string;
  flows: number;
  label: string;
  confidence: number;
  reason: string;
}

export interface RunOutcome {
  dir: string;
  runId: string;
  status: 'complete' | 'incomplete';
  incompleteReason?: string;
  summary: SummaryRow[];
  byteCoverage: Record<string, number>;
}

const TOOL_VERSION = '0.1.0';

export function defaultModelPath(): string {
  return resolve(repoRoot(), 'models', 'ccbrowse-model.json');
}

export async function runScenarioSession(opts: RunOptions): Promise<RunOutcome> {
  const say = opts.progress ?? (() => {});
  const runId = newRunId();
  const startedAt = new Date();
  const site = (() => { try { return new URL(opts.scenario.startUrl).hostname; } catch { return opts.scenario.name; } })();
  const dir = resolve(opts.outDir, `${startedAt.toISOString().slice(0, 19).replace(/[:T]/g, '-')}-${opts.scenario.name}-${runId}`);
  mkdirSync(dir, { recursive: true });
  const profiles: Profile[] = await Promise.all((opts.profiles ?? opts.scenario.profiles).map((p) => loadProfile(p)));
  const modelPath = opts.modelPath ?? defaultModelPath();
  let browserVersion = 'unknown';
  const incomplete: string[] = [];
  const abort = new AbortController();

  const runInfo = (status: 'complete' | 'incomplete', endedAt: Date | null): RunInfo => ({
    schemaVersion: 1, runId,
    scenario: { name: opts.scenario.name, kind: opts.scenario.kind, file: opts.scenarioFile },
    site, startUrl: opts.scenario.startUrl, region: opts.region, mode: opts.mode,
    profiles: profiles.map((p) => ({ name: p.name, rateKbit: p.rateKbit, delayMs: p.delayMs, bufferBytes: bufferBytes(p), lossPercent: p.lossPercent })),
    repeat: opts.repeat, startedAt: startedAt.toISOString(), endedAt: endedAt?.toISOString() ?? null,
    status, incompleteReason: status === 'incomplete' ? incomplete.join('; ') || 'interrupted' : undefined,
    versions: { tool: TOOL_VERSION, browser: browserVersion, model: modelId(modelPath) },
  } as RunInfo);
  // Written first as incomplete: a run killed outright is never mistaken for a finished one.
  writeRunFiles(dir, { run: runInfo('incomplete', null) });

  for (const profile of profiles) {
    const pdir = join(dir, profile.name);
    mkdirSync(pdir, { recursive: true });
    const stack = new CleanupStack(`run-${runId}-${profile.name}`);
    const profileStart = Date.now() / 1000;
    let runAddr: string | undefined;
    const release = unwindOnSignals(stack, (m) => say(m));
    try {
      say(`[${profile.name}] topology and bottleneck (${profile.rateKbit} kbit/s, ${profile.delayMs} ms, ${profile.queue})`);
      // Each profile gets its own topology (and id): profiles never share a queue or a capture.
      const topo = await createTopology(stack, newRunId(), { clientMtu: profile.clientMtu });
      const shaper = await applyShaper(stack, topo, profile);
      let baseArgs: string[];
      let labCtx: LabContext | undefined;
      if (opts.mode === 'lab') {
        const lab = opts.lab!;
        runAddr = (await connectRunToLab(stack, { runId: topo.runId, upstreamNs: topo.upstreamNs, routerNs: lab.routerNs })).runAddr;
        const hosts = regionHostMap(lab, opts.region);
        const h3Hosts = lab.origins.filter((o) => o.region === opts.region && o.serve === 'h3').flatMap((o) => o.hosts);
        baseArgs = [...labChromiumArgs({ hosts, spki: [lab.certs.spki], fakeMedia: opts.scenario.kind === 'call' }),
          ...(h3Hosts.length ? ['--enable-quic', `--origin-to-force-quic-on=${h3Hosts.map((h) => `${h}:443`).join(',')}`] : [])];
        labCtx = { hosts: Object.fromEntries(Object.keys(hosts).map((h) => [h.split('.')[0], `https://${h}`])) };
      } else {
        await attachNatUplink(stack, topo);
        baseArgs = ['--disable-background-networking', '--disable-component-update', '--no-first-run',
          '--autoplay-policy=no-user-gesture-required', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
      }
      const capture = await startCapture(stack, { netns: topo.shaperNs, dev: topo.shaperServerDev, file: join(pdir, ARTIFACTS.pcap) });
      if (opts.mode === 'lab' && opts.scenario.kind === 'call') {
        // The far end of the call: a second Chromium with a fake camera beyond the bottleneck
        // (in the run's upstream namespace), joined through the lab's signalling origin.
        const lab = opts.lab!;
        const wrapper = namespaceChromium(stack, topo.upstreamNs);
        const room = `room-${topo.runId}`;
        labCtx = { ...labCtx!, callRoom: room };
        const peer = await startCallPeer({
          callPageUrl: labUrl(labCtx, 'www', '/call/'), room, executablePath: wrapper.path,
          chromiumArgs: labChromiumArgs({ hosts: regionHostMap(lab, opts.region), spki: [lab.certs.spki], fakeMedia: true }),
        });
        const peerPid = Number(readFileSync(wrapper.pidFile, 'utf8').trim());
        const peerProc = { kind: 'process' as const, pid: peerPid, startTime: processStartTime(peerPid) ?? '', what: 'call peer chromium' };
        stack.push(peerProc, async () => { await Promise.race([peer.stop(), new Promise((r) => setTimeout(r, 5000))]); await undo(peerProc); });
        say(`[${profile.name}] call peer joined room ${room}`);
      }
      await waitForAddresses(topo.clientNs);
      say(`[${profile.name}] browser: ${opts.scenario.startUrl}`);
      const t0 = Date.now();
      const session = await runBrowserSession(stack, {
        netns: topo.clientNs, dir: pdir, scenario: opts.scenario, baseArgs, lab: labCtx, log: (m) => say(`[${profile.name}] ${m}`),
        signal: abort.signal,
        onTick: () => { void shaper.classifier.flowsSeen().then((n) => say(`[${profile.name}] ${((Date.now() - t0) / 1000).toFixed(0)} s, ${n} flows`)); },
      });
      browserVersion = session.browserVersion;
      writeFileSync(join(pdir, REQUESTS_FILE), JSON.stringify(session.requests));
      const stats = await capture.stop();
      writeFileSync(join(pdir, 'capture-stats.json'), JSON.stringify(stats));
      if (opts.mode === 'lab' && runAddr) {
        // The servers' own view (tcp_info / QUIC stats) of this run's connections, kept with it.
        const gtDir = join(pdir, 'ground-truth');
        mkdirSync(gtDir, { recursive: true });
        for (const o of opts.lab!.origins.filter((x) => x.region === opts.region)) {
          const n = extractGroundTruth(o.groundTruth, profileStart, Date.now() / 1000, runAddr, join(gtDir, `${o.name}.jsonl`));
          if (n === 0) rmSync(join(gtDir, `${o.name}.jsonl`), { force: true });
        }
      }
      if (shaper.delayLine && !shaper.delayLine.isAlive()) incomplete.push(`${profile.name}: the delay line died`);
      if (session.outcome.status !== 'ok') {
        incomplete.push(`${profile.name}: ${session.outcome.status}: ${session.outcome.detail}${session.outcome.error ? ` (${session.outcome.error})` : ''}`);
      }
      say(`[${profile.name}] ${session.outcome.status}: ${session.outcome.detail}; ${stats.captured} packets captured`);
    } catch (err) {
      incomplete.push(`${profile.name}: ${(err as Error).message}`);
      say(`[${profile.name}] failed: ${(err as Error).message}`);
    } finally {
      await stack.unwind();
      release();
    }
  }
  if (!opts.keepKeys) for (const p of profiles) rmSync(join(dir, p.name, ARTIFACTS.keylog), { force: true });

  say('analysis: trace, correlate, classify');
  const result = await analyzeRunDir(dir, { modelPath, rules: opts.scenario.assetRules, profiles: profiles.map((p) => p.name), lab: opts.mode === 'lab' });
  const status = incomplete.length ? 'incomplete' : 'complete';
  writeRunFiles(dir, { run: runInfo(status, new Date()) });
  return { dir, runId, status, incompleteReason: incomplete.join('; ') || undefined, summary: result.summary, byteCoverage: result.byteCoverage };
}

/** Analyses (or re-analyses) a run directory's profiles and writes flows/assets/verdicts. */
export async function analyzeRunDir(dir: string, opts: { modelPath?: string; rules?: Scenario['assetRules']; profiles: string[]; runId?: string; lab?: boolean }): Promise<{
  summary: SummaryRow[]; byteCoverage: Record<string, number>; analyses: ProfileAnalysis[];
}> {
  const modelPath = opts.modelPath ?? defaultModelPath();
  const model = loadModel(modelPath);
  const analyses: ProfileAnalysis[] = [];
  for (const p of opts.profiles) {
    try { analyses.push(await analyzeProfile(join(dir, p), p, model, opts.rules ?? [], { lab: opts.lab })); } catch { /* a profile without capture: nothing to analyse */ }
  }
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunInfo;
  const runId = opts.runId ?? run.runId;
  writeRunFiles(dir, {
    run,
    flows: { schemaVersion: 1, runId, flows: analyses.flatMap((a) => a.flows) },
    assets: { schemaVersion: 1, runId, assets: analyses.flatMap((a) => a.assets) },
    verdicts: { schemaVersion: 1, runId, model: modelId(modelPath), analysedAt: new Date().toISOString(), verdicts: analyses.flatMap((a) => a.verdicts) },
  });
  return { summary: summarize(analyses), byteCoverage: Object.fromEntries(analyses.map((a) => [a.profile, a.byteCoverage])), analyses };
}

/**
 * One row per server host: the flows that carried the page's bytes from it, their asset
 * types, and one verdict fused across profiles (each profile's largest flow from that host).
 */
export function summarize(analyses: ProfileAnalysis[]): SummaryRow[] {
  const hosts = new Map<string, { types: Set<string>; protocol: string; flows: number; perProfile: Map<string, { v: Verdict; bytes: number }> }>();
  for (const a of analyses) {
    for (const [flowId, info] of a.flowInfo) {
      if (Object.keys(info.assetBytes).length === 0 && info.protocol !== 'udp-rtp') continue; // carried nothing the page asked for
      const h = hosts.get(info.host) ?? { types: new Set<string>(), protocol: info.protocol, flows: 0, perProfile: new Map() };
      for (const t of Object.keys(info.assetBytes)) h.types.add(t);
      h.flows++;
      const v = a.rawVerdicts.get(flowId);
      const best = h.perProfile.get(a.profile);
      if (v && (!best || info.bytesDown > best.bytes)) h.perProfile.set(a.profile, { v, bytes: info.bytesDown });
      hosts.set(info.host, h);
    }
  }
  return [...hosts.entries()].map(([host, h]) => {
    const verdicts = [...h.perProfile.values()].map((x) => x.v);
    const fused = verdicts.length > 1 ? fuseProfiles(verdicts) : verdicts[0];
    return {
      host, assetTypes: [...h.types].sort(), protocol: h.protocol, flows: h.flows,
      ...(h.protocol === 'udp-rtp'
        ? { label: 'WebRTC media', confidence: 1, reason: 'RTP/SRTP media of a call (no TCP-like window to read)' }
        : { label: fused?.label ?? 'Unknown', confidence: fused?.confidence ?? 0, reason: fused?.reason ?? 'no classifiable flow' }),
    };
  }).sort((a, b) => a.host.localeCompare(b.host));
}
