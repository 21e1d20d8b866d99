/**
 * Vegas steers its window to keep alpha-beta packets queued at the bottleneck (Brakmo &
 * Peterson; Linux's alpha 2, beta 4), so the level it holds sits a few packets above the BDP. A
 * flow whose level kept under MIN_QUEUED_PACKETS queued in every profile is not named Vegas,
 * whatever its learned shape says. WHY (session 46): lab BBRv2 behind `video` 80-150 ms away
 * cruises flat at the BDP with no ProbeRTT drain to read in 30 s (drains.ts), and the Vegas class
 * took it at 1.00 (the held-out hd-video-110j2; leaving either `video` far group out, too). Over
 * every stored lab set the Vegas flows named Vegas kept 2.9-5.8 packets queued; the BBRv2 flows
 * behind `video`, 0-0.9. Far away the capture sees less than the BDP's worth of a Vegas level
 * (the rest lies before the capture point, negative queues): those flows are Unknown on their own
 * shapes, and a profile that keeps the queue lets the answer stand.
 *
 * The queue is the akamai classifier's (held level over the segment size, less the capture's BDP
 * in segments: akamai.ts), kept in its explain() output.
 */
import type { JsonObject } from './json.js';
import { AKAMAI, MIN_QUEUED_PACKETS as FAST_MIN_QUEUED_PACKETS } from './classifiers/akamai.js';

/**
 * Below Vegas's alpha (2) by half a packet, the error of the capture's BDP estimate. The evidence
 * keeps the queue to 0.1 packet (akamai.ts explain), so the cut falls at 1.45 in fact.
 */
export const MIN_QUEUED_PACKETS = 1.5;

const queuedOf = (c: Record<string, JsonObject> | undefined): number | null => {
  const q = c?.akamai?.queuedPackets;
  return typeof q === 'number' && Number.isFinite(q) ? q : null;
};

/** Why Vegas cannot stand (null: another label, a profile kept Vegas's queue, or none measured it). */
export function vegasQueueWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== 'Vegas') return null;
  const queues = classifiers.map(queuedOf).filter((q): q is number => q !== null);
  if (queues.length === 0 || queues.some((q) => q >= MIN_QUEUED_PACKETS)) return null;
  const most = Math.max(...queues);
  return `Vegas keeps 2-4 packets queued above the BDP, and the flow's held level kept ${most.toFixed(1)} (under ${MIN_QUEUED_PACKETS}): a sender cruising at the BDP (BBR-like) looks like this`;
}

/** The akamai rule's back-offs every 10-20 s at one level (its `periodic` match): AkamaiCC's own signature, whatever the queue. */
const periodicOf = (c: Record<string, JsonObject> | undefined): boolean => c?.akamai?.intervalsOk === true && c.akamai.flat === true && c.akamai.levelOk === true;

/**
 * Why AkamaiCC-like cannot stand (null: another label, a profile kept FAST's queue or showed the
 * periodic back-offs, or none measured the queue). The class is learned from the lab's FAST,
 * whose held level keeps its alpha (20) of packets queued: 18.5-20.5 measured (akamai.ts). The
 * akamai rule's held level already needs twice Vegas's beta (8) queued; the learned class did not,
 * and took a Vegas flow keeping 4 queued at 1.00 (session 52: held-out h-bn-800k-70j2, 800 kbit/s,
 * a 32-segment BDP no profile trains). A level with a few packets queued is Vegas's kind of
 * sender, not the one the class learned.
 */
export function akamaiQueueWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== AKAMAI || classifiers.some(periodicOf)) return null;
  const queues = classifiers.map(queuedOf).filter((q): q is number => q !== null);
  if (queues.length === 0 || queues.some((q) => q >= FAST_MIN_QUEUED_PACKETS)) return null;
  const most = Math.max(...queues);
  return `the AkamaiCC-like class is FAST's level with 20 packets queued above the BDP, and the flow's held level kept ${most.toFixed(1)} (under ${FAST_MIN_QUEUED_PACKETS}, twice Vegas's beta) without AkamaiCC's back-offs every 10-20 s: a delay-based sender with a small queue target (Vegas-like) looks like this`;
}
