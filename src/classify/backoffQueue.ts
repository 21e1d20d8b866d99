/**
 * A back-off read against the queue the flow held at the peak before it: the loss-based
 * classifier's sender-window evidence (senderWindow.ts) carries the path's BDP and how far the
 * median peak stood above it. Two rules use it.
 *
 * 1. The depth of a back-off is read only where a queue was seen at the peak. With one, the
 *    sender's whole window is read well: over rounds A-J of sessions 47-49 and the committed
 *    fixtures, lab NewReno kept 0.48-0.51, HSTCP 0.57-0.58 and Veno 0.47-0.50 there. Without,
 *    halving controllers read anywhere from 0.42 to 0.76 (lab NewReno 0.69 and HSTCP 0.68-0.76
 *    behind `video` 90-100 ms away, both 0.42 beside a CUBIC download). Whether the link really
 *    idled or the peaks were read low (the median peak of the smoothed series; a queue before the
 *    capture point reads as none), the depth is not to be trusted there. The controllers that grow
 *    like Reno at these windows and differ mainly in how much of the window a loss keeps
 *    (DEPTH_TOLD) are therefore not named when every profile that read back-offs saw no queue.
 *    WHY (session 50): over those rounds every such answer was wrong, none right: lab HSTCP named
 *    Veno (fused 0.81 and 0.93), lab CUBIC named Illinois (one profile, 0.80).
 *
 * 2. Veno (Fu & Liew, IEEE JSAC 2003; Linux tcp_veno.c) tells a random loss from a congestive one
 *    by the backlog it estimates it holds, N = cwnd (RTT - baseRTT) / RTT: below beta = 3 packets
 *    the window keeps 4/5, at 3 packets or more it halves. A back-off that kept far more than
 *    half of a window with a queue of many packets is not Veno's. WHY (session 50, same rounds):
 *    each of the 20 right Veno answers with back-offs on the whole window kept 0.47-0.50 of it,
 *    24-66 packets above the path's BDP; three wrong ones kept 0.76-0.80, 20-32 above it (kernel
 *    NV, which keeps 0.8 on any loss, behind `video` 120 ms and under nebby-50 60 ms away; kernel
 *    YeAH in a 0.6-BDP buffer 90 ms away).
 */
import type { JsonObject } from './json.js';
import { wholeWindowOf } from './senderWindow.js';

const VENO = 'Veno';

/**
 * Grow like Reno at the windows these profiles reach, and are told apart mainly by the share of
 * the window a loss keeps: NewReno 0.5, HSTCP 0.5-0.59 (Linux's table up to 221 packets), Veno 0.5
 * or 0.8, Illinois 0.5-0.875, Scalable 0.875 (Linux: Reno's growth below 100 packets).
 */
const DEPTH_TOLD: ReadonlySet<string> = new Set(['NewReno', 'HSTCP', 'Veno', 'Illinois', 'Scalable']);

/** Midway between the halving Veno does under a queue (0.5) and the 4/5 it keeps without one. */
const KEPT_MORE_THAN_HALVING = 0.65;

/** Veno's beta (tcp_veno.c): a backlog of this many packets makes a loss congestive. */
const VENO_BETA_PACKETS = 3;

/**
 * The path's BDP behind the queue reading comes from a 90th-percentile delivery rate and two
 * round trips, each off by some per cent: a queue counts only above Veno's beta plus this share of it.
 */
const PATH_BDP_ERROR = 0.25;

interface QueuedBackoffs { beta: number; queued: number; pathBdp: number; backoffs: number }

/**
 * TCP only: the whole window read from QUIC flows strays even under a queue (lab quinn and aioquic
 * NewReno kept 0.31-0.35 behind `video` with 25-30 datagrams queued), and behind the Nebby
 * profiles, whose MSS clamp QUIC's full-size datagrams escape, their path BDP is 2-8 datagrams:
 * too few to read a queue of Veno's 3 packets on.
 */
function queuedBackoffsOf(lossEvidence: JsonObject | undefined): QueuedBackoffs | null {
  const w = wholeWindowOf(lossEvidence);
  if (w?.transport !== 'tcp' || w.queuedAtPeakPackets === null || w.pathBdpPackets === null || w.backoffs === null) return null;
  return w.pathBdpPackets > 0 && w.backoffs >= 1 ? { beta: w.beta, queued: w.queuedAtPeakPackets, pathBdp: w.pathBdpPackets, backoffs: w.backoffs } : null;
}

const heldQueue = (b: QueuedBackoffs): boolean => b.queued >= VENO_BETA_PACKETS + PATH_BDP_ERROR * b.pathBdp;

const describeBackoffs = (b: QueuedBackoffs): string =>
  `${b.beta.toFixed(2)} of the window, its peak ${b.queued.toFixed(1)} packets from a ${Math.round(b.pathBdp)}-packet path BDP (median of ${b.backoffs})`;

/** The profiles whose back-offs were read on the whole window; null when one of them has no queue reading (then nothing can be said of all). */
function readProfiles(classifiers: Array<Record<string, JsonObject> | undefined>): QueuedBackoffs[] | null {
  const out: QueuedBackoffs[] = [];
  for (const c of classifiers) {
    const loss = c?.['loss-based'];
    if (loss?.senderWindow === undefined) continue;
    const b = queuedBackoffsOf(loss);
    if (!b) return null;
    out.push(b);
  }
  return out;
}

/**
 * Why a depth-told answer cannot stand: every profile that read back-offs on the whole window saw
 * no queue at their peaks (null: one saw a queue, none read back-offs, or one's queue was not read).
 */
export function depthWithoutQueueWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (!DEPTH_TOLD.has(label)) return null;
  const read = readProfiles(classifiers);
  if (!read || read.length === 0 || read.some(heldQueue)) return null;
  return `back-offs read only where no queue was seen at their peaks (kept ${read.map(describeBackoffs).join('; ')}): their depth is not to be trusted there, and ${label} is told from its neighbours by it; ${label} not shown`;
}

/** Why a Veno answer cannot stand: some profile's back-offs kept far more than half the window under a queue Veno halves at (null: none did). */
export function venoWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== VENO) return null;
  const kept = classifiers.map((c) => queuedBackoffsOf(c?.['loss-based']))
    .filter((b): b is QueuedBackoffs => b !== null && heldQueue(b) && b.beta > KEPT_MORE_THAN_HALVING);
  return kept.length === 0 ? null
    : `not Veno's response: back-offs kept ${kept.map(describeBackoffs).join('; ')}, with a queue Veno halves under (a backlog of ${VENO_BETA_PACKETS} packets or more makes its loss congestive); Veno not shown`;
}
