/**
 * Whether a probe's trace is worth keeping: a bottleneck the measuring host held back (a busy or
 * shared machine, several jobs at once) gives a trace whose verdict the classifier withholds, so
 * the crawl measures it again instead of recording an Unknown it could have avoided.
 */
import { disturbedReason } from '../classify/disturbance.js';
import type { Disturbance } from '../shaper/disturbance.js';

/**
 * Why a probe's bottleneck was disturbed beyond what its verdict can bear, or null: the
 * classifier's own bounds (classify/disturbance.ts), at the smallest RTT its trace can show.
 * The classifier reads the RTT the capture sees, on the client's side of the lab's region
 * delay: the profile's own delay both ways, plus queueing. So the profile's delay alone, never
 * laxer than the classifier will be.
 */
export function probeDisturbance(p: { disturbance?: Disturbance; profile: { delayMs: number } }): string | null {
  return p.disturbance ? disturbedReason(p.disturbance, (2 * p.profile.delayMs) / 1000) : null;
}
