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
