/**
 * The one place that runs external commands to completion (ip, tc, curl, ...): it owns
 * timeouts, interrupts and error text, so every caller gets the same clear failures.
 * Helper processes that keep running go through net/launch.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CcbError } from './errors.js';
import { interruptReason } from './interrupt.js';

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunOptions {
  /** Fail after this many ms (default 30 s): a hung `tc` must not hang a crawl. */
  timeoutMs?: number;
  /** Text written to the child's stdin (e.g. a `tc -batch -` script). */
  input?: string;
  /** Do not throw on a non-zero exit; the caller inspects `code`. */
  allowFailure?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Ctrl-C: the command is ended (SIGTERM) and run() rejects with the InterruptedError. */
  signal?: AbortSignal;
}

/** Runs a command to completion and returns its output; throws a CcbError on failure. */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  if (opts.signal?.aborted) return Promise.reject(interruptReason(opts.signal));
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      // Its own session: a terminal's Ctrl-C reaches ccbrowse, not a half-done `ip` or `tc`
      // (ccbrowse decides what to stop; `signal` ends the command when that is wanted).
      child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env, cwd: opts.cwd, detached: true });
    } catch (err) {
      reject(new CcbError(`could not start ${cmd}: ${(err as Error).message}`));
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const onAbort = () => child.kill('SIGTERM');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const hint = err.code === 'ENOENT' ? 'run ./setup.sh to install the missing tool' : undefined;
      reject(new CcbError(`could not start ${cmd}: ${err.message}`, hint));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const result = { stdout, stderr, code, signal };
      if (opts.signal?.aborted) {
        reject(interruptReason(opts.signal));
      } else if (signal === 'SIGKILL' && code === null) {
        reject(new CcbError(`${cmd} ${args.join(' ')} timed out after ${timeoutMs} ms`));
      } else if (code !== 0 && !opts.allowFailure) {
        reject(new CcbError(`${cmd} ${args.join(' ')} failed (exit ${code}): ${stderr.trim() || stdout.trim()}`));
      } else {
        resolve(result);
      }
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    else child.stdin!.end();
  });
}

/** Runs a command inside a network namespace (`ip netns exec NS cmd ...`). */
export function runIn(ns: string, cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return run('ip', ['netns', 'exec', ns, cmd, ...args], opts);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
