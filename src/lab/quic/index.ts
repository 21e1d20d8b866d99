/**
 * HTTP/3 lab origins with a chosen congestion controller (quinn, aioquic, quiche), used as
 * ground truth for the classifier. Each origin serves static files from `root` and
 * `/bytes/N`, and writes per-connection controller state to `stats` (see ./stats.ts).
 */
import type { CleanupStack } from '../../net/cleanup.js';
import { launch } from '../../net/launch.js';
import { BadInputError, MissingPrerequisiteError } from '../../util/errors.js';
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
  /** The cleanup stack that stops it (the lab's); without one the caller must stop() it. */
  cleanup?: CleanupStack;
  /** Stop waiting for it to be ready (Ctrl-C). */
  signal?: AbortSignal;
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
  const { cmd, args } = quicOriginCommand({ ...opts, netns: undefined });
  const missing = missingFiles(opts.stack);
  if (missing.length) {
    throw new MissingPrerequisiteError(`${opts.stack} origin not built: missing ${missing.join(', ')}`, stackProgram(opts.stack).fix);
  }
  const label = `${opts.stack} origin (${opts.cc}) on ${opts.listen}${opts.netns ? ` in netns ${opts.netns}` : ''}`;
  const p = await launch(cmd, args, {
    what: label, stack: opts.cleanup ?? null, netns: opts.netns, signal: opts.signal,
    // 60 s: a Python stack (aioquic) took over 15 s to import on a 2-core host loaded by other labs.
    ready: { stream: 'stdout', pattern: /^ready\b/m, timeoutMs: opts.readyTimeoutMs ?? 60_000 },
    fix: 'check the address is free and local to this namespace, and the cert/key paths',
  });
  return { pid: p.pid, stop: async () => { await p.stop(); } };
}
