/**
 * Supervisor for ccb-delayline, the userspace delay line used where the kernel has no
 * sch_netem. The C program holds every packet of one NFQUEUE for a fixed delay, optionally
 * with jitter, loss, reordering and aggregated releases (a path's conditions);
 * the caller adds the iptables `-j NFQUEUE --queue-num N` rules (never --queue-bypass).
 *
 * Fail closed: if the process dies, the kernel drops the queue's traffic. The handle
 * emits 'exit' so a session can abort the measurement instead of recording a trace
 * taken without the intended delay.
 */
import { EventEmitter } from 'node:events';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { z } from 'zod';
import type { CleanupStack } from '../net/cleanup.js';
import { processStartTime, undo, type Resource } from '../net/resources.js';
import { BadInputError, CcbError, MissingPrerequisiteError } from '../util/errors.js';
import { startProcess } from '../net/launch.js';
import { repoRoot } from '../util/paths.js';

/** Exit codes of ccb-delayline (see native/delayline/ccb-delayline.c). */
const EXIT_NOT_ROOT = 3;
const EXIT_QUEUE_SETUP = 4;

export const delayLineStatsSchema = z.object({
  /** Packets the delay line received from the queue since it started. */
  packets: z.number().int().nonnegative(),
  /** Most packets held at once (must stay below the queue max length). */
  maxHeld: z.number().int().nonnegative(),
  /** Releases more than 1 ms after their due time (CPU starvation, VM steal). */
  lateReleasesOver1ms: z.number().int().nonnegative(),
  /** Netlink overruns reported to the program (packets the kernel then dropped). */
  enobufs: z.number().int().nonnegative(),
  /** Packets held right now. */
  held: z.number().int().nonnegative().optional(),
  /** Worst release lateness seen (us). */
  maxLateUs: z.number().nonnegative().optional(),
  /** Packets timed from the kernel's arrival stamp rather than from when we read them. */
  kernelStamped: z.number().int().nonnegative().optional(),
  /** Packets read more than 1 ms after they arrived, and the worst such lag (us). */
  readLagOver1ms: z.number().int().nonnegative().optional(),
  maxReadLagUs: z.number().nonnegative().optional(),
  ringOverflows: z.number().int().nonnegative().optional(),
  verdictErrors: z.number().int().nonnegative().optional(),
  /** Kernel counters for this queue: dropped because full / because userspace was unreachable (-1: unknown). */
  kernelQueueDropped: z.number().int().optional(),
  kernelUserDropped: z.number().int().optional(),
  /**
   * Late releases as [due, released] in CLOCK_REALTIME microseconds (the clock of captures):
   * packets due in that span left late, by its end at the latest. Overlapping windows merge;
   * the first 4096 are kept, the rest counted in lateWindowsDropped.
   */
  lateWindowsUs: z.array(z.tuple([z.number(), z.number()])).optional(),
  lateWindowsDropped: z.number().int().nonnegative().optional(),
  /** Packets the loss model dropped (explicit NF_DROP). Optional: older binaries do not print it. */
  droppedLoss: z.number().int().nonnegative().optional(),
  /** Packets released while a packet that arrived earlier was still held (they overtook it). */
  reordered: z.number().int().nonnegative().optional(),
  /**
   * Packets released after a packet that arrived later: what a receiver counts as reordered
   * (a sequence number below one it has already seen).
   */
  overtaken: z.number().int().nonnegative().optional(),
});
export type DelayLineStats = z.infer<typeof delayLineStatsSchema>;

export interface DelayLineExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when stop() asked for it; false means the delay line died under a measurement. */
  expected: boolean;
  stderr: string;
}

export interface DelayLineOptions {
  /** Network namespace holding the NFQUEUE rule (the shaper namespace). */
  netns: string;
  /** NFQUEUE number, 0..65535; one delay line per queue. */
  queueNum: number;
  /** Constant one-way delay in ms (microsecond resolution). */
  delayMs: number;
  /**
   * Extra delay per packet, uniform in [0, jitterMs] (0..60,000), never reordering packets (a
   * packet leaves no earlier than the one ahead of it) unless `jitterReorders`.
   */
  jitterMs?: number;
  /** The jitter is independent per packet and may reorder packets (needs jitterMs). */
  jitterReorders?: boolean;
  /**
   * Drops `percent` (0..100) of packets as they arrive: independently, or with `burstLen`
   * (>= 1) in bursts of that mean length (Gilbert-Elliott; then percent <= 100*L/(L+1)).
   */
  loss?: { percent: number; burstLen?: number };
  /**
   * Netem-like reordering: `percent` (0..100) of packets wait `extraMs` (0..60,000) longer,
   * so the packets behind them overtake them.
   */
  reorder?: { percent: number; extraMs: number };
  /**
   * Release times rounded up to a multiple of this (0 = off, up to 60,000 ms): packets leave
   * in batches, as Wi-Fi/cellular links and receivers' ACK aggregation bunch them.
   */
  aggregateMs?: number;
  /** Seeds every random decision (jitter, loss, reordering): same seed, same decisions for the same packets. Default 1. */
  seed?: number;
  /** Kernel queue max length; must exceed packets/s x delay with margin (default 10,000). */
  queueMaxLen?: number;
  /** The process is pushed here before we wait for it, so any failure unwinds it. */
  stack: CleanupStack;
  /**
   * Count the delay from the kernel's receive stamp (default true): a late wake-up of the
   * delay line then does not lengthen the delay. Set false if a queue sits between the
   * namespace's ingress device and the NFQUEUE rule (ingress qdisc + IFB): its waiting time
   * would otherwise be absorbed into the delay. False counts from when the program reads it.
   */
  kernelTimestamps?: boolean;
  /** Path of ccb-delayline (default: build/native/ccb-delayline in the repo). */
  binary?: string;
  /** How long to wait for `ready` (default 10 s: generous for a loaded 2-core machine). */
  readyTimeoutMs?: number;
}

export interface DelayLine {
  readonly pid: number;
  readonly netns: string;
  readonly queueNum: number;
  readonly delayMs: number;
  /** Current counters (SIGUSR1); rejects if the process is gone. */
  stats(): Promise<DelayLineStats>;
  /**
   * Current counters, then the late windows logged so far are forgotten (SIGUSR2): a delay line
   * kept across measurements starts each with an empty log (the native log holds 4,096 windows).
   */
  takeStats(): Promise<DelayLineStats>;
  /** Stops the delay line (SIGTERM) and returns its final counters. Idempotent. */
  stop(): Promise<DelayLineStats>;
  isAlive(): boolean;
  /** Everything ccb-delayline wrote on stderr so far (warnings, errors). */
  stderr(): string;
  /** Resolves when the process has exited, for whatever reason. */
  readonly exited: Promise<DelayLineExit>;
  on(event: 'exit', listener: (exit: DelayLineExit) => void): this;
  once(event: 'exit', listener: (exit: DelayLineExit) => void): this;
  off(event: 'exit', listener: (exit: DelayLineExit) => void): this;
}

/** Path of the built delay line; throws MissingPrerequisiteError if it was not built. */
export function delayLineBinaryPath(): string {
  const path = join(repoRoot(), 'build', 'native', 'ccb-delayline');
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new MissingPrerequisiteError(
      `the userspace delay line is not built (no executable ${path})`,
      'run ./setup.sh (it runs `make -C native/delayline`; needs gcc and libnetfilter-queue-dev)',
    );
  }
  return path;
}

/** ccb-udpprobe, built beside the delay line (benchmarks' prober, the host-stall sampler). */
export function udpProbeBinaryPath(): string {
  return join(dirname(delayLineBinaryPath()), 'ccb-udpprobe');
}

/** What the delay line does, without where and how it runs: what validation and its arguments need. */
export type DelayLineSettings = Omit<DelayLineOptions, 'netns' | 'stack' | 'binary' | 'readyTimeoutMs'>;

/** Microseconds, as ccb-delayline takes them. */
const us = (ms: number): string => String(Math.round(ms * 1000));

function checkRange(what: string, value: number, min: number, max: number, unit = ''): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new BadInputError(`delay line ${what} must be ${min.toLocaleString('en')}..${max.toLocaleString('en')}${unit}, got ${value}`);
  }
}

/** Throws BadInputError naming the allowed range for the first option that is out of it. */
export function validateDelayLineOptions(opts: DelayLineSettings): void {
  if (!Number.isInteger(opts.queueNum) || opts.queueNum < 0 || opts.queueNum > 65535) {
    throw new BadInputError(`delay line queue number must be an integer 0..65535, got ${opts.queueNum}`);
  }
  checkRange('delay', opts.delayMs, 0, 3_600_000, ' ms');
  const maxLen = opts.queueMaxLen;
  if (maxLen !== undefined && (!Number.isInteger(maxLen) || maxLen < 1 || maxLen > 10_000_000)) {
    throw new BadInputError(`delay line queue max length must be an integer 1..10,000,000, got ${maxLen}`);
  }
  if (opts.jitterMs !== undefined) checkRange('jitter', opts.jitterMs, 0, 60_000, ' ms');
  if (opts.jitterReorders && opts.jitterMs === undefined) {
    throw new BadInputError('delay line jitterReorders needs jitterMs (the jitter that may reorder packets)');
  }
  if (opts.seed !== undefined && (!Number.isSafeInteger(opts.seed) || opts.seed < 0)) {
    throw new BadInputError(`delay line seed must be a non-negative integer, got ${opts.seed}`);
  }
  if (opts.loss) {
    checkRange('loss percent', opts.loss.percent, 0, 100, '%');
    const len = opts.loss.burstLen;
    if (len !== undefined) {
      checkRange('loss burst length', len, 1, 1e9, ' packets');
      const most = (100 * len) / (len + 1);
      if (opts.loss.percent > most) {
        throw new BadInputError(
          `delay line loss of ${opts.loss.percent}% cannot come in bursts of mean length ${len}: ` +
            `bursts of mean length L allow at most 100*L/(L+1) = ${most.toPrecision(4)}% loss`,
        );
      }
    }
  }
  if (opts.reorder) {
    checkRange('reorder percent', opts.reorder.percent, 0, 100, '%');
    checkRange('reorder extra delay', opts.reorder.extraMs, 0, 60_000, ' ms');
  }
  if (opts.aggregateMs !== undefined) {
    checkRange('aggregation interval', opts.aggregateMs, 0, 60_000, ' ms');
    if (opts.aggregateMs > 0 && opts.aggregateMs < 0.001) {
      throw new BadInputError(`delay line aggregation interval must be 0 (off) or at least 0.001 ms, got ${opts.aggregateMs}`);
    }
  }
}

/** ccb-delayline's own arguments for these (validated) options. */
export function delayLineArguments(opts: DelayLineSettings): string[] {
  const jitter = opts.jitterMs ? ['--jitter-us', us(opts.jitterMs), ...(opts.jitterReorders ? ['--jitter-reorders'] : [])] : [];
  const loss = opts.loss?.percent
    ? ['--loss-percent', String(opts.loss.percent), ...(opts.loss.burstLen !== undefined ? ['--loss-burst-len', String(opts.loss.burstLen)] : [])]
    : [];
  const reorder = opts.reorder?.percent && opts.reorder.extraMs
    ? ['--reorder-percent', String(opts.reorder.percent), '--reorder-extra-us', us(opts.reorder.extraMs)]
    : [];
  const aggregate = opts.aggregateMs ? ['--aggregate-us', us(opts.aggregateMs)] : [];
  const random = jitter.length + loss.length + reorder.length > 0;
  return [
    '--queue-num', String(opts.queueNum),
    '--delay-us', us(opts.delayMs),
    '--queue-maxlen', String(opts.queueMaxLen ?? 10_000),
    ...(opts.kernelTimestamps === false ? ['--no-kernel-timestamps'] : []),
    ...jitter, ...loss, ...reorder, ...aggregate,
    ...(random ? ['--seed', String(opts.seed ?? 1)] : []),
  ];
}

class DelayLineProcess extends EventEmitter implements DelayLine {
  readonly exited: Promise<DelayLineExit>;
  private alive = true;
  private stopping = false;
  private stderrText = '';
  private stdoutBuf = '';
  private lastStats: DelayLineStats | undefined;
  private readonly statsWaiters: Array<{ resolve: (s: DelayLineStats) => void; reject: (e: Error) => void }> = [];
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private stopPromise: Promise<DelayLineStats> | undefined;

  constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly netns: string,
    readonly queueNum: number,
    readonly delayMs: number,
  ) {
    super();
    child.stdout!.setEncoding('utf8').on('data', (d: string) => this.onStdout(d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      // Bounded: a delay line that warns in a loop must not grow memory without end.
      this.stderrText = (this.stderrText + d).slice(-16_384);
    });
    this.exited = new Promise((resolve) => {
      // 'close' (not 'exit') so the final stats line on stdout has been read.
      child.on('close', (code, signal) => {
        this.alive = false;
        const exit: DelayLineExit = { code, signal, expected: this.stopping, stderr: this.stderrText.trim() };
        const why = new CcbError(this.describeExit(exit));
        this.readyWaiter?.reject(why);
        this.readyWaiter = undefined;
        for (const w of this.statsWaiters.splice(0)) w.reject(why);
        resolve(exit);
        this.emit('exit', exit);
      });
    });
  }

  waitReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.alive) {
        reject(new CcbError(`ccb-delayline in ${this.netns} exited before it was ready: ${this.stderrText.trim()}`));
        return;
      }
      const timer = setTimeout(() => {
        this.readyWaiter = undefined;
        reject(
          new CcbError(
            `ccb-delayline (queue ${this.queueNum} in ${this.netns}) did not print 'ready' within ${timeoutMs} ms` +
              (this.stderrText.trim() ? `; its stderr: ${this.stderrText.trim()}` : '; it wrote nothing on stderr'),
            'check that the namespace exists, that libnetfilter_queue works (`ccbrowse doctor`), and that the machine is not overloaded',
          ),
        );
      }, timeoutMs);
      this.readyWaiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  isAlive(): boolean {
    return this.alive;
  }

  stderr(): string {
    return this.stderrText;
  }

  stats(timeoutMs = 5_000): Promise<DelayLineStats> {
    return this.askForStats('SIGUSR1', timeoutMs);
  }

  takeStats(timeoutMs = 5_000): Promise<DelayLineStats> {
    return this.askForStats('SIGUSR2', timeoutMs);
  }

  /** Each signal gets one stats line; answers come in the order asked. */
  private askForStats(signal: 'SIGUSR1' | 'SIGUSR2', timeoutMs: number): Promise<DelayLineStats> {
    if (!this.alive || this.stopping) {
      return Promise.reject(new CcbError(`ccb-delayline (queue ${this.queueNum} in ${this.netns}) is not running`));
    }
    return new Promise((resolve, reject) => {
      // A stopped or wedged process must not hang the session.
      const timer = setTimeout(() => {
        const i = this.statsWaiters.indexOf(waiter);
        if (i >= 0) this.statsWaiters.splice(i, 1);
        reject(new CcbError(`ccb-delayline (queue ${this.queueNum} in ${this.netns}) did not answer ${signal} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: (s: DelayLineStats) => (clearTimeout(timer), resolve(s)),
        reject: (e: Error) => (clearTimeout(timer), reject(e)),
      };
      this.statsWaiters.push(waiter);
      this.child.kill(signal);
    });
  }

  stop(timeoutMs = 5_000): Promise<DelayLineStats> {
    this.stopPromise ??= this.doStop(timeoutMs);
    return this.stopPromise;
  }

  private async doStop(timeoutMs: number): Promise<DelayLineStats> {
    if (!this.alive) {
      if (this.lastStats) return this.lastStats;
      throw new CcbError(`ccb-delayline (queue ${this.queueNum} in ${this.netns}) had already exited: ${this.stderrText.trim()}`);
    }
    this.stopping = true;
    this.lastStats = undefined; // only the line printed in answer to SIGTERM counts
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const outcome = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.child.kill('SIGKILL');
      await this.exited;
      throw new CcbError(`ccb-delayline (queue ${this.queueNum} in ${this.netns}) ignored SIGTERM for ${timeoutMs} ms and was killed`);
    }
    if (!this.lastStats) {
      throw new CcbError(`ccb-delayline (queue ${this.queueNum} in ${this.netns}) exited without final stats: ${this.describeExit(outcome)}`);
    }
    return this.lastStats;
  }

  private onStdout(chunk: string): void {
    this.stdoutBuf += chunk;
    let nl: number;
    while ((nl = this.stdoutBuf.indexOf('\n')) >= 0) {
      const line = this.stdoutBuf.slice(0, nl).trim();
      this.stdoutBuf = this.stdoutBuf.slice(nl + 1);
      if (line === 'ready') {
        this.readyWaiter?.resolve();
        this.readyWaiter = undefined;
      } else if (line.startsWith('{')) {
        this.onStatsLine(line);
      }
    }
  }

  private onStatsLine(line: string): void {
    let stats: DelayLineStats;
    try {
      stats = delayLineStatsSchema.parse(JSON.parse(line));
    } catch (err) {
      const e = new CcbError(`ccb-delayline printed unreadable stats '${line}': ${(err as Error).message}`);
      this.statsWaiters.shift()?.reject(e);
      return;
    }
    this.lastStats = stats;
    this.statsWaiters.shift()?.resolve(stats);
  }

  private describeExit(exit: DelayLineExit): string {
    const how = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
    const what = exit.expected ? 'stopped' : 'died unexpectedly';
    return `ccb-delayline (queue ${this.queueNum} in ${this.netns}) ${what} (${how})${exit.stderr ? `: ${exit.stderr}` : ''}`;
  }
}

/** Turns an exit before `ready` into an error that names the cause and the fix. */
function startupFailure(exit: DelayLineExit, opts: DelayLineOptions): CcbError {
  const where = `queue ${opts.queueNum} in ${opts.netns}`;
  const how = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
  const detail = exit.stderr || 'nothing on stderr';
  if (exit.code === EXIT_NOT_ROOT) {
    return new MissingPrerequisiteError(`ccb-delayline refused to start: ${detail}`, 'run ccbrowse as root (sudo)');
  }
  if (exit.code === EXIT_QUEUE_SETUP) {
    return new CcbError(
      `ccb-delayline could not set up NFQUEUE ${opts.queueNum} in ${opts.netns}: ${detail}`,
      'another process may own this queue number in that namespace: pick another queue number or stop it',
    );
  }
  if (/Cannot open network namespace/.test(detail)) {
    return new CcbError(`ccb-delayline (${where}): network namespace ${opts.netns} does not exist: ${detail}`, 'create the shaper namespace before its delay line');
  }
  return new CcbError(
    `ccb-delayline (${where}) exited before it was ready (${how}): ${detail}`,
    'run ./setup.sh to rebuild it; `ccbrowse doctor` checks NFQUEUE support',
  );
}

/**
 * Starts ccb-delayline in `netns` and resolves once it has bound the queue.
 * The NFQUEUE rules may be added before or after: without a listener the kernel drops.
 */
export async function startDelayLine(opts: DelayLineOptions): Promise<DelayLine> {
  validateDelayLineOptions(opts);
  const binary = opts.binary ?? delayLineBinaryPath();
  if (process.getuid?.() !== 0) {
    throw new MissingPrerequisiteError(
      'the userspace delay line needs root (NFQUEUE binding, network namespaces, real-time priority)',
      'run ccbrowse as root (sudo)',
    );
  }
  const args = ['netns', 'exec', opts.netns, binary, ...delayLineArguments(opts)];
  // `ip netns exec` execs the program in place, so the child's pid is the delay line's.
  // Through the one launcher; the stack entry below is the delay line's own (it reads the final counters).
  const child = startProcess('ip', args, { what: `ccb-delayline queue ${opts.queueNum} in ${opts.netns}`, stack: null }).child;
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  if (child.pid === undefined) {
    const err = await spawnError;
    throw new MissingPrerequisiteError(`could not start ip netns exec for the delay line: ${err.message}`, 'run ./setup.sh (iproute2 is needed)');
  }
  const pid = child.pid;
  const dl = new DelayLineProcess(child, pid, opts.netns, opts.queueNum, opts.delayMs);
  const resource: Resource = { kind: 'process', pid, startTime: processStartTime(pid) ?? '', what: `ccb-delayline queue ${opts.queueNum} in ${opts.netns}` };
  let unwinding = false;
  try {
    opts.stack.push(resource, async () => {
      unwinding = true;
      if (dl.isAlive()) await dl.stop().catch(() => undo(resource));
    });
  } catch (err) {
    // The stack is already unwinding (Ctrl-C mid-start): do not leave the process behind.
    child.kill('SIGKILL');
    await dl.exited;
    throw err;
  }

  try {
    await dl.waitReady(opts.readyTimeoutMs ?? 10_000);
  } catch (err) {
    const timedOut = dl.isAlive();
    if (timedOut) child.kill('SIGKILL');
    const exit = await dl.exited;
    if (!unwinding) opts.stack.forget(resource); // while unwinding, the stack pops it itself
    if (timedOut) throw err;
    throw startupFailure(exit, opts);
  }
  // After a requested stop the process is gone: drop it from the stack. Not while the stack
  // itself is unwinding (it pops the entry itself), and not after an unexpected death
  // (leaving the entry is harmless: undo of a dead process is a no-op).
  void dl.exited.then((exit) => {
    if (exit.expected && !unwinding) opts.stack.forget(resource);
  });
  return dl;
}
