/**
 * HTTP/3 lab origins with a chosen congestion controller (quinn, aioquic, quiche), used as
 * ground truth for the classifier. Each origin serves static files from `root` and
 * `/bytes/N`, and writes per-connection controller state to `stats` (see ./stats.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { BadInputError, CcbError, MissingPrerequisiteError } from '../../util/errors.js';
import { start } from '../../util/exec.js';
import { QUIC_CONTROLLERS, missingFiles, stackProgram, type QuicStack } from './paths.js';

export { QUIC_CONTROLLERS, missingFiles, repoRoot, type QuicStack } from './paths.js';
export { readQuicStats, parseQuicStats, type QuicStatsLine } from './stats.js';

export interface QuicOriginOptions {
  stack: QuicStack;
  /** Controller name; see QUIC_CONTROLLERS (e.g. quinn: newreno|cubic|bbr; aioquic: reno|cubic). */
  cc: string;
  /** IP:PORT to bind (UDP). */
  listen: string;
  /** Directory of static files. */
  root: string;
  /** PEM certificate chain and private key (the lab's leaf from src/lab/certs.ts). */
  cert: string;
  key: string;
  /** JSON-lines ground-truth file (appended to). Omit for no stats. */
  stats?: string;
  /** Sampling period of `stats` (default 10 ms). */
  statsIntervalMs?: number;
  /** Run inside this network namespace (`ip netns exec NS ...`). */
  netns?: string;
  /** How long to wait for `ready` (default 15 s). */
  readyTimeoutMs?: number;
}

export interface QuicOrigin {
  pid: number;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

/** The full command line for an origin (pure; exported for tests and `--dry-run` style output). */
export function quicOriginCommand(opts: QuicOriginOptions): { cmd: string; args: string[] } {
  if (!QUIC_CONTROLLERS[opts.stack]) throw new BadInputError(`unknown QUIC stack ${JSON.stringify(opts.stack)}`, 'use quinn, aioquic or quiche');
  if (!QUIC_CONTROLLERS[opts.stack].includes(opts.cc)) {
    throw new BadInputError(
      `${opts.stack} has no congestion controller ${JSON.stringify(opts.cc)}`,
      `choose one of ${QUIC_CONTROLLERS[opts.stack].join(', ')}`,
    );
  }
  const prog = stackProgram(opts.stack);
  const args = [...prog.prefix, '--listen', opts.listen, '--root', opts.root, '--cert', opts.cert, '--key', opts.key, '--cc', opts.cc];
  if (opts.stats) args.push('--stats', opts.stats, '--stats-interval-ms', String(opts.statsIntervalMs ?? 10));
  return opts.netns ? { cmd: 'ip', args: ['netns', 'exec', opts.netns, prog.cmd, ...args] } : { cmd: prog.cmd, args };
}

export async function startQuicOrigin(opts: QuicOriginOptions): Promise<QuicOrigin> {
  const { cmd, args } = quicOriginCommand(opts);
  const missing = missingFiles(opts.stack);
  if (missing.length) {
    throw new MissingPrerequisiteError(`${opts.stack} origin not built: missing ${missing.join(', ')}`, stackProgram(opts.stack).fix);
  }
  const child = start(cmd, args);
  const label = `${opts.stack} origin (${opts.cc}) on ${opts.listen}${opts.netns ? ` in netns ${opts.netns}` : ''}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stderrTail: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    // Keep only the end: the origin logs one line per failed connection and must not fill memory.
    stderrTail.push(d);
    if (stderrTail.length > 50) stderrTail.shift();
  });
  try {
    // 60 s: a Python stack (aioquic) took over 15 s to import on a 2-core host loaded by other labs.
    await waitReady(child, opts.readyTimeoutMs ?? 60_000, label, () => stderrTail.join('').trim());
  } catch (err) {
    await stopChild(child, exited);
    throw err;
  }
  if (child.pid === undefined) throw new CcbError(`${label}: no pid`);
  let stopping: Promise<void> | undefined;
  return { pid: child.pid, stop: () => (stopping ??= stopChild(child, exited)) };
}

function waitReady(child: ChildProcess, timeoutMs: number, label: string, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining stdout so a chatty child never blocks on a full pipe.
      child.stdout!.resume();
      err ? reject(err) : resolve();
    };
    const onData = (d: string) => {
      out += d;
      if (/^ready\b/m.test(out)) done();
    };
    const onExit = (code: number | null, sig: NodeJS.Signals | null) =>
      done(new CcbError(`${label} exited before it was ready (${sig ?? `exit ${code}`}): ${stderr() || out.trim() || 'no output'}`,
        'check the address is free and local to this namespace, and the cert/key paths'));
    const onError = (e: Error) => done(new CcbError(`${label} could not start: ${e.message}`, 'run the setup (docs/lab-quic.md)'));
    const timer = setTimeout(
      () => done(new CcbError(`${label} did not print "ready" within ${timeoutMs} ms: ${stderr() || 'no stderr'}`)),
      timeoutMs,
    );
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(killer);
}
