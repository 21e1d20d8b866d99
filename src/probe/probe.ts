/**
 * `ccbrowse probe URL`: one flow, no page - like Nebby's wget/quiche mode - through the
 * bottleneck, from the lab. TCP origins are fetched with curl, HTTP/3 origins with Chromium
 * (the only HTTP/3 client here). Each (profile, repetition) measures through its own path
 * (paths.ts: built for it, or kept across probes by a crawl, repetitions or a training round)
 * and gets a run directory with the capture, the server's ground truth for the same time
 * window, and run metadata. HTTP/3 probes also keep Chromium's TLS key log (keylog.txt): lab
 * keys protect nothing, and with them the trace computes QUIC bytes in flight exactly (src/trace/quic/).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CleanupStack } from '../net/cleanup.js';
import { launch, type LaunchedProcess } from '../net/launch.js';
import { newRunId } from '../net/netns.js';
import { ADDR } from '../net/topology.js';
import { disturbanceOf, loadAverage, type Disturbance } from '../shaper/disturbance.js';
import type { Profile } from '../shaper/profile.js';
import { startCapture, type CaptureStats } from '../capture/tcpdump.js';
import { extractGroundTruth } from '../lab/ground-truth.js';
import type { LabOriginState } from '../lab/state.js';
import type { RunningLab } from '../lab/state.js';
import { labChromiumArgs } from '../lab/sites/chromium.js';
import { browserUser, giveToBrowserUser, launchInNamespace } from '../browser/launch.js';
import { run } from '../util/exec.js';
import { BadInputError, CcbError } from '../util/errors.js';
import { abortableSleep, isInterruption, throwIfInterrupted, unlessInterrupted } from '../util/interrupt.js';
import { lookEvery } from '../util/look-loop.js';
import { buildProbePath, type KeptProbePaths, type PathLease } from './paths.js';

export interface ProbeTarget { url: URL; origin: LabOriginState }

/** Finds which lab origin serves a URL in a region (hostname or IP). */
export function resolveProbeTarget(lab: RunningLab, url: string, region: string): ProbeTarget {
  let u: URL;
  try { u = new URL(url); } catch { throw new BadInputError(`not a URL: ${url}`); }
  if (u.protocol !== 'https:') throw new BadInputError(`probe URLs are https:// (lab origins serve TLS and HTTP/3): ${url}`);
  const origin = lab.origins.find((o) => o.region === region && (o.hosts.includes(u.hostname) || o.ip === u.hostname));
  if (!origin) {
    throw new BadInputError(`no lab origin serves ${u.hostname} in region ${region}`,
      `'ccbrowse lab status' lists the hostnames; regions: ${lab.regions.map((r) => r.name).join(', ')}`);
  }
  return { url: u, origin };
}

export interface ProbeResult {
  schemaVersion: 1;
  runId: string;
  dir: string;
  url: string;
  region: string;
  profile: Profile;
  origin: { name: string; ip: string; serve: 'tcp' | 'h3'; stack?: string; cca: string };
  startedAt: string;
  endedAt: string;
  bytes: number;
  seconds: number;
  capture: CaptureStats;
  groundTruthLines: number;
  status: 'complete' | 'incomplete';
  error?: string;
  /**
   * Incomplete because the probe's time limit ended the download while the origin was still
   * sending (bytes had arrived): a slow path (loss far away, no SACK), not a broken one. Its
   * capture measures the sender all the same (a dataset keeps it when it spans the dataset's trace
   * length). Not set by runs before session 57 (their probe.json has curl's exit 28 in `error`).
   */
  timedOut?: boolean;
  /** How much the measuring host held the bottleneck back during the transfer (delay line late releases). */
  disturbance?: Disturbance;
  /**
   * Stopped once its verdict was stable (issue 20, `--stop-when-stable`): the checkpoints the
   * watcher judged and the trace length the verdict needed. Absent when the probe ran to its end unwatched.
   */
  earlyStop?: EarlyStopRecord;
  /** Competing download through the same (shared) bottleneck queue, when asked for. */
  crossTraffic?: { origin: string; ip: string; url: string; leadSeconds: number; exitCode: number | null };
  /** The path it measured through (its namespaces are ccb-<id>-*), and whether an earlier probe had used it (a crawl's kept paths). */
  path?: { id: string; kept: boolean };
}

/**
 * Cross traffic for a probe: a bulk TCP download from another lab origin in the same client
 * namespace, started `leadSeconds` before the probe and stopped after it, with the profile's
 * queue made 'shared' so both flows compete for one bottleneck queue (per-flow queues would
 * isolate them). The profile keeps its name: the classifier judges the probe with the model of
 * its profile, as it would a real site whose bottleneck carries other traffic.
 */
export interface CrossTraffic { target: ProbeTarget; leadSeconds: number }

/** What a watcher keeps of its look at the growing capture (plain JSON, in probe.json). */
export interface EarlyStopRecord {
  /** The rule's parameters (floor, step, K, ceiling, minimum confidence). */
  rule: Record<string, number>;
  /** True when the watcher ended the transfer before the origin finished sending. */
  stoppedTransfer: boolean;
  /** 'stable', 'ceiling', 'flow-ended', or 'transfer-ended' (the download finished before the rule decided). */
  why: string;
  /** The trace length the verdict needed (seconds since the flow's first packet). */
  neededSeconds: number | null;
  label: string;
  confidence: number;
  checkpoints: Array<{ seconds: number; label: string; confidence: number }>;
  /** Payload bytes the origin had sent when the watcher last looked, less those it resent or declared lost. */
  bytesSeen: number;
}

/**
 * Watches a probe's capture while it grows and says when the transfer has given enough
 * (the probe layer knows nothing of traces or verdicts: the caller brings the judgement).
 */
export interface TransferWatch {
  /** Seconds between looks. */
  everySeconds: number;
  /**
   * Reads the capture so far (an HTTP/3 probe also gives Chromium's TLS key log as it grows);
   * true ends the transfer (the probe stays complete).
   */
  look(capturePath: string, keylogPath?: string): Promise<boolean>;
  /** What to keep in probe.json, asked once the transfer is over. */
  record(): EarlyStopRecord;
}

export async function probeOnce(lab: RunningLab, target: ProbeTarget, requested: Profile, opts: {
  region: string; outDir: string; timeoutSeconds?: number; progress?: (m: string) => void; crossTraffic?: CrossTraffic;
  /** Ctrl-C: the probe stops where it is, keeps what it captured, and says so in probe.json. */
  signal?: AbortSignal;
  /** Ends the transfer early once the watcher has seen enough. */
  watch?: TransferWatch;
  /** A crawl's kept paths: the probe measures through one of them instead of building its own (paths.ts). */
  paths?: KeptProbePaths;
}): Promise<ProbeResult> {
  const signal = opts.signal;
  const cross = opts.crossTraffic;
  if (cross && cross.target.origin.serve !== 'tcp') throw new BadInputError(`cross traffic comes from a TCP origin; ${cross.target.origin.name} serves HTTP/3`);
  const profile: Profile = cross ? { ...requested, queue: 'shared' } : requested;
  const say = opts.progress ?? (() => {});
  const runId = newRunId();
  const dir = join(opts.outDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${runId}`);
  mkdirSync(dir, { recursive: true });
  const stack = new CleanupStack(`probe-${runId}`);
  const startedAt = new Date();
  const { origin, url } = target;
  const result: ProbeResult = {
    schemaVersion: 1, runId, dir, url: url.href, region: opts.region, profile,
    origin: { name: origin.name, ip: origin.ip, serve: origin.serve, stack: origin.stack, cca: origin.cca },
    startedAt: startedAt.toISOString(), endedAt: '', bytes: 0, seconds: 0,
    capture: { captured: 0, receivedByFilter: 0, droppedByKernel: 0 }, groundTruthLines: 0, status: 'incomplete',
  };
  // Written first as incomplete: a probe killed outright is never mistaken for a finished one.
  const writeProbeJson = () => writeFileSync(join(dir, 'probe.json'), JSON.stringify({ ...result, clientAddress: ADDR.client }, null, 1));
  writeProbeJson();
  let lease: PathLease | undefined;
  let pathHealthy = false;
  // The time limit's error, while it is what left the probe incomplete (probe.json's timedOut, set once at the end).
  let timeLimit: string | undefined;
  try {
    const { topo, shaper, runAddr } = opts.paths
      ? (lease = await opts.paths.acquire(lab, profile, signal)).path
      : await buildProbePath(stack, lab, profile, runId, signal);
    result.path = { id: topo.runId, kept: lease ? !lease.fresh : false };
    // The ground truth's window opens once the path is this probe's: a kept path's last probe is over.
    const windowFrom = Date.now() / 1000;
    const capture = await startCapture(stack, { netns: topo.shaperNs, dev: topo.shaperServerDev, file: join(dir, 'capture.pcap'), signal });
    const timeout = opts.timeoutSeconds ?? 120;
    let crossChild: LaunchedProcess | undefined;
    let t0 = Date.now();
    try {
      if (cross) {
        crossChild = await startCrossTraffic(stack, topo.clientNs, cross, lab.certs.ca, timeout);
        result.crossTraffic = { origin: cross.target.origin.name, ip: cross.target.origin.ip, url: cross.target.url.href, leadSeconds: cross.leadSeconds, exitCode: null };
        say(`${runId}: cross traffic from ${cross.target.origin.name} (${cross.target.origin.cca}), ${cross.leadSeconds} s ahead`);
        await abortableSleep(cross.leadSeconds * 1000, signal);
        if (ended(crossChild)) throw new CcbError(`cross traffic ended before the probe started (curl ${ended(crossChild)})`);
      }
      say(`${runId}: fetching ${url.href} (${origin.serve} ${origin.cca}) through ${profile.name}${cross ? ' (shared queue)' : ''}`);
      t0 = Date.now();
      const enough = new AbortController();
      // The watcher's look loop: its 'enough' aborts the download (curl ends, the probe stays complete).
      const watch = opts.watch;
      const keys = origin.serve === 'tcp' ? undefined : browserKeylog(stack);
      const watching = watch ? lookEvery(watch.everySeconds, () => watch.look(capture.file, keys?.path), () => enough.abort()) : null;
      try {
        if (!keys) result.bytes = await fetchWithCurl(stack, topo.clientNs, url, origin.ip, lab.certs.ca, timeout, signal, enough.signal);
        else result.bytes = await fetchWithChromium(stack, topo.clientNs, url, origin, lab, timeout, keys, join(dir, PROBE_KEYLOG), signal, enough.signal);
        result.status = 'complete';
      } catch (err) {
        if (isInterruption(err)) throw err;
        result.error = (err as Error).message;
        if (err instanceof TransferTimeLimit) timeLimit = result.error;
      } finally {
        await watching?.stop();
      }
      result.seconds = (Date.now() - t0) / 1000;
      if (watching && opts.watch) {
        result.earlyStop = opts.watch.record();
        // curl or Chromium, stopped, says nothing of what it received: the capture's count stands in.
        if (enough.signal.aborted && result.status === 'complete') result.bytes = result.earlyStop.bytesSeen;
      }
    } catch (err) {
      // Interrupted mid-transfer: the capture so far is kept (stopped, so it is flushed).
      if (!isInterruption(err)) throw err;
      result.error = (err as Error).message;
    }
    // No delay line (or no answer from it): no figures, rather than zeros that read as a quiet host.
    const stats = await shaper.delayLine?.stats().catch(() => undefined);
    if (stats) result.disturbance = disturbanceOf(stats, t0 * 1000, Date.now() * 1000, await loadAverage());
    if (crossChild && result.crossTraffic) {
      // Still running means it competed for the whole probe; it is stopped with the stack.
      result.crossTraffic.exitCode = crossChild.child.exitCode;
      if (ended(crossChild) && (result.status === 'complete' || timeLimit)) {
        result.status = 'incomplete';
        result.error = `cross traffic ended during the probe (curl ${ended(crossChild)})`;
      }
    }
    result.capture = await capture.stop();
    result.endedAt = new Date().toISOString();
    result.groundTruthLines = extractGroundTruth(origin.groundTruth, windowFrom, Date.now() / 1000, runAddr, join(dir, 'ground-truth.jsonl'));
    pathHealthy = true;
  } catch (err) {
    result.error = (err as Error).message;
    // An interruption (Ctrl-C, the job's time limit) leaves the path as it was; another error may
    // have left it broken (a delay line gone, a link down): removed rather than lent again.
    pathHealthy = isInterruption(err);
  } finally {
    await stack.unwind();
    await lease?.release(pathHealthy);
    if (signal?.aborted) result.status = 'incomplete';
    // Only while nothing later (cross traffic ending, another failure, Ctrl-C) replaced its error.
    if (timeLimit && result.error === timeLimit && !signal?.aborted) result.timedOut = true;
    result.endedAt ||= new Date().toISOString();
    writeProbeJson();
  }
  return result;
}

/** How a child ended ('exit 6', 'signal SIGKILL'), or '' while it runs. */
function ended(p: LaunchedProcess): string {
  if (p.child.exitCode !== null) return `exit ${p.child.exitCode}`;
  if (p.child.signalCode !== null) return `signal ${p.child.signalCode}`;
  return '';
}

/** Starts the competing download; the cleanup stack stops it when the probe ends. */
function startCrossTraffic(stack: CleanupStack, ns: string, cross: CrossTraffic, ca: string, timeoutSeconds: number): Promise<LaunchedProcess> {
  const { url, origin } = cross.target;
  return launch('curl', ['-sS', '-o', '/dev/null', '--http1.1', '--cacert', ca,
    '--resolve', `${url.hostname}:443:${origin.ip}`, '--max-time', String(timeoutSeconds + cross.leadSeconds + 30), url.href],
  { what: `cross traffic from ${origin.name}`, stack, netns: ns, stdio: 'ignore' });
}

/** The probe's download was still running when its time limit ended it. */
export class TransferTimeLimit extends CcbError {}

/** curl's exit code for a transfer its --max-time ended. */
const CURL_TIME_LIMIT = 28;

/** The probe's own download: on the stack (a killed probe leaves no curl behind), ended by Ctrl-C. */
async function fetchWithCurl(stack: CleanupStack, ns: string, url: URL, ip: string, ca: string, timeoutSeconds: number, signal?: AbortSignal, enough?: AbortSignal): Promise<number> {
  const p = await launch('curl', ['-sS', '-o', '/dev/null', '--http1.1', '--cacert', ca,
    '--resolve', `${url.hostname}:443:${ip}`, '--max-time', String(timeoutSeconds), '-w', '%{size_download}', url.href],
  { what: `curl ${url.href}`, stack, netns: ns });
  const stop = () => { void p.stop(); };
  const timer = setTimeout(stop, (timeoutSeconds + 10) * 1000);
  signal?.addEventListener('abort', stop, { once: true });
  enough?.addEventListener('abort', stop, { once: true });
  let exit;
  try {
    exit = await p.exited;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
    enough?.removeEventListener('abort', stop);
  }
  throwIfInterrupted(signal);
  // Stopped because the trace had said enough: a complete probe of what it received.
  if (enough?.aborted) return 0;
  // Timed out with bytes received: the origin was sending (not a connection that never opened).
  if (exit.code === CURL_TIME_LIMIT && Number(p.stdout().trim()) > 0) throw new TransferTimeLimit(`curl failed (exit ${exit.code}): ${p.stderr().trim()}`);
  if (exit.code !== 0) throw new CcbError(`curl failed (${exit.signal ?? `exit ${exit.code}`}): ${p.stderr().trim()}`);
  return Number(p.stdout().trim());
}

/** The TLS key log an HTTP/3 probe keeps in its run directory. */
export const PROBE_KEYLOG = 'keylog.txt';

/**
 * Where an HTTP/3 probe's Chromium writes its TLS key log: a scratch directory its unprivileged
 * user owns (the run directory may sit where that user cannot write). Chromium writes keys as
 * they are made, so the watcher reads the file while the transfer runs.
 */
function browserKeylog(stack: CleanupStack): { scratch: string; path: string } {
  const scratch = mkdtempSync(join(tmpdir(), 'ccb-probe-keys-'));
  stack.push({ kind: 'file', path: scratch });
  giveToBrowserUser(scratch, browserUser());
  return { scratch, path: join(scratch, PROBE_KEYLOG) };
}

async function fetchWithChromium(stack: CleanupStack, ns: string, url: URL, origin: LabOriginState, lab: RunningLab,
  timeoutSeconds: number, keys: { scratch: string; path: string }, keylogDest: string, signal?: AbortSignal, enough?: AbortSignal): Promise<number> {
  const hosts = Object.fromEntries(origin.hosts.map((h) => [h, origin.ip]));
  const args = [...labChromiumArgs({ hosts, spki: [lab.certs.spki] }), '--enable-quic', `--origin-to-force-quic-on=${url.hostname}:443`,
    `--ssl-key-log-file=${keys.path}`];
  const b = await launchInNamespace(stack, { netns: ns, args, env: { SSLKEYLOGFILE: keys.path } });
  try {
    const page = await b.browser.newPage();
    // The watcher's 'enough' ends the download by closing the page (its fetch rejects).
    const stop = () => { void page.close().catch(() => {}); };
    enough?.addEventListener('abort', stop, { once: true });
    if (enough?.aborted) stop();
    try {
      // timedOut: the time limit ended a download that had received bytes (the origin was sending).
      const got = await unlessInterrupted(page.evaluate(async ({ href, ms }) => {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(), ms);
        let bytes = 0;
        try {
          const res = await fetch(href, { signal: ctl.signal, cache: 'no-store' });
          const reader = res.body!.getReader();
          for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
          return { bytes, timedOut: false };
        } catch (e) {
          if (ctl.signal.aborted && bytes > 0) return { bytes, timedOut: true };
          throw e;
        } finally {
          clearTimeout(timer);
        }
      }, { href: url.href, ms: timeoutSeconds * 1000 }), signal);
      if (got.timedOut) throw new TransferTimeLimit(`the download had not ended after ${timeoutSeconds} s (${got.bytes} bytes received)`);
      return got.bytes;
    } catch (err) {
      // Stopped because the trace had said enough: a complete probe of what it received.
      if (enough?.aborted && !signal?.aborted) return 0;
      throw err;
    } finally {
      enough?.removeEventListener('abort', stop);
    }
  } finally {
    // Bounded: the cleanup stack ends the browser by its pid if a polite close hangs.
    await Promise.race([b.close(), new Promise((r) => setTimeout(r, 10_000))]);
    if (existsSync(keys.path)) copyFileSync(keys.path, keylogDest);
    rmSync(keys.scratch, { recursive: true, force: true });
  }
}
