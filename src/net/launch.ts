/**
 * The one launcher for helper processes (tcpdump, the delay line, origins, samplers, agents,
 * the lab supervisor): start it, put it on a cleanup stack at once, wait for its ready line,
 * and stop it with its stop signal then SIGKILL. Written once so every helper fails the same
 * clear way, never outlives its run, and stops waiting when the run is interrupted.
 * (Commands that run to completion go through util/exec.ts run().)
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { CcbError, MissingPrerequisiteError } from '../util/errors.js';
import { interruptReason } from '../util/interrupt.js';
import type { CleanupStack } from './cleanup.js';
import { processStartTime, type Resource } from './resources.js';

export interface ReadyLine {
  /** Where the line appears. */
  stream: 'stdout' | 'stderr';
  pattern: RegExp;
  /** Default 15 s: generous for a loaded 2-core machine. */
  timeoutMs?: number;
}

export interface LaunchOptions {
  /** What it is, in errors, logs and the owner record ("tcpdump on ccb1a2b3ss"). */
  what: string;
  /**
   * The stack that stops it (pushed as soon as it has a pid, before any wait). `null` only for
   * a process that owns its own stack and outlives this one (the lab supervisor).
   */
  stack: CleanupStack | null;
  /** Run inside this network namespace (`ip netns exec` execs: the pid is the program's own). */
  netns?: string;
  ready?: ReadyLine;
  /** Stops waiting for the ready line (Ctrl-C); the process is then stopped and this throws. */
  signal?: AbortSignal;
  /** The polite stop (default SIGTERM; tcpdump flushes on SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** SIGKILL this long after the polite stop (default 3 s). */
  killAfterMs?: number;
  /** Child stdio (default: stdin ignored, stdout and stderr piped and their tails kept). */
  stdio?: StdioOptions;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** It outlives this process (the lab supervisor): never killed when we exit; the caller unrefs it. */
  outlivesUs?: boolean;
  /** Shown when the program is missing. */
  fix?: string;
}

export interface ProcessExit { code: number | null; signal: NodeJS.Signals | null }

export interface LaunchedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly resource: Resource;
  /** The ready line's match (e.g. the URL an origin printed). */
  readonly ready?: RegExpExecArray;
  /** The last 16 kB of stdout / stderr (when piped). */
  stdout(): string;
  stderr(): string;
  running(): boolean;
  /** Resolves once the process has exited and its pipes closed, for whatever reason. */
  readonly exited: Promise<ProcessExit>;
  /** Stop signal, then SIGKILL after killAfterMs; resolves when it is gone. Idempotent. */
  stop(): Promise<ProcessExit>;
}

const TAIL = 16_384;

// Helpers with no stack, killed when this process exits. One 'exit' listener for all: a lab runs
// dozens at once, and a listener each trips Node's leak warning (MaxListenersExceededWarning)
// although none leaks. One failed kill must not spare the rest.
const killOnProcessExit = new Set<() => void>();
process.on('exit', () => {
  for (const kill of killOnProcessExit) {
    try { kill(); } catch { /* already gone */ }
  }
});

/** Starts a helper process; resolves once it printed its ready line (or at once without one). */
export async function launch(cmd: string, args: readonly string[], opts: LaunchOptions): Promise<LaunchedProcess> {
  if (opts.signal?.aborted) throw interruptReason(opts.signal);
  const p = startProcess(cmd, args, opts);
  if (!opts.ready) return p;
  try {
    const ready = await waitForReadyLine(p.child, opts.ready, p.exited, opts.signal, opts.what, () => (opts.ready!.stream === 'stdout' ? p.stdout() : p.stderr()));
    return { ...p, ready };
  } catch (e) {
    await p.stop();
    if (e instanceof CcbError && e.name !== 'InterruptedError') {
      const tail = (p.stderr().trim() || p.stdout().trim()).split('\n').slice(-5).join('\n');
      throw new CcbError(`${e.message}${tail ? `: ${tail}` : ''}`, e.fix ?? opts.fix);
    }
    throw e;
  }
}

/**
 * The synchronous part of launch(): spawn, stack, output tails, stop. For a caller that waits
 * in its own way (or not at all); throws at once if the program could not be started.
 */
export function startProcess(cmd: string, args: readonly string[], opts: Omit<LaunchOptions, 'ready' | 'signal'>): LaunchedProcess {
  const [file, argv] = opts.netns ? ['ip', ['netns', 'exec', opts.netns, cmd, ...args]] : [cmd, [...args]];
  const child = spawn(file, argv, {
    stdio: opts.stdio ?? ['ignore', 'pipe', 'pipe'], cwd: opts.cwd, env: opts.env,
    // Its own session: a terminal's Ctrl-C (SIGINT to our process group) reaches ccbrowse
    // only, which stops its helpers in order (tcpdump flushes, the delay line outlives the capture).
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => { out = (out + d).slice(-TAIL); });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => { err = (err + d).slice(-TAIL); });
  let spawnError: Error | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (e) => { spawnError = e; resolve({ code: null, signal: null }); });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  if (child.pid === undefined) {
    // Node reports why only later, on 'error'; without a pid it is (nearly always) a missing program.
    throw new MissingPrerequisiteError(`could not start ${opts.what}: ${file} is missing or not executable`,
      opts.fix ?? 'run ./setup.sh to install or build it');
  }
  const pid = child.pid;
  const resource: Resource = { kind: 'process', pid, startTime: processStartTime(pid) ?? '', what: opts.what };
  const running = () => child.exitCode === null && child.signalCode === null && spawnError === undefined;
  let stopping: Promise<ProcessExit> | undefined;
  const stop = (): Promise<ProcessExit> => (stopping ??= (async () => {
    if (running()) child.kill(opts.stopSignal ?? 'SIGTERM');
    const killer = setTimeout(() => { if (running()) child.kill('SIGKILL'); }, opts.killAfterMs ?? 3000);
    const exit = await exited;
    clearTimeout(killer);
    opts.stack?.forget(resource);
    return exit;
  })());
  if (opts.stack) {
    try {
      opts.stack.push(resource, async () => { await stop(); });
    } catch (e) {
      // The stack is already unwound (interrupted mid-start): do not leave the process behind.
      child.kill('SIGKILL');
      throw e;
    }
  }
  // Gone by itself: nothing left to undo (and its pid may be reused).
  void exited.then(() => { if (!stopping) opts.stack?.forget(resource); });
  if (!opts.stack && !opts.outlivesUs) {
    // No stack to stop it (a test's own server): at least never outlive this process.
    const killOnExit = () => { if (running()) child.kill('SIGKILL'); };
    killOnProcessExit.add(killOnExit);
    void exited.then(() => killOnProcessExit.delete(killOnExit));
  }

  return {
    child, pid, resource, exited, stop, running,
    stdout: () => out,
    stderr: () => err,
  };
}

function waitForReadyLine(child: ChildProcess, ready: ReadyLine, exited: Promise<ProcessExit>, signal: AbortSignal | undefined,
  what: string, text: () => string): Promise<RegExpExecArray> {
  const timeoutMs = ready.timeoutMs ?? 15_000;
  const stream = ready.stream === 'stdout' ? child.stdout : child.stderr;
  if (!stream) return Promise.reject(new CcbError(`${what}: its ${ready.stream} is not piped, no ready line can be read`));
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onData = () => {
      const m = ready.pattern.exec(text());
      if (m) done(() => resolve(m));
    };
    const onAbort = () => done(() => reject(interruptReason(signal!)));
    const timer = setTimeout(() => done(() => reject(new CcbError(`${what} was not ready within ${timeoutMs} ms`))), timeoutMs);
    // Registered after launch()'s own listener: text() already holds this chunk when we look.
    stream.on('data', onData);
    signal?.addEventListener('abort', onAbort, { once: true });
    void exited.then((e) => done(() => reject(new CcbError(`${what} exited before it was ready (${e.signal ?? `exit ${e.code}`})`))));
    onData();
  });
}
