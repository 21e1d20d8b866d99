/**
 * The contract between the trace step (pcap -> flows -> bytes in flight) and the
 * classifier. Both sides import these types; neither imports the other's internals.
 */

/** A flow's bytes-in-flight time series, as the classifier consumes it. */
export interface BifSeries {
  /** Seconds since the flow's first packet, ascending. */
  t: Float64Array;
  /** Bytes in flight at t (sender's view: sent but not yet acknowledged). */
  bif: Float64Array;
  /**
   * Per sample: 1 when the sender was application-limited or idle at t (nothing to send,
   * e.g. an ABR pause), so a drop in BiF there is not a congestion back-off.
   */
  appLimited?: Uint8Array;
  /**
   * The transport that carried it, when known: the learned model compares a flow with the
   * classes trained on the same transport (lab QUIC stacks' shapes are not TCP shapes).
   */
  transport?: 'tcp' | 'quic';
  /** Median RTT of the flow in seconds, measured from the trace itself. */
  rttSeconds: number;
  /**
   * What the sender lost (over the flow, or up to a cut: checkpoints), when the trace can tell: TCP from its
   * retransmissions, QUIC from the replayed loss recovery (key log only; Nebby's heuristic
   * cannot see losses). Lets a classifier ask whether the sender reacted to loss at all.
   */
  loss?: SenderLoss;
  /** The conditions the flow was captured under, when the trace measured them. */
  conditions?: FlowConditions;
}

/**
 * The conditions a flow was captured under, read from the capture itself (src/trace/conditions.ts):
 * the classifier compares them with the conditions its model was trained under.
 */
export interface FlowConditions {
  transport: 'tcp' | 'quic';
  /** Typical data segment (TCP payload, QUIC datagram payload) in bytes. */
  segmentBytes: number;
  /** TCP SACK in use (null: the capture cannot tell); QUIC always acknowledges ranges. */
  sack: boolean | null;
  /** Median and minimum RTT as the capture point sees it (its side of the path to the client and back). */
  rttSeconds: number;
  minRttSeconds: number;
  /** Round trip from the capture point to the server and back, and to the client and back, from the opening exchange. */
  serverSideRttSeconds: number | null;
  clientSideRttSeconds: number | null;
  /**
   * Share of the round trip behind the capture point (towards the client): about the share of the
   * sender's bytes in flight the capture sees. Near 1: a Nebby-style capture in front of a
   * delay, or at the sender; near 0: a capture at the client, which sees almost nothing in flight.
   */
  visibleShare: number | null;
  /** What the path delivered at its busiest (90th percentile over windows of 4 RTTs, >= 1 s), in payload kbit/s. */
  deliveryKbit: number | null;
  /** The window that rate allows over the capture's minimum RTT (the BDP behind the capture point), in the flow's own segments. */
  bdpPackets: number | null;
  /** Packets that reached the capture point out of order (share of data packets): TCP, and QUIC whose packet numbers the key log let us read. */
  reorderShare: number | null;
  /** TCP: share of the sender's bytes lost before the capture point (seen as gaps it filled later). */
  upstreamLossShare: number | null;
  /** TCP: share of the resent segments that were not losses (go-back-N after a timeout, spurious). */
  needlessResendShare: number | null;
  /**
   * TCP: segments the sender resent, counted as they pass the capture point (those that filled a
   * gap, a loss before it, included). A series cut from a longer trace keeps the whole trace's
   * count, never below the cut's. Not seen: resends of bytes sent before the capture began, and a
   * gap filled before the RTT is known that reads as reordering. Absent in conditions recorded before it.
   */
  resentPackets?: number | null;
  /**
   * How bytes in flight were read: 'exact' (TCP sequence and ACK numbers; QUIC decrypted with the
   * key log), 'replayed' (QUIC through a replay of a known bottleneck), 'estimated' (QUIC by
   * Nebby's heuristic: no keys, no known bottleneck). Absent in conditions recorded before it.
   */
  bifMethod?: 'exact' | 'replayed' | 'estimated';
}

export interface SenderLoss {
  /** Payload bytes the server sent, retransmissions included. */
  sentBytes: number;
  /** Of them, bytes lost (QUIC: declared lost; TCP: retransmitted). */
  lostBytes: number;
  /**
   * The same counts as they stood every half second (loss-timeline.ts), seconds on the
   * series' clock, so a cut trace can recount them. Absent in traces kept before them.
   */
  checkpoints?: LossCheckpoint[];
}

/** [seconds, bytes sent before then, bytes lost before then]. */
export type LossCheckpoint = [number, number, number];

export type TransportProtocol = 'tcp' | 'udp';

/** A flow's identity: the server is the side that sends the bulk of the data. */
export interface FlowKey {
  protocol: TransportProtocol;
  clientIp: string;
  clientPort: number;
  serverIp: string;
  serverPort: number;
}
