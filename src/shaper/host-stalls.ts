/**
 * How often this host holds back a real-time thread: `ccb-udpprobe stalls` sleeps to each
 * next millisecond on every CPU (one pinned thread each) and counts late wake-ups. A VM whose
 * host deschedules it (measured on the development VMs: ~1-3% of wake-ups more than 1 ms late,
 * worst 5-20 ms, both vCPUs at once; a CI guest once held the delay line back 239 ms while one
 * unpinned sampler saw 30 ms, as if one vCPU stalled alone)
 * puts the same stalls into the delay line, the probes and the captures; `doctor` reports it,
 * and timing tests print it next to a failure so a noisy host is told from a broken shaper.
 */
import { z } from 'zod';
import type { CleanupStack } from '../net/cleanup.js';
import { startProcess } from '../net/launch.js';
import { run } from '../util/exec.js';
import { CcbError } from '../util/errors.js';
import { udpProbeBinaryPath } from './delayline.js';

export const hostStallsSchema = z.object({
  /** CPUs sampled; the counts and the late total are summed over them (binaries before it: one). */
  cpus: z.number().int().positive().default(1),
  wakeups: z.number().int().nonnegative(),
  lateOver1ms: z.number().int().nonnegative(),
  lateOver3ms: z.number().int().nonnegative(),
  maxLateUs: z.number().nonnegative(),
  lateOver1msTotalMs: z.number().nonnegative(),
});
export type HostStalls = z.infer<typeof hostStallsSchema> & {
  /** When sampling started and stopped (CLOCK_REALTIME us, the clock of captures). */
  startedAtUs: number;
  stoppedAtUs: number;
};

/**
 * One above the delay line's real-time priority: a sampler pinned to the delay line's CPU at
 * the same priority would wait behind the delay line's own work and count it as the host's.
 */
const RT_PRIORITY = 51;

function parse(stdout: string, startedAtUs: number): HostStalls {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return { ...hostStallsSchema.parse(JSON.parse(line)), startedAtUs, stoppedAtUs: Date.now() * 1000 };
  } catch (err) {
    throw new CcbError(`ccb-udpprobe stalls printed unreadable output '${line}': ${(err as Error).message}`);
  }
}

/** Samples the host for `ms` 1-ms wake-ups per CPU (longer when it stalls: a stall is one wake-up). */
export async function measureHostStalls(ms: number): Promise<HostStalls> {
  const startedAtUs = Date.now() * 1000;
  const r = await run(udpProbeBinaryPath(), ['stalls', '--count', String(Math.round(ms)), '--rt-prio', String(RT_PRIORITY)],
    { timeoutMs: 2 * ms + 10_000 });
  return parse(r.stdout, startedAtUs);
}

/**
 * Samples the host until stop() (at most `maxMs` wake-ups), e.g. around a timing test. On a
 * run's cleanup stack when given one; without, the caller stops it (and it never outlives us).
 */
export function startHostStallMonitor(maxMs = 600_000, stack: CleanupStack | null = null): { pid: number; stop(): Promise<HostStalls> } {
  const startedAtUs = Date.now() * 1000;
  const p = startProcess(udpProbeBinaryPath(), ['stalls', '--count', String(Math.round(maxMs)), '--rt-prio', String(RT_PRIORITY)],
    { what: 'host stall sampler', stack });
  return {
    pid: p.pid,
    async stop() {
      const exit = await p.stop();
      if (!p.stdout().trim()) throw new CcbError(`ccb-udpprobe stalls gave no result: ${p.stderr().trim() || `exit ${exit.code}`}`);
      return parse(p.stdout(), startedAtUs);
    },
  };
}

/** One line for a report or a failure message. */
export function describeHostStalls(s: HostStalls): string {
  const pct = s.wakeups ? (100 * s.lateOver1ms) / s.wakeups : 0;
  return `${s.lateOver1ms} of ${s.wakeups} 1-ms wake-ups on ${s.cpus} CPU${s.cpus === 1 ? '' : 's'} more than 1 ms late (${pct.toFixed(1)}%), ` +
    `${s.lateOver3ms} more than 3 ms, worst ${(s.maxLateUs / 1000).toFixed(1)} ms`;
}
