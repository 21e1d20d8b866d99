import type { FlowConditions } from './types.js';
/**
 * What the trace step returns: per-flow results around the BifSeries contract (types.ts),
 * plus the richer statistics the report and debugging use.
 */
import type { CaptureInfo } from './pcap.js';
import type { QuicBifMethod } from './quic-bif.js';
import type { BottleneckModel } from './quic-model.js';
import type { RttMethod, TcpSenderStats } from './tcp-bif.js';
import type { BifSeries, FlowKey } from './types.js';

export interface TraceOptions {
  /** Addresses of the client side (the browser); otherwise inferred per flow. */
  clientIps?: string[];
  /** Keep only this flow: an id (`tcp-0`, `quic-1`, `udp-2`) or a tuple string. */
  flowId?: string;
  /**
   * TLS key log (SSLKEYLOGFILE / --ssl-key-log-file) for exact QUIC BiF: connections whose
   * secrets it holds are decrypted and the server's loss recovery replayed (src/trace/quic/);
   * the others keep Nebby's heuristic, with the reason in `quic.fallbackReason`.
   */
  keylog?: string;
  /**
   * Round trip between the QUIC server and the capture point, seconds, when known (the lab's
   * region RTT): exact BiF then ages packets as the server does. Default 0 (capture next to the server).
   */
  quicSenderPathRttSeconds?: number;
  /**
   * The bottleneck between the capture point and the client (ccbrowse's own network profile):
   * QUIC connections without keys then get 'bottleneck-model' BiF (src/trace/quic-model.ts)
   * instead of Nebby's heuristic.
   */
  bottleneck?: BottleneckModel;
  /** Idle gap, in RTTs, that marks the sender application-limited (default 1). */
  idleRtts?: number;
}

export type FlowKind = 'tcp' | 'quic' | 'udp';
/** How the client side was decided. */
export type ClientInference = 'client-ips' | 'syn' | 'quic-initial' | 'quic-cid' | 'well-known-port' | 'fewer-bytes' | 'first-sender';
export type BifMethod = 'tcp-seq-ack' | `quic-${QuicBifMethod}` | 'none';
export type FlowRttMethod = RttMethod | 'quic-handshake' | 'quic-ack';

/** How an exact (key log) QUIC replay went. */
export interface QuicExactSummary {
  version: string;
  suite: string;
  /** How the key log entry was found: the ClientHello random, or trial decryption (random cut off by the snaplen). */
  matchedBy: 'client-hello' | 'trial-decryption';
  packets: number;
  /** Packets decrypted (some only as a snaplen-cut prefix) / of them authenticated (whole packet captured). */
  opened: number;
  verified: number;
  /** Server packets whose header lay past the snaplen (coalesced): number guessed, size known. */
  guessedServerPackets: number;
  unreadableClientPackets: number;
  /** Key updates seen (key phase flips), per direction. */
  keyUpdates: { client: number; server: number };
  lostPackets: number;
  lostBytes: number;
  lostByPacketThreshold: number;
  lostByTime: number;
  smoothedRttSeconds: number;
  /**
   * BiF right after each ACK frame's newly acknowledged packets left, before loss detection:
   * what quinn hands its controller (`bytes_in_flight_at_ack`). Seconds since the flow's start.
   */
  atAck: { t: Float64Array; bif: Float64Array };
}

export interface DirectionCounts {
  packets: number;
  payloadBytes: number;
  ipBytes: number;
}

export interface FlowResult {
  /** Stable id by first appearance within its kind: tcp-0, tcp-1, quic-0, udp-0. */
  id: string;
  /** "tcp:10.0.0.1:40000-10.0.0.2:443": protocol, client endpoint, server endpoint. */
  tuple: string;
  kind: FlowKind;
  key: FlowKey;
  /** Every 5-tuple of the flow (several for a QUIC connection that migrated). */
  paths: string[];
  clientBy: ClientInference;
  /** Seconds since the capture's first packet. */
  startSeconds: number;
  durationSeconds: number;
  toServer: DirectionCounts;
  toClient: DirectionCounts;
  /** TCP: SYN, SYN-ACK and ACK seen. QUIC: Initial/Handshake packets seen. */
  handshake: boolean;
  /**
   * Round trips on either side of the capture point, from the opening exchange (null when the
   * capture did not see the client open the connection): `server` from the client's first packet
   * to the server's reply, `client` from that reply to the client's next packet.
   */
  openingRtt?: { serverSeconds: number; clientSeconds: number } | null;
  /** The conditions the flow was captured under, as far as the capture tells (TCP and QUIC flows). */
  conditions?: FlowConditions;
  bifMethod: BifMethod;
  /** Server-side bytes in flight; null for plain UDP. */
  series: BifSeries | null;
  /** SampleFlag bits per sample, parallel to series.t. */
  sampleFlags: Uint8Array | null;
  rtt: { method: FlowRttMethod; samples: number; medianSeconds: number; minSeconds: number };
  appLimitedSamples: number;
  tcp?: {
    server: TcpSenderStats;
    clientDataBytes: number;
    resets: number;
  };
  quic?: {
    versions: string[];
    /** How each path (same order as `paths`) joined the connection. */
    joinedBy: Array<'handshake' | 'cid' | 'timing' | 'none'>;
    bytesPerAck: number;
    serverPackets: number;
    clientPackets: number;
    ackPackets: number;
    /** Why this connection did not get a better method than the one used (key log failed, model not applicable). */
    fallbackReason?: string;
    /** Present when bifMethod is 'quic-keylog-exact'. */
    exact?: QuicExactSummary;
    /** 'quic-bottleneck-model': server datagrams the model says the bottleneck queue dropped. */
    droppedInQueue?: number;
    /** 'quic-bottleneck-model': BiF right after each synthetic ACK (as QuicExactSummary.atAck). */
    modelAtAck?: { t: Float64Array; bif: Float64Array };
  };
}

export interface TraceResult {
  schemaVersion: 1;
  file: string;
  format: CaptureInfo['format'];
  linkTypes: number[];
  packets: number;
  counts: { tcp: number; udp: number; otherIp: number; notIp: number; malformed: number; fragments: number };
  /** Epoch seconds of the first packet. */
  captureStart: number;
  durationSeconds: number;
  warnings: string[];
  flows: FlowResult[];
}
