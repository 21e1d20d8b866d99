/**
 * Starts an origin as a child process and waits for its "ready" line: the TS API the tests
 * and the lab session use. Optionally inside a network namespace (`ip netns exec`, which
 * execs, so the pid is the server's own).
 */
import type { ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadInputError, CcbError } from '../../util/errors.js';
import { start } from '../../util/exec.js';
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
// Under tsx the sources run directly; compiled, the .js sits beside this file.
const fromSource = import.meta.url.endsWith('.ts');
// src/lab/origin or dist/lab/origin: either way three levels below the project root, which
// is the cwd the child needs so that `--import tsx` resolves.
const projectRoot = resolve(here, '../../..');

export async function startOrigin(opts: OriginOptions): Promise<RunningOrigin> {
  if (!parseListen(opts.listen)) throw new BadInputError(`origin --listen must be IP:PORT, got "${opts.listen}"`);
  const name = opts.name ?? opts.listen;
  const script = join(here, fromSource ? 'server.ts' : 'server.js');
  const nodeArgs = [...(fromSource ? ['--import', 'tsx'] : []), script];
  const serverArgs = ['--listen', opts.listen, '--root', resolve(opts.root), '--cert', resolve(opts.cert), '--key', resolve(opts.key), '--name', name];
  if (opts.log) serverArgs.push('--log', resolve(opts.log));
  if (opts.liveWindowSegments !== undefined) serverArgs.push('--live-window', String(opts.liveWindowSegments));
  const [cmd, args] = opts.netns
    ? ['ip', ['netns', 'exec', opts.netns, process.execPath, ...nodeArgs, ...serverArgs]]
    : [process.execPath, [...nodeArgs, ...serverArgs]];
  const child = start(cmd, args, { cwd: projectRoot, ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}) });

  // If the parent dies without calling stop(), do not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  void exited.then(() => process.off('exit', killOnExit));

  const url = await waitReady(child, opts.readyTimeoutMs ?? 60_000, name);
  const u = new URL(url);
  return {
    pid: child.pid!,
    url,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port),
    name,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function waitReady(child: ChildProcess, timeoutMs: number, name: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new CcbError(`origin ${name} not ready after ${timeoutMs} ms: ${err.trim()}`));
    }, timeoutMs);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^ready (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new CcbError(`origin ${name} exited (${code ?? signal}) before it was ready: ${err.trim()}`, 'check --listen, --cert and --key'));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new CcbError(`could not start origin ${name}: ${e.message}`));
    });
  });
}
