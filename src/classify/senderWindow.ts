/**
 * The sender's whole window at its back-offs, from the part of it a capture point sees.
 *
 * A capture point between server and client sees only the bytes in flight on its side: what is
 * still travelling towards it from the server, and the ACKs on their way back to the server, are
 * in the sender's window but already (or not yet) counted out at the capture point. With the
 * server far away that hidden part is large and fixed while the link is busy, so a back-off looks
 * deeper than it is: kernel NewReno, which halves its window, read 0.30-0.40 at 110-175 ms, and
 * HSTCP, which keeps 0.56 of it (Linux, above 38 packets), 0.32-0.48, both under NewReno's
 * 0.5 (session 43, lab far and held-out rounds).
 *
 * Two cases, from the conditions the capture measured (trace/conditions.ts): while the link is
 * busy (a queue at the bottleneck), the hidden part is the delivery rate times the round trip on
 * the server's side, visible + C * Rs; while it is not, the window is spread over the whole round
 * trip and the capture sees its own share of it, visible / s. The smaller of the two is the one
 * that holds (each is the larger when the other case is true), so no queue estimate is needed.
 */
import type { FlowConditions } from '../trace/types.js';
import type { FlowFeatures } from './features.js';
import type { JsonObject } from './json.js';
import { steadyBackoffs } from './flowShape.js';
import { median } from './stats.js';

/** What the capture cannot see of the path: its share of the round trip, the round trip beyond it, and the rate. */
export interface HiddenPath {
  visibleShare: number;
  serverSideRttSeconds: number;
  deliveryBytesPerSecond: number;
}

/** The hidden path from a flow's measured conditions, or null when they do not say (no correction then). */
export function hiddenPathOf(c: FlowConditions | undefined): HiddenPath | null {
  if (!c || c.visibleShare === null || c.serverSideRttSeconds === null || c.deliveryKbit === null) return null;
  if (!(c.visibleShare > 0 && c.visibleShare <= 1 && c.serverSideRttSeconds >= 0 && c.deliveryKbit > 0)) return null;
  return { visibleShare: c.visibleShare, serverSideRttSeconds: c.serverSideRttSeconds, deliveryBytesPerSecond: (c.deliveryKbit * 1000) / 8 };
}

/** The sender's window (bytes) when the capture sees `visible` bytes in flight. */
export function senderWindowBytes(visible: number, hidden: HiddenPath | null): number {
  if (!hidden) return visible;
  return Math.min(visible / hidden.visibleShare, visible + hidden.deliveryBytesPerSecond * hidden.serverSideRttSeconds);
}

export interface WindowBackoffs {
  /** Median over the steady back-offs of window after / window before. */
  beta: number;
  /** Median window before those back-offs, in the flow's own segments. */
  peakPackets: number;
  /** How many back-offs were measured. */
  count: number;
}

/** The steady back-offs (the ones beta is measured on) read on the sender's whole window; null without any. */
export function windowBackoffs(f: FlowFeatures): WindowBackoffs | null {
  const { steady } = steadyBackoffs(f);
  if (steady.length === 0 || !(f.segmentBytes > 0)) return null;
  const ratios = steady.map((b) => senderWindowBytes(b.trough, f.hiddenPath) / senderWindowBytes(b.peak, f.hiddenPath));
  const peaks = steady.map((b) => senderWindowBytes(b.peak, f.hiddenPath) / f.segmentBytes);
  return { beta: median(ratios), peakPackets: median(peaks), count: steady.length };
}

/**
 * The window the path's delivery rate fills over the whole round trip, in segments of
 * `segmentBytes` (the flow's own step, which a capture's MSS may differ from under GRO/TSO): the
 * capture's own BDP plus what the rate keeps in flight beyond the capture point. A sender window
 * above this holds a queue at the bottleneck. Null when the capture did not measure its BDP.
 */
export function pathBdpPackets(pipe: { bdpPackets: number; segmentBytes: number } | null, hidden: HiddenPath | null, segmentBytes: number): number | null {
  if (!pipe || !(segmentBytes > 0)) return null;
  const beyondBytes = hidden ? hidden.deliveryBytesPerSecond * hidden.serverSideRttSeconds : 0;
  return (pipe.bdpPackets * pipe.segmentBytes + beyondBytes) / segmentBytes;
}

/** The loss-based classifier's back-offs on the sender's whole window, as its explain() output carries them (lossBased.ts). */
export interface WholeWindow {
  beta: number;
  peakPackets: number | null;
  backoffs: number | null;
  transport: unknown;
  /** pathBdpPackets above, and the median peak less it; null when the capture measured no BDP. */
  pathBdpPackets: number | null;
  queuedAtPeakPackets: number | null;
}

/** The whole-window back-offs in a loss-based classifier's evidence, when it read them (the one reader for hstcp.ts and backoffQueue.ts). */
export function wholeWindowOf(lossEvidence: JsonObject | undefined): WholeWindow | null {
  const w = lossEvidence?.senderWindow as Record<string, unknown> | undefined;
  if (typeof w?.beta !== 'number' || !Number.isFinite(w.beta)) return null;
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return {
    beta: w.beta, peakPackets: num(w.peakPackets), backoffs: num(w.backoffs), transport: w.transport,
    pathBdpPackets: num(w.pathBdpPackets), queuedAtPeakPackets: num(w.queuedAtPeakPackets),
  };
}
