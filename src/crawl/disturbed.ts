/**
 * Whether a trace (a probe's, or one profile of a browser run) is worth keeping: a bottleneck
 * the measuring host held back (a busy or shared machine, several jobs at once) gives a trace
 * whose verdict the classifier withholds, so the crawl measures a probe again instead of
 * recording an Unknown it could have avoided, and the worker counts it (jobs-at-once.ts).
 */
import { join } from 'node:path';
import { disturbedReason } from '../classify/disturbance.js';
import { DISTURBANCE_FILE, readDisturbance, type Disturbance } from '../shaper/disturbance.js';
import type { TraceSeen } from './jobs-at-once.js';

/**
 * Why a trace's bottleneck was disturbed beyond what its verdict can bear, or null: the
 * classifier's own bounds (classify/disturbance.ts), at the smallest RTT its trace can show.
 * The classifier reads the RTT the capture sees, on the client's side of the lab's region
 * delay: the profile's own delay both ways, plus queueing. So the profile's delay alone, never
 * laxer than the classifier will be.
 */
export function traceDisturbance(p: { disturbance?: Disturbance; profile: { delayMs: number } }): string | null {
  return p.disturbance ? disturbedReason(p.disturbance, (2 * p.profile.delayMs) / 1000) : null;
}

/**
 * A browser run's traces, one per profile, each judged by the bounds its verdicts were read
 * under; a profile without a disturbance record (no delay line) is no evidence either way.
 */
export function browserRunTraces(runDir: string, profiles: ReadonlyArray<{ name: string; delayMs: number }>, startedAt: number): TraceSeen[] {
  return profiles.flatMap((profile) => {
    const disturbance = readDisturbance(join(runDir, profile.name, DISTURBANCE_FILE));
    return disturbance ? [{ disturbed: traceDisturbance({ disturbance, profile }) !== null, startedAt }] : [];
  });
}
