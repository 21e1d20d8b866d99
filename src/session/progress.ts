/**
 * Live progress of a profile session: phase, elapsed time, flows the bottleneck has seen and
 * the bytes that went through the capture point so far. Bytes come from the capture
 * interface's own counters, read through /proc/<tcpdump pid>/net/dev (that file shows the
 * interfaces of the process's network namespace): one small read per tick, no process
 * spawned and nothing asked of tcpdump, so the capture is never slowed down.
 */
import { readFileSync } from 'node:fs';

export interface IfaceCounters {
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
}

/** Parses /proc/net/dev text; null when the interface is not listed. */
export function parseNetDev(text: string, dev: string): IfaceCounters | null {
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim() !== dev) continue;
    const f = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    // Receive: bytes packets errs drop fifo frame compressed multicast; transmit: bytes packets ...
    if (f.length < 10 || f.some((x) => !Number.isFinite(x))) return null;
    return { rxBytes: f[0], rxPackets: f[1], txBytes: f[8], txPackets: f[9] };
  }
  return null;
}

/** Counters of `dev` in the network namespace of process `pid`; null when unreadable. */
export function readIfaceCounters(pid: number, dev: string): IfaceCounters | null {
  try {
    return parseNetDev(readFileSync(`/proc/${pid}/net/dev`, 'utf8'), dev);
  } catch {
    return null;
  }
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

/** One progress sample of a profile session (also handed to callers as data). */
export interface ProgressSample {
  profile: string;
  /** page = start page and steps; activity = the scenario's activity period. */
  phase: 'page' | 'activity';
  elapsedSeconds: number;
  flows: number;
  /** Bytes and packets through the capture point since the capture started (frames, as on the wire). */
  bytesDown: number;
  bytesUp: number;
  packetsDown: number;
  packetsUp: number;
}

export function formatProgress(s: ProgressSample): string {
  return `[${s.profile}] ${s.phase} ${s.elapsedSeconds.toFixed(0)} s, ${s.flows} flow${s.flows === 1 ? '' : 's'}, `
    + `${formatBytes(s.bytesDown)} down / ${formatBytes(s.bytesUp)} up captured (${s.packetsDown + s.packetsUp} packets)`;
}

/**
 * Samples a session's progress: counters relative to the moment it was made (the capture's
 * start), the flow count from `flowsSeen`. Ticks that would overlap a slow one are skipped.
 */
export class ProgressMeter {
  private readonly base: IfaceCounters;
  private busy = false;
  phase: ProgressSample['phase'] = 'page';

  constructor(private readonly opts: {
    profile: string; capturePid: number; dev: string; startedAt: number;
    flowsSeen: () => Promise<number>; emit: (s: ProgressSample) => void;
  }) {
    this.base = readIfaceCounters(opts.capturePid, opts.dev) ?? { rxBytes: 0, rxPackets: 0, txBytes: 0, txPackets: 0 };
  }

  /** The capture point's counters since the start (data from servers arrives on this interface: rx = down). */
  counters(): Pick<ProgressSample, 'bytesDown' | 'bytesUp' | 'packetsDown' | 'packetsUp'> {
    const c = readIfaceCounters(this.opts.capturePid, this.opts.dev) ?? this.base;
    return {
      bytesDown: Math.max(0, c.rxBytes - this.base.rxBytes), bytesUp: Math.max(0, c.txBytes - this.base.txBytes),
      packetsDown: Math.max(0, c.rxPackets - this.base.rxPackets), packetsUp: Math.max(0, c.txPackets - this.base.txPackets),
    };
  }

  async tick(): Promise<ProgressSample | null> {
    if (this.busy) return null;
    this.busy = true;
    try {
      const flows = await this.opts.flowsSeen().catch(() => 0);
      const s: ProgressSample = {
        profile: this.opts.profile, phase: this.phase, elapsedSeconds: (Date.now() - this.opts.startedAt) / 1000, flows, ...this.counters(),
      };
      this.opts.emit(s);
      return s;
    } finally {
      this.busy = false;
    }
  }
}
