/**
 * How many measurement sessions run at once, and running a list that many at a time: profiles
 * of a run or a probe each get their own namespaces, bottleneck, capture (and browser), so
 * they can run side by side when the host has the cores.
 */
import { availableParallelism } from 'node:os';

/**
 * How many profile sessions a host runs at once: one per core but one (a session keeps about one
 * core busy: Chromium, the delay line and tcpdump; the spare core keeps the delay line and the
 * capture on time, since a host that holds the bottleneck back makes a verdict Unknown), at least
 * one. A 2-core host runs profiles one after another unless --concurrency says otherwise.
 */
export function profilesAtOnce(profiles: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(profiles, cores - 1));
}

/** Runs `work` on every item, `n` at a time, in order of the list; resolves when all are done. */
export async function inBatches<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => { while (next < items.length) await work(items[next++]); };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, lane));
}
