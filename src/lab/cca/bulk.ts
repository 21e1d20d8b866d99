/**
 * One bulk TCP transfer between two network namespaces with the sender sampling its own
 * tcp_info (build/bpf/ccb-bulk, source src/lab/cca/ccb-bulk.c). Used to validate the
 * lab's congestion controllers from the server side.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { runIn, sleep } from '../../util/exec.js';
import { startProcess } from '../../net/launch.js';
import { CcbError, MissingPrerequisiteError } from '../../util/errors.js';
import type { CleanupStack } from '../../net/cleanup.js';
import type { Resource } from '../../net/resources.js';
import { bpfBuildDir, bpfSourceDir } from '../cca.js';
import { parseBulkOutput, type BulkRun } from './tcpinfo.js';

export interface BulkOptions {
  serverNs: string;
  clientNs: string;
  /** Address the client connects to (the server namespace's). */
  serverAddr: string;
  port?: number;
  seconds: number;
  sampleMs?: number;
  /** setsockopt(TCP_CONGESTION) on the listener; default: the namespace's default. */
  cc?: string;
  /** Take `ss -tin` in the server namespace this long after the start (default 1.5 s). */
  ssAfterMs?: number;
  /** Cap the sender's socket buffer (bytes): a slow controller then drains fast at the end. */
  sndbufBytes?: number;
}

export interface BulkResult extends BulkRun {
  /** `ss -tinH` in the server namespace, taken mid-transfer. */
  ssMidTransfer: string;
  receivedBytes: number;
}

export function bulkBinary(): string {
  return join(bpfBuildDir(), 'ccb-bulk');
}

function collect(child: ChildProcess): { out: () => string; err: () => string; done: Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code));
    child.on('error', () => resolve(-1));
  });
  return { out: () => out, err: () => err, done };
}

/** Starts the program in a namespace through the launcher, on the stack until stopped. */
function startIn(ns: string, args: string[], what: string, stack: CleanupStack): { child: ChildProcess; resource: Resource } {
  const p = startProcess(args[0], args.slice(1), { what, stack, netns: ns, killAfterMs: 500 });
  return { child: p.child, resource: p.resource };
}

export async function runBulkTransfer(opts: BulkOptions, stack: CleanupStack): Promise<BulkResult> {
  const bin = bulkBinary();
  if (!existsSync(bin)) throw new MissingPrerequisiteError(`${bin} is missing`, `build it: make -C ${bpfSourceDir()}`);
  const port = String(opts.port ?? 5201);
  const sendArgs = [bin, 'send', '--port', port, '--seconds', String(opts.seconds), '--sample-ms', String(opts.sampleMs ?? 10)];
  if (opts.cc) sendArgs.push('--cc', opts.cc);
  if (opts.sndbufBytes) sendArgs.push('--sndbuf', String(opts.sndbufBytes));
  const sender = startIn(opts.serverNs, sendArgs, 'ccb-bulk sender', stack);
  const s = collect(sender.child);
  let receiver: { child: ChildProcess; resource: Resource } | undefined;
  try {
    const t0 = Date.now();
    while (!s.out().includes('# listening')) {
      if (sender.child.exitCode !== null) throw new CcbError(`ccb-bulk sender exited: ${s.err().trim()}`);
      if (Date.now() - t0 > 5000) throw new CcbError('ccb-bulk sender did not start listening within 5 s');
      await sleep(20);
    }
    receiver = startIn(opts.clientNs, [bin, 'recv', '--connect', opts.serverAddr, '--port', port], 'ccb-bulk receiver', stack);
    const r = collect(receiver.child);
    await sleep(opts.ssAfterMs ?? 1500);
    const ss = (await runIn(opts.serverNs, 'ss', ['-tinH'], { allowFailure: true })).stdout;
    const limit = (opts.seconds + 20) * 1000;
    const finished = await Promise.race([
      Promise.all([s.done, r.done]).then(() => true),
      sleep(limit).then(() => false),
    ]);
    if (!finished) throw new CcbError(`bulk transfer did not finish within ${limit / 1000} s`);
    if (sender.child.exitCode !== 0) throw new CcbError(`ccb-bulk sender failed (exit ${sender.child.exitCode}): ${s.err().trim()}`);
    if (receiver.child.exitCode !== 0) throw new CcbError(`ccb-bulk receiver failed (exit ${receiver.child.exitCode}): ${r.err().trim()}`);
    const parsed = parseBulkOutput(s.out());
    const m = /# received (\d+)/.exec(r.out());
    return { ...parsed, ssMidTransfer: ss, receivedBytes: m ? Number(m[1]) : 0 };
  } finally {
    for (const p of [receiver, sender]) {
      if (!p) continue;
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      stack.forget(p.resource);
    }
  }
}
