/**
 * Packet capture at the shaper's server-facing veth with tcpdump (headers only).
 * start() returns only once tcpdump is really listening, so no packet of the run is
 * missed; stop() lets tcpdump flush and reads its drop counters into the run's metadata.
 */
import type { ChildProcess } from 'node:child_process';
import { CcbError } from '../util/errors.js';
import { start } from '../util/exec.js';
import type { CleanupStack } from '../net/cleanup.js';
import { processStartTime, type Resource } from '../net/resources.js';

export interface CaptureStats {
  captured: number;
  receivedByFilter: number;
  droppedByKernel: number;
}

export interface Capture {
  file: string;
  pid: number;
  stop(): Promise<CaptureStats>;
}

/** Parses tcpdump's closing lines ("N packets captured", ...). */
export function parseTcpdumpStats(stderr: string): CaptureStats {
  const num = (re: RegExp) => Number(re.exec(stderr)?.[1] ?? NaN);
  return {
    captured: num(/(\d+) packets? captured/),
    receivedByFilter: num(/(\d+) packets? received by filter/),
    droppedByKernel: num(/(\d+) packets? dropped by kernel/),
  };
}

export async function startCapture(stack: CleanupStack, opts: {
  netns: string; dev: string; file: string; snaplen?: number; filter?: string; readyTimeoutMs?: number;
}): Promise<Capture> {
  const args = ['netns', 'exec', opts.netns, 'tcpdump', '-i', opts.dev, '-s', String(opts.snaplen ?? 128),
    '-w', opts.file, '-U', '-n', '-B', '8192',
    // Keep root: with privilege drop the tcpdump user could not write into the run directory.
    '-Z', 'root', '--immediate-mode', ...(opts.filter ? [opts.filter] : [])];
  const child: ChildProcess = start('ip', args);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const pid = child.pid!;
  const resource: Resource = { kind: 'process', pid, startTime: processStartTime(pid) ?? '', what: `tcpdump on ${opts.dev}` };
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const stop = async (): Promise<CaptureStats> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // SIGINT: flush and print stats
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    stack.forget(resource);
    return parseTcpdumpStats(stderr);
  };
  stack.push(resource, async () => { await stop(); });

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 10_000);
  while (!/listening on/.test(stderr)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new CcbError(`tcpdump did not start on ${opts.dev} in ${opts.netns}: ${stderr.trim() || 'no output'}`,
        'check that tcpdump is installed (./setup.sh) and that you run as root');
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { file: opts.file, pid, stop };
}
