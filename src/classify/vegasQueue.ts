/**
 * Vegas steers its window to keep alpha-beta packets queued at the bottleneck (Brakmo &
 * Peterson; Linux's alpha 2, beta 4), so the level it holds sits a few packets above the BDP. A
 * flow whose level kept under MIN_QUEUED_PACKETS queued in every profile, or twice Vegas's beta or
 * more in every profile (session 60: vegasQueueWithheld), is not named Vegas, whatever its learned
 * shape says. WHY (session 46): lab BBRv2 behind `video` 80-150 ms away
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
import { AKAMAI, MAX_QUEUED_PACKETS as FAST_MAX_QUEUED_PACKETS, MIN_QUEUED_PACKETS as FAST_MIN_QUEUED_PACKETS } from './classifiers/akamai.js';

/**
 * Below Vegas's alpha (2) by half a packet, the error of the capture's BDP estimate. The evidence
 * keeps the queue to 0.1 packet (akamai.ts explain), so the cut falls at 1.45 in fact.
 */
export const MIN_QUEUED_PACKETS = 1.5;

/** The packets a profile's held level kept queued above the BDP (akamai.ts explain), or null when not measured. */
export const queuedOf = (c: Record<string, JsonObject> | undefined): number | null => {
  const q = c?.akamai?.queuedPackets;
  return typeof q === 'number' && Number.isFinite(q) ? q : null;
};

/** The queues the profiles that measured one kept (queuedOf), in profile order. */
const measuredQueues = (classifiers: Array<Record<string, JsonObject> | undefined>): number[] =>
  classifiers.map(queuedOf).filter((q): q is number => q !== null);

/** The least any profile kept queued, or null when none measured a queue. */
function leastQueued(classifiers: Array<Record<string, JsonObject> | undefined>): number | null {
  const queues = measuredQueues(classifiers);
  return queues.length ? Math.min(...queues) : null;
}

/** The most any profile kept queued, when each that measured a queue kept under `bound` (null: none measured one, or one kept `bound` or more). */
function mostQueuedUnder(classifiers: Array<Record<string, JsonObject> | undefined>, bound: number): number | null {
  const queues = measuredQueues(classifiers);
  return queues.length === 0 || queues.some((q) => q >= bound) ? null : Math.max(...queues);
}

/**
 * Why Vegas cannot stand (null: another label, none measured a queue, or the profiles' queues are
 * not all on one side: a profile kept 1.5-8, or one kept under 1.5 and another 8 or more, which
 * this does not judge): every profile that measured a queue kept under its alpha (a sender
 * cruising at the BDP), or every one kept twice its beta or more (a sender filling the buffer).
 * WHY the upper side (session 60): over every stored set through round AN, 81 of 82 fused Vegas
 * answers were right, each with a profile keeping 3.0-6.8 packets (kernel Vegas falls back to Reno
 * when it gets too few RTT samples and then fills the buffer behind one profile: up to 142 there);
 * the wrong one, kernel Veno 140 ms away at 450 kbit/s, kept 22.8 and 26.9 and read Vegas at 1.00.
 */
export function vegasQueueWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== 'Vegas') return null;
  const most = mostQueuedUnder(classifiers, MIN_QUEUED_PACKETS);
  if (most !== null) return `Vegas keeps 2-4 packets queued above the BDP, and the flow's held level kept ${most.toFixed(1)} (under ${MIN_QUEUED_PACKETS}): a sender cruising at the BDP (BBR-like) looks like this`;
  const least = leastQueued(classifiers);
  return least === null || least < FAST_MIN_QUEUED_PACKETS ? null
    : `Vegas keeps 2-4 packets queued above the BDP, and the flow's held level kept ${least.toFixed(1)} or more${measuredQueues(classifiers).length > 1 ? ' in every profile' : ''} (${FAST_MIN_QUEUED_PACKETS} or more, twice Vegas's beta): a loss-based sender filling the buffer looks like this`;
}

/**
 * Why an AkamaiCC-like answer cannot stand (null: another label, the akamai rule matched in some
 * profile on its own signature, its back-offs every 10-20 s or its held level (whose queue bound
 * it checks itself), or every profile that measured the queue kept FAST's). The learned class
 * comes from the lab's FAST, whose held level keeps its alpha (20) of packets queued above the BDP:
 * 18.5-20.5 over issue 17's rounds (akamai.ts), 17.4-19.6 in 68 of the 72 FAST traces of the
 * delay-based held-out rounds A-J and 18.2-18.3 at 400 kbit/s-1 Mbit/s (session 52). The other
 * four, in a 0.6-BDP buffer smaller than alpha, kept 6.4-7.3 and were Unknown already: where the
 * buffer cannot hold alpha, FAST is withheld too. The bound is the akamai rule's default for its
 * held level (twice Vegas's beta; a model file's own `held.minQueuedPackets` is not consulted, and
 * the shipped model keeps the default). WHY (session 52): the learned class took kernel Vegas at
 * 800 kbit/s (held-out h-bn-800k-70j2, a 32-segment BDP no profile trains), keeping 4 queued, at 1.00.
 * One profile under the bound is enough (session 60): FAST steers to alpha in every profile (16.5-19.1
 * packets in each of the 129 FAST profiles stored on this machine without loss on the server's side:
 * held-out rounds of sessions 54-60 through AM, and the committed fixtures), while open-set
 * kernel NV at 600 kbit/s 80 ms away kept 14-15 through nebby-50 and 12 under the BDP through
 * nebby-100, and read AkamaiCC-like at 0.99-1.00 fused once more groups were trained beyond the
 * first conditions. Not always so: round AN, read after, had lab FAST behind nebby-100 at 2 Mbit/s
 * keep 0.2, -1.5 and 1.7 (its fused answers were Unknown for other reasons under either rule).
 */
export function akamaiQueueWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== AKAMAI) return null;
  // More than twice FAST's alpha queued in a profile: a level held by a window cap (akamai.ts MAX_QUEUED_PACKETS).
  const capped = Math.max(...measuredQueues(classifiers));
  if (capped > FAST_MAX_QUEUED_PACKETS) {
    return `the AkamaiCC-like class is FAST's level with 20 packets queued above the BDP, and the flow's level kept ${capped.toFixed(0)} (over ${FAST_MAX_QUEUED_PACKETS}, twice FAST's alpha) in a profile: a level held by a window cap (the receiver's or the sender's buffer) looks like this`;
  }
  if (classifiers.some((c) => c?.akamai?.decision === AKAMAI)) return null;
  const least = leastQueued(classifiers);
  return least === null || least >= FAST_MIN_QUEUED_PACKETS ? null
    : `the AkamaiCC-like class is FAST's level with 20 packets queued above the BDP, and the flow's held level kept ${least.toFixed(1)}${measuredQueues(classifiers).length > 1 ? ' in a profile' : ''} (under ${FAST_MIN_QUEUED_PACKETS}, twice Vegas's beta) without AkamaiCC's back-offs every 10-20 s: a delay-based sender with a small queue target (Vegas-like) looks like this`;
}
