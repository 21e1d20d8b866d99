/**
 * Starts an origin as a child process and waits for its "ready" line: the TS API the tests
 * and the lab session use. Optionally inside a network namespace (`ip netns exec`, which
 * execs, so the pid is the server's own).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CleanupStack } from '../../net/cleanup.js';
import { launch } from '../../net/launch.js';
import { BadInputError } from '../../util/errors.js';
import { repoRoot } from '../../util/paths.js';
import { parseListen } from './listen.js';

export interface OriginOptions {
  /** "IP:PORT"; port 0 picks a free port (read it back from `url`). */
  listen: string;
  /** Directory served as the document root (the built lab sites). */
  root: string;
  cert: string;
  key: string;
  /** Shown in logs and the X-Ccb-Origin header (default: the listen address). */
  name?: string;
  /** JSON-lines request log. */
  log?: string;
  /** Run inside this network namespace. */
  netns?: string;
  /** Segments listed by the live manifest (default 6). */
  liveWindowSegments?: number;
  readyTimeoutMs?: number;
  /** Extra environment for the server process (e.g. LD_PRELOAD of the pacing shim). */
  env?: Record<string, string>;
  /** The stack that stops it (the lab's); without one the caller must stop() it. */
  stack?: CleanupStack;
  /** Stop waiting for it to be ready (Ctrl-C). */
  signal?: AbortSignal;
}

export interface RunningOrigin {
  pid: number;
  /** https://IP:PORT actually bound. */
  url: string;
  host: string;
  port: number;
  name: string;
  /** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
// Under tsx the sources run directly; compiled, the .js sits beside this file. The child
// runs in the project root so that `--import tsx` resolves.
const fromSource = import.meta.url.endsWith('.ts');

export async function startOrigin(opts: OriginOptions): Promise<RunningOrigin> {
  if (!parseListen(opts.listen)) throw new BadInputError(`origin --listen must be IP:PORT, got "${opts.listen}"`);
  const name = opts.name ?? opts.listen;
  const script = join(here, fromSource ? 'server.ts' : 'server.js');
  const nodeArgs = [...(fromSource ? ['--import', 'tsx'] : []), script];
  const serverArgs = ['--listen', opts.listen, '--root', resolve(opts.root), '--cert', resolve(opts.cert), '--key', resolve(opts.key), '--name', name];
  if (opts.log) serverArgs.push('--log', resolve(opts.log));
  if (opts.liveWindowSegments !== undefined) serverArgs.push('--live-window', String(opts.liveWindowSegments));
  const p = await launch(process.execPath, [...nodeArgs, ...serverArgs], {
    what: `origin ${name}`, stack: opts.stack ?? null, netns: opts.netns, cwd: repoRoot(), signal: opts.signal,
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
    ready: { stream: 'stdout', pattern: /^ready (\S+)$/m, timeoutMs: opts.readyTimeoutMs ?? 60_000 },
    fix: 'check --listen, --cert and --key',
  });
  const url = p.ready![1];
  const u = new URL(url);
  return {
    pid: p.pid,
    url,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port),
    name,
    async stop() { await p.stop(); },
  };
}

/** Starts an origin that accepts connections and never answers (silent-server.ts). */
export async function startSilentOrigin(opts: { listen: string; name: string; netns?: string; stack?: CleanupStack; signal?: AbortSignal }): Promise<{ pid: number; stop(): Promise<void> }> {
  if (!parseListen(opts.listen)) throw new BadInputError(`silent origin --listen must be IP:PORT, got "${opts.listen}"`);
  const script = join(here, fromSource ? 'silent-server.ts' : 'silent-server.js');
  const p = await launch(process.execPath, [...(fromSource ? ['--import', 'tsx'] : []), script, '--listen', opts.listen], {
    what: `silent origin ${opts.name}`, stack: opts.stack ?? null, netns: opts.netns, cwd: repoRoot(), signal: opts.signal,
    ready: { stream: 'stdout', pattern: /^ready (\S+)$/m, timeoutMs: 60_000 }, fix: 'check --listen',
  });
  return { pid: p.pid, async stop() { await p.stop(); } };
}
