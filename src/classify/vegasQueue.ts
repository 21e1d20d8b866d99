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
