/**
 * Packet capture at the shaper's server-facing veth with tcpdump (headers only).
 * start() returns only once tcpdump is really listening, so no packet of the run is
 * missed; stop() lets tcpdump flush and reads its drop counters into the run's metadata.
 */
import type { CleanupStack } from '../net/cleanup.js';
import { launch } from '../net/launch.js';

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
  netns: string; dev: string; file: string; snaplen?: number; filter?: string; readyTimeoutMs?: number; signal?: AbortSignal;
}): Promise<Capture> {
  const args = ['-i', opts.dev, '-s', String(opts.snaplen ?? 128),
    '-w', opts.file, '-U', '-n', '-B', '8192',
    // Keep root: with privilege drop the tcpdump user could not write into the run directory.
    '-Z', 'root', '--immediate-mode', ...(opts.filter ? [opts.filter] : [])];
  const p = await launch('tcpdump', args, {
    what: `tcpdump on ${opts.dev}`, stack, netns: opts.netns, signal: opts.signal,
    ready: { stream: 'stderr', pattern: /listening on/, timeoutMs: opts.readyTimeoutMs ?? 10_000 },
    // SIGINT: tcpdump flushes the file and prints its counters.
    stopSignal: 'SIGINT', killAfterMs: 5000,
    fix: 'check that tcpdump is installed (./setup.sh) and that you run as root',
  });
  const stop = async (): Promise<CaptureStats> => {
    await p.stop();
    return parseTcpdumpStats(p.stderr());
  };
  return { file: opts.file, pid: p.pid, stop };
}
