/**
 * Benchmark of the userspace NFQUEUE delay line (and of netem, where the kernel has it).
 *
 *   npx tsx bench/delayline.ts [--json] [--delay-ms 20] [--seconds 5] [--rates 1000,10000,15000]
 *
 * Topology: A <-> M <-> B in three namespaces; M forwards and its FORWARD chain sends
 * everything to NFQUEUE. ccb-udpprobe paces timestamped UDP packets from A to B; B computes
 * one-way delays with CLOCK_MONOTONIC (one clock for all namespaces of a machine). The
 * error is the measured delay minus the configured delay minus the baseline (same path,
 * no delay element), so it is what the delay element itself adds.
 *
 * `delayline-reorder` is the delay line in its reordering mode (release-time heap, one verdict
 * message per packet): 10% of packets get 5 ms more. Its delays are each packet's own: minus
 * those 5 ms for a packet that got them (told apart by its delay, > configured + 2.5 ms).
 *
 * The lab helpers are exported for tests/integration/delayline.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { cpus, hostname, loadavg, release, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { CleanupStack } from '../src/net/cleanup.js';
import { startProcess } from '../src/net/launch.js';
import { processStartTime, undo, type Resource } from '../src/net/resources.js';
import { startDelayLine, udpProbeBinaryPath, type DelayLineStats } from '../src/shaper/delayline.js';
import { CcbError } from '../src/util/errors.js';
import { quantile } from '../src/util/stats.js';
import { run, runIn, sleep } from '../src/util/exec.js';

// ---------------------------------------------------------------- lab topology

export interface DelayLab {
  tag: string;
  nsA: string;
  nsM: string;
  nsB: string;
  /** M's interface towards B: where a netem qdisc delays the A->B direction. */
  ifMtoB: string;
  addrA: string;
  addrB: string;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the native helpers if needed (make is incremental; a no-op when up to date). */
export async function ensureNativeBuilt(): Promise<void> {
  await run('make', ['-s', '-C', join(repoRoot, 'native', 'delayline')], { timeoutMs: 120_000 });
}

export function randomTag(): string {
  return randomBytes(3).toString('hex');
}

/** Namespaces ccbdl-TAG-{a,m,b}, veths with offloads off, forwarding in M. */
export async function buildDelayLab(stack: CleanupStack, tag = randomTag()): Promise<DelayLab> {
  const octet = parseInt(tag.slice(0, 2), 16);
  const lab: DelayLab = {
    tag,
    nsA: `ccbdl-${tag}-a`,
    nsM: `ccbdl-${tag}-m`,
    nsB: `ccbdl-${tag}-b`,
    ifMtoB: `ccbdl${tag}mb`,
    addrA: `10.203.${octet}.1`,
    addrB: `10.203.${octet}.6`,
  };
  for (const ns of [lab.nsA, lab.nsM, lab.nsB]) {
    stack.push({ kind: 'netns', name: ns });
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }
  // Veths are created inside the namespaces, so they vanish with them.
  const ifA = `ccbdl${tag}a`;
  const ifMA = `ccbdl${tag}ma`;
  const ifB = `ccbdl${tag}b`;
  await run('ip', ['-n', lab.nsA, 'link', 'add', ifA, 'type', 'veth', 'peer', 'name', ifMA, 'netns', lab.nsM]);
  await run('ip', ['-n', lab.nsB, 'link', 'add', ifB, 'type', 'veth', 'peer', 'name', lab.ifMtoB, 'netns', lab.nsM]);
  const net = `10.203.${octet}`;
  const addrs: Array<[string, string, string]> = [
    [lab.nsA, ifA, `${net}.1/30`],
    [lab.nsM, ifMA, `${net}.2/30`],
    [lab.nsM, lab.ifMtoB, `${net}.5/30`],
    [lab.nsB, ifB, `${net}.6/30`],
  ];
  for (const [ns, dev, cidr] of addrs) {
    await run('ip', ['-n', ns, 'addr', 'add', cidr, 'dev', dev]);
    // Offloads off, or the delay line and any capture see 64 KB super-packets.
    await runIn(ns, 'ethtool', ['-K', dev, 'tso', 'off', 'gso', 'off', 'gro', 'off', 'tx-udp-segmentation', 'off']);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  await run('ip', ['-n', lab.nsA, 'route', 'add', 'default', 'via', `${net}.2`]);
  await run('ip', ['-n', lab.nsB, 'route', 'add', 'default', 'via', `${net}.5`]);
  await runIn(lab.nsM, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
  return lab;
}

/** Sends every forwarded packet in M (IPv4 and IPv6) to NFQUEUE `queueNum`; never with bypass. */
export async function addNfqueueRules(stack: CleanupStack, lab: DelayLab, queueNum: number): Promise<Resource[]> {
  const rule = ['FORWARD', '-j', 'NFQUEUE', '--queue-num', String(queueNum)];
  const added: Resource[] = [];
  for (const binary of ['iptables', 'ip6tables'] as const) {
    const r: Resource = { kind: 'iptables', binary, netns: lab.nsM, table: 'mangle', rule };
    stack.push(r);
    added.push(r);
    await runIn(lab.nsM, binary, ['-w', '-t', 'mangle', '-A', ...rule]);
  }
  return added;
}

/**
 * Deletes the rules now. Their stack entries stay: undoing a missing rule is a no-op, and
 * forget() racing a signal-triggered unwind could make the stack skip another entry.
 */
export async function removeNfqueueRules(lab: DelayLab, rules: Resource[]): Promise<void> {
  for (const r of rules) {
    if (r.kind !== 'iptables') continue;
    await runIn(lab.nsM, r.binary, ['-w', '-t', r.table, '-D', ...r.rule], { allowFailure: true });
  }
}

// ---------------------------------------------------------------- probes

interface ProbeProcess {
  child: ChildProcess;
  ready: Promise<void>;
  /** stdout lines, resolved when the process has exited. */
  done: Promise<{ lines: string[]; code: number | null; stderr: string }>;
}

/** Starts ccb-udpprobe in `ns`, registered on the stack until it exits. */
function startProbe(stack: CleanupStack, ns: string, args: string[]): ProbeProcess {
  const child = startProcess(udpProbeBinaryPath(), args, { what: `ccb-udpprobe ${args[0]} in ${ns}`, stack: null, netns: ns }).child;
  const resource: Resource = { kind: 'process', pid: child.pid ?? -1, startTime: processStartTime(child.pid ?? -1) ?? '', what: `ccb-udpprobe ${args[0]} in ${ns}` };
  // forget() while the stack unwinds would make it pop the wrong entry: track that here.
  let unwinding = false;
  try {
    if (child.pid !== undefined) {
      stack.push(resource, async () => {
        unwinding = true;
        await undo(resource);
      });
    }
  } catch (err) {
    child.kill('SIGKILL'); // the stack is already unwinding: leave nothing behind
    throw err;
  }
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (markReady = r));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (/^ready$/m.test(stdout)) markReady();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ lines: string[]; code: number | null; stderr: string }>((res) => {
    child.on('error', (e) => res({ lines: [], code: -1, stderr: e.message }));
    child.on('close', (code) => {
      if (!unwinding) stack.forget(resource);
      res({ lines: stdout.split('\n').filter(Boolean), code, stderr });
    });
  });
  const readyOrExit = Promise.race([ready, done.then((d) => Promise.reject(new CcbError(`ccb-udpprobe ${args[0]} exited early: ${d.stderr}`)))]);
  readyOrExit.catch(() => undefined); // modes that never print 'ready' must not raise an unhandled rejection
  return { child, ready: readyOrExit, done };
}

/** Runs a probe to completion (registered on the stack meanwhile); returns its stdout lines. */
async function runProbe(stack: CleanupStack, ns: string, args: string[], timeoutMs: number): Promise<string[]> {
  const p = startProbe(stack, ns, args);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const out = await p.done.finally(() => clearTimeout(timer));
  if (out.code !== 0) throw new CcbError(`ccb-udpprobe ${args[0]} in ${ns} failed (exit ${out.code}): ${out.stderr.trim()}`);
  return out.lines;
}

function lastJson<T>(lines: string[], what: string): T {
  const line = [...lines].reverse().find((l) => l.startsWith('{'));
  if (!line) throw new CcbError(`${what} printed no result`);
  return JSON.parse(line) as T;
}

export interface DelaySummary {
  minUs: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
}
export interface OneWayResult extends DelaySummary {
  expected: number;
  received: number;
  reordered: number;
  duplicates: number;
  /** CPU used by the receiver, and by the sender (whose sends carry the forwarding work when nothing queues). */
  cpuSeconds: number;
  sender: { sent: number; sendErrors: number; lateSendsOver100us: number; seconds: number; cpuSeconds: number };
}
export interface RttResult extends DelaySummary {
  sent: number;
  received: number;
}

export interface ProbeOptions {
  ratePps: number;
  count: number;
  port?: number;
  sizeBytes?: number;
  /** SCHED_FIFO priority of the probes: below the delay line's 50, above normal load. */
  rtPrio?: number;
  /** How long B waits for the first packet (ms); short when traffic is expected to be dropped. */
  firstTimeoutMs?: number;
  /** B also writes every packet it received, in arrival order, to this file (see readArrivalLog). */
  logPath?: string;
}

/** One received probe: its sequence number, when it arrived (CLOCK_MONOTONIC) and its one-way delay. */
export interface ArrivalRecord {
  seq: number;
  arrivalUs: number;
  delayUs: number;
}

/** Reads `ccb-udpprobe recv --log` output (CSV "seq,arrival_ns,delay_ns", arrival order). */
export function readArrivalLog(path: string): ArrivalRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [seq, arrivalNs, delayNs] = line.split(',').map(Number);
      return { seq, arrivalUs: arrivalNs / 1000, delayUs: delayNs / 1000 };
    });
}

/** Resolves ARP on every hop so the first measured packets do not wait for it. */
export async function warmUp(stack: CleanupStack, lab: DelayLab): Promise<void> {
  // Port 9 is closed: each probe also brings back an ICMP error, warming the reverse path.
  await runProbe(stack, lab.nsA, ['send', '--dst', lab.addrB, '--port', '9', '--rate', '200', '--count', '10'], 10_000);
  await runProbe(stack, lab.nsB, ['send', '--dst', lab.addrA, '--port', '9', '--rate', '200', '--count', '10'], 10_000);
}

/** A paced, numbered stream from A to B; B reports one-way delays, losses and reorderings. */
export async function runOneWay(stack: CleanupStack, lab: DelayLab, o: ProbeOptions): Promise<OneWayResult> {
  const port = String(o.port ?? 9100);
  const prio = String(o.rtPrio ?? 40);
  const recv = startProbe(stack, lab.nsB, ['recv', '--port', port, '--count', String(o.count), '--rt-prio', prio,
    '--first-timeout-ms', String(o.firstTimeoutMs ?? 5000), '--idle-ms', '1500', ...(o.logPath ? ['--log', o.logPath] : [])]);
  await recv.ready;
  const sendTimeout = (o.count / o.ratePps) * 1000 * 2 + 10_000;
  const sent = await runProbe(stack, lab.nsA, ['send', '--dst', lab.addrB, '--port', port, '--rate', String(o.ratePps),
    '--count', String(o.count), '--size', String(o.sizeBytes ?? 100), '--rt-prio', prio], sendTimeout);
  const out = await recv.done;
  if (out.code !== 0) throw new CcbError(`ccb-udpprobe recv failed (exit ${out.code}): ${out.stderr}`);
  const result = lastJson<Omit<OneWayResult, 'sender'>>(out.lines, 'ccb-udpprobe recv');
  return { ...result, sender: lastJson<OneWayResult['sender']>(sent, 'ccb-udpprobe send') };
}

/** Round trips A -> B -> A through an echo server in B (a ping that needs no ICMP tool). */
export async function runRtt(stack: CleanupStack, lab: DelayLab, o: ProbeOptions): Promise<RttResult> {
  const port = String(o.port ?? 9200);
  const prio = String(o.rtPrio ?? 40);
  const echo = startProbe(stack, lab.nsB, ['echo', '--port', port, '--rt-prio', prio]);
  try {
    await echo.ready;
    const lines = await runProbe(stack, lab.nsA, ['rtt', '--dst', lab.addrB, '--port', port, '--rate', String(o.ratePps),
      '--count', String(o.count), '--size', String(o.sizeBytes ?? 100), '--rt-prio', prio, '--wait-ms', '2000'],
    (o.count / o.ratePps) * 1000 * 2 + 15_000);
    return lastJson<RttResult>(lines, 'ccb-udpprobe rtt');
  } finally {
    echo.child.kill('SIGTERM');
    await echo.done;
  }
}

// ---------------------------------------------------------------- CPU accounting

let clockTicks: number | undefined;
async function ticksPerSecond(): Promise<number> {
  if (clockTicks === undefined) {
    const r = await run('getconf', ['CLK_TCK'], { allowFailure: true });
    clockTicks = Number(r.stdout.trim()) || 100;
  }
  return clockTicks;
}

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / (await ticksPerSecond());
}

/** Host CPU time stolen from this VM, as a share of all CPU time, between two samples. */
export function cpuTimesSample(): { steal: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return { steal: fields[7] ?? 0, total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
}
export function stealPercent(a: { steal: number; total: number }, b: { steal: number; total: number }): number {
  return b.total > a.total ? ((b.steal - a.steal) / (b.total - a.total)) * 100 : 0;
}

// ---------------------------------------------------------------- netem detection

/** True when this kernel can run `netem` (tried on lo of a throwaway namespace). */
export async function netemAvailable(stack: CleanupStack, tag: string): Promise<boolean> {
  const ns = `ccbdl-${tag}-nq`;
  const resource: Resource = { kind: 'netns', name: ns };
  stack.push(resource);
  await run('ip', ['netns', 'add', ns]);
  try {
    const r = await run('tc', ['-n', ns, 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'], { allowFailure: true });
    return r.code === 0;
  } finally {
    // The entry stays on the stack (deleting a missing namespace is a no-op).
    await run('ip', ['netns', 'del', ns], { allowFailure: true });
  }
}

// ---------------------------------------------------------------- the benchmark

export interface BenchRow {
  /**
   * delayline-readtime: the delay line timing packets from its own reads (--no-kernel-timestamps).
   * delayline-reorder: its reordering mode (REORDER below); delays are each packet's own (extra removed).
   */
  backend: 'baseline' | 'delayline' | 'delayline-readtime' | 'delayline-reorder' | 'netem';
  ratePps: number;
  sent: number;
  received: number;
  drops: number;
  reordered: number;
  /** Measured one-way delay percentiles (ms), baseline included. */
  p50Ms: number;
  p99Ms: number;
  /** Error = measured - configured - baseline median (ms); 0 for the baseline row. */
  errP50Ms: number;
  errP99Ms: number;
  /** Delay element's CPU share (% of one core); includes the forwarding it does inside its verdict calls. */
  cpuPercent?: number;
  /** Sender + receiver CPU share: in the baseline row, roughly the cost of forwarding the stream. */
  probeCpuPercent: number;
  /** Share of CPU time the hypervisor stole during the run, and the 1-minute load average after it. */
  stealPercent: number;
  loadAvg1: number;
  delayLine?: DelayLineStats;
}

export interface BenchReport {
  date: string;
  machine: { host: string; cpu: string; cores: number; kernel: string };
  delayMs: number;
  secondsPerRate: number;
  netem: 'available' | 'absent';
  rows: BenchRow[];
}

/** The reordering mode's workload: this share of packets waits this much longer. */
const REORDER = { percent: 10, extraMs: 5 };

/** One-way delays (us) less the reorder extra for the packets that got it. */
function ownDelaysUs(log: ArrivalRecord[], delayMs: number): number[] {
  const extraUs = REORDER.extraMs * 1000;
  return log.map((x) => (x.delayUs > delayMs * 1000 + extraUs / 2 ? x.delayUs - extraUs : x.delayUs));
}

async function measureBackend(
  stack: CleanupStack,
  lab: DelayLab,
  backend: BenchRow['backend'],
  ratePps: number,
  seconds: number,
  delayMs: number,
  baselineP50Ms: number,
  logDir: string,
): Promise<BenchRow> {
  const count = Math.round(ratePps * seconds);
  let rules: Resource[] = [];
  let dl: Awaited<ReturnType<typeof startDelayLine>> | undefined;
  const reorder = backend === 'delayline-reorder';
  try {
    if (backend === 'delayline' || backend === 'delayline-readtime' || reorder) {
      dl = await startDelayLine({
        netns: lab.nsM, queueNum: 7, delayMs, stack, kernelTimestamps: backend !== 'delayline-readtime', ...(reorder ? { reorder: REORDER } : {}),
      });
      rules = await addNfqueueRules(stack, lab, 7);
    } else if (backend === 'netem') {
      await run('tc', ['-n', lab.nsM, 'qdisc', 'add', 'dev', lab.ifMtoB, 'root', 'netem', 'delay', `${delayMs}ms`, 'limit', '100000']);
    }
    await warmUp(stack, lab);
    const cpuBefore = dl ? await cpuSeconds(dl.pid) : 0;
    const times0 = cpuTimesSample();
    const t0 = performance.now();
    const logPath = reorder ? join(logDir, `reorder-${ratePps}.csv`) : undefined;
    const r = await runOneWay(stack, lab, { ratePps, count, logPath });
    const wall = (performance.now() - t0) / 1000;
    const cpuPercent = dl ? ((await cpuSeconds(dl.pid)) - cpuBefore) / wall * 100 : undefined;
    const steal = stealPercent(times0, cpuTimesSample());
    const stats = dl ? await dl.stop() : undefined;
    const configured = backend === 'baseline' ? 0 : delayMs;
    const own = logPath ? ownDelaysUs(readArrivalLog(logPath), delayMs) : undefined;
    const p50Ms = (own ? quantile(own, 0.5) : r.p50Us) / 1000;
    const p99Ms = (own ? quantile(own, 0.99) : r.p99Us) / 1000;
    return {
      backend, ratePps, sent: count, received: r.received, drops: count - r.received, reordered: r.reordered,
      p50Ms, p99Ms,
      errP50Ms: backend === 'baseline' ? 0 : p50Ms - configured - baselineP50Ms,
      errP99Ms: backend === 'baseline' ? 0 : p99Ms - configured - baselineP50Ms,
      cpuPercent,
      probeCpuPercent: ((r.cpuSeconds + r.sender.cpuSeconds) / wall) * 100,
      stealPercent: steal,
      loadAvg1: loadavg()[0],
      delayLine: stats,
    };
  } finally {
    if (dl?.isAlive()) await dl.stop().catch(() => undefined);
    if (rules.length) await removeNfqueueRules(lab, rules);
    if (backend === 'netem') await run('tc', ['-n', lab.nsM, 'qdisc', 'del', 'dev', lab.ifMtoB, 'root'], { allowFailure: true });
  }
}

export async function runBench(opts: { delayMs: number; seconds: number; rates: number[]; log: (m: string) => void }): Promise<BenchReport> {
  await ensureNativeBuilt();
  const tag = randomTag();
  const stack = new CleanupStack(`ccbdl-bench-${tag}`);
  try {
    const lab = await buildDelayLab(stack, tag);
    const logDir = join(tmpdir(), `ccbdl-bench-${tag}`); // the receiver's packet logs
    stack.push({ kind: 'file', path: logDir });
    mkdirSync(logDir);
    const netem = await netemAvailable(stack, tag);
    opts.log(`lab ${lab.nsA} <-> ${lab.nsM} <-> ${lab.nsB}; netem ${netem ? 'available' : 'absent (kernel has no sch_netem)'}`);
    const rows: BenchRow[] = [];
    for (const rate of opts.rates) {
      opts.log(`${rate} packets/s: baseline...`);
      const base = await measureBackend(stack, lab, 'baseline', rate, opts.seconds, opts.delayMs, 0, logDir);
      rows.push(base);
      const backends: BenchRow['backend'][] = ['delayline', 'delayline-readtime', 'delayline-reorder', ...(netem ? (['netem'] as const) : [])];
      for (const b of backends) {
        opts.log(`${rate} packets/s: ${b} ${opts.delayMs} ms...`);
        rows.push(await measureBackend(stack, lab, b, rate, opts.seconds, opts.delayMs, base.p50Ms, logDir));
        await sleep(200);
      }
    }
    return {
      date: new Date().toISOString(),
      machine: { host: hostname(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, kernel: release() },
      delayMs: opts.delayMs,
      secondsPerRate: opts.seconds,
      netem: netem ? 'available' : 'absent',
      rows,
    };
  } finally {
    const failures = await stack.unwind();
    // unwind() returns at once if a signal handler is already unwinding: wait for that
    // one to finish, or the caller's exit would cut it short.
    for (let i = 0; i < 600 && stack.size > 0; i++) await sleep(50);
    for (const f of failures) opts.log(`could not remove ${f}`);
  }
}

export function formatTable(report: BenchReport): string {
  const head = ['backend', 'pkt/s', 'sent', 'drops', 'reord', 'p50 ms', 'p99 ms', 'err p50', 'err p99', 'CPU %', 'probes %', 'late>1ms', 'steal %', 'load'];
  const rows = report.rows.map((r) => [
    r.backend, String(r.ratePps), String(r.sent), String(r.drops), String(r.reordered),
    r.p50Ms.toFixed(3), r.p99Ms.toFixed(3),
    r.backend === 'baseline' ? '-' : r.errP50Ms.toFixed(3),
    r.backend === 'baseline' ? '-' : r.errP99Ms.toFixed(3),
    r.cpuPercent === undefined ? '-' : r.cpuPercent.toFixed(1),
    r.probeCpuPercent.toFixed(1),
    r.delayLine ? String(r.delayLine.lateReleasesOver1ms) : '-',
    r.stealPercent.toFixed(1),
    r.loadAvg1.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    `one-way delay, ${report.delayMs} ms configured, ${report.secondsPerRate} s per rate; err = measured - configured - baseline p50`,
    `delayline-reorder: ${REORDER.percent}% of packets get ${REORDER.extraMs} ms more (reordering mode); its delays are each packet's own (those ${REORDER.extraMs} ms removed)`,
    `netem: ${report.netem}; ${report.machine.cores} x ${report.machine.cpu}, kernel ${report.machine.kernel}, ${report.date}`,
    line(head),
    ...rows.map(line),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      'delay-ms': { type: 'string', default: '20' },
      seconds: { type: 'string', default: '5' },
      rates: { type: 'string', default: '1000,10000,15000' },
    },
  });
  if (process.getuid?.() !== 0) {
    process.stderr.write('bench/delayline.ts needs root (network namespaces, NFQUEUE); run it with sudo\n');
    process.exit(3);
  }
  const rates = values.rates.split(',').map(Number);
  const delayMs = Number(values['delay-ms']);
  const seconds = Number(values.seconds);
  if (rates.some((r) => !(r > 0)) || !(delayMs >= 0) || !(seconds > 0)) {
    process.stderr.write('usage: npx tsx bench/delayline.ts [--json] [--delay-ms 20] [--seconds 5] [--rates 1000,10000,15000]\n');
    process.exit(2);
  }
  const report = await runBench({ delayMs, seconds, rates, log: (m) => process.stderr.write(m + '\n') });
  process.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : formatTable(report) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  // On Ctrl-C/SIGTERM the cleanup handler unwinds and exits; the interrupted measurement
  // then fails, and exiting from here would cut that cleanup short.
  let interrupted = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => (interrupted = true));
  main().catch((err: unknown) => {
    if (interrupted) return;
    const e = err as CcbError;
    process.stderr.write(`bench failed: ${e.message}${e.fix ? `\nfix: ${e.fix}` : ''}\n`);
    process.exit(e.exitCode ?? 70);
  });
}
