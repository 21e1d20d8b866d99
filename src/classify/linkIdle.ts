/**
 * How much of its active time a flow leaves the bottleneck idle: the share of grid points after
 * slow start, neither application-limited nor idle-excluded, where the smoothed bytes in flight
 * sit below LINK_IDLE_BELOW_BDP of the BDP the capture measured.
 *
 * WHY: a controller that yields the link (TCP-LP on early delay, CDG on delay gradients) keeps
 * well under the pipe for long stretches while it has data to send; the loss-based controllers
 * the model knows keep the pipe full (their back-offs start from a full buffer). Behind `video`,
 * open-set TCP-LP read Westwood 4 of 4 at 0.83-0.85 calibrated (session 35): its shape fell inside
 * Westwood's, but it held under 0.65 BDP 31-33% of its active time, Westwood's training flows at
 * most 5% there and 15% behind the Nebby profiles. A class's learned shapes stand only for flows
 * that leave the link idle about as often as its training flows did (lossBased.ts, `linkIdle`).
 */
import type { FlowFeatures } from './features.js';
import { pick } from './stats.js';

/**
 * Bytes in flight under this share of the BDP leave the link idle. 0.65, not 0.8: a loss-based
 * back-off from a full buffer dips under 0.8 BDP more often the farther the server (lab Westwood,
 * nebby-100: 0.22 of active time at 10-80 ms, 0.35 at 150 ms; at 0.65: 0.15 and 0.24), while
 * TCP-LP behind `video` stays at 0.31-0.33 (0.39-0.41 at 0.8): the gap is wider (session 36).
 */
export const LINK_IDLE_BELOW_BDP = 0.65;
/** Fewer judged grid points than this (8 per RTT: about 6 RTTs) measure nothing. */
const MIN_POINTS = 50;

/** The share (0-1), or null when the capture measured no BDP or too little active time. */
export function linkIdleShare(f: Pick<FlowFeatures, 'y' | 'mask' | 'slowStartEnd' | 'pipe'>): number | null {
  if (!f.pipe) return null;
  const floor = LINK_IDLE_BELOW_BDP * f.pipe.bdpPackets * f.pipe.segmentBytes;
  const active = pick(f.y, (i) => i >= f.slowStartEnd && f.mask[i] === 0);
  return active.length >= MIN_POINTS ? active.filter((y) => y < floor).length / active.length : null;
}

/**
 * A training group without its condition suffix (`tcp-video.video` -> `tcp-video`): the bound is
 * kept per class, transport and profile, so a group whose training traces are gone (the model's
 * first groups) borrows the bound its profile's other groups measured; a group spliced in with a
 * suffix since session 43 has a bound of its own (splice.ts), read first.
 */
export const profileOfGroup = (group: string): string => group.split('.')[0];
