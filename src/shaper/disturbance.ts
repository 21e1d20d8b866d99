/**
 * How much the measuring host disturbed a bottleneck during a measurement, from the delay
 * line's own late-release windows (native/delayline logs each release > 1 ms late as
 * [due, released] in capture time). WHY: a VM descheduled for 5-20 ms holds the bottleneck's
 * packets back and releases them in a burst; at 200 kbit/s that reshapes bytes in flight
 * (a second lab on the same 2-core host once turned a CUBIC flow into "BBRv1"). A verdict
 * taken through a disturbed bottleneck must say so instead of guessing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { DelayLineStats } from './delayline.js';

/** Per profile of a run: how the measuring host disturbed the bottleneck during the activity. */
export const DISTURBANCE_FILE = 'disturbance.json';

export const disturbanceSchema = z.object({
  /** Seconds of the measurement window the summary covers. */
  windowSeconds: z.number().nonnegative(),
  /** Merged late-release windows inside it. */
  stalls: z.number().int().nonnegative(),
  /** Their total length (ms) and the longest (ms). */
  stalledMs: z.number().nonnegative(),
  maxStallMs: z.number().nonnegative(),
  /** Late windows the delay line could not keep (so the figures are a lower bound). */
  unlogged: z.number().int().nonnegative(),
  /** 1-minute load average of the host at the end (how busy it was). */
  loadAverage: z.number().nonnegative().nullable(),
});
export type Disturbance = z.infer<typeof disturbanceSchema>;

/**
 * Summary of the late windows that overlap [fromUs, toUs] (CLOCK_REALTIME microseconds). Only
 * from a delay line's own counters: with none there is no record, not a quiet one.
 */
export function disturbanceOf(stats: Pick<DelayLineStats, 'lateWindowsUs' | 'lateWindowsDropped'>, fromUs: number, toUs: number, loadAverage: number | null = null): Disturbance {
  const windows = (stats.lateWindowsUs ?? [])
    .map(([a, b]) => [Math.max(a, fromUs), Math.min(b, toUs)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let stalls = 0;
  let total = 0;
  let max = 0;
  let cur: [number, number] | null = null;
  const close = () => {
    if (!cur) return;
    stalls++;
    total += cur[1] - cur[0];
    max = Math.max(max, cur[1] - cur[0]);
  };
  for (const [a, b] of windows) {
    if (cur && a <= cur[1]) cur[1] = Math.max(cur[1], b);
    else {
      close();
      cur = [a, b];
    }
  }
  close();
  return {
    windowSeconds: Math.max(0, (toUs - fromUs) / 1e6),
    stalls,
    stalledMs: total / 1000,
    maxStallMs: max / 1000,
    unlogged: stats.lateWindowsDropped ?? 0,
    loadAverage,
  };
}

/** The host's 1-minute load average, or null where /proc is not readable. */
export async function loadAverage(): Promise<number | null> {
  try {
    const { readFileSync } = await import('node:fs');
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** A profile's disturbance record, or null (runs recorded before it, or an unreadable file). */
export function readDisturbance(path: string): Disturbance | null {
  if (!existsSync(path)) return null;
  try {
    return disturbanceSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}
