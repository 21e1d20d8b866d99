/**
 * QUIC bytes in flight, two ways.
 *
 * Without keys, Nebby's way (thesis section 6.2.2): every server datagram is data, every client
 * datagram an ACK, and each ACK acknowledges the same share of the data, total server bytes /
 * client datagrams. We count only client datagrams sent after the server's first one (earlier
 * ones, the client's Initial and requests, cannot acknowledge data that was not sent yet), so
 * the estimate returns to 0 when the transfer ends.
 *
 * With the bottleneck's parameters ('bottleneck-model', quic-model.ts): replay the queue to know
 * which datagrams reached the client before each of its ACKs, then the server's RFC 9002
 * accounting as below.
 *
 * With a TLS key log ('keylog-exact', src/trace/quic/): decrypt the connection and replay the
 * server's own RFC 9002 accounting (ACK ranges, packet/time-threshold loss, key discards). It
 * fits snaplen-128 captures: header protection samples lie in the first ~40 bytes, client ACK
 * packets are small enough to be captured whole, and server payload prefixes are decrypted
 * without the tag to tell data from ACK-only packets.
 */
import { quicExactBif, type KeyLog, type QuicDatagram, type QuicExact, type RecoveryOptions, type SenderSeries } from './quic/index.js';
import { quicModelBif, type BottleneckModel } from './quic-model.js';
import { SampleFlag } from './tcp-bif.js';

export type QuicBifMethod = 'nebby-heuristic' | 'bottleneck-model' | 'keylog-exact';

export interface QuicEvents {
  /** Seconds, ascending. */
  t: Float64Array;
  /** 1 for a server datagram, 0 for a client one. */
  fromServer: Uint8Array;
  /** UDP payload bytes. */
  bytes: Uint32Array;
}

export interface QuicBifResult {
  t: Float64Array;
  bif: Float64Array;
  flags: Uint8Array;
  method: QuicBifMethod;
  /** Bytes each client datagram is assumed to acknowledge. */
  bytesPerAck: number;
  serverBytes: number;
  serverPackets: number;
  clientPackets: number;
  /** Client datagrams counted as ACKs (those after the server's first datagram). */
  ackPackets: number;
  /** Largest server datagram: the segment size the app-limited pass uses. */
  maxDatagram: number;
  /** The replay behind a 'keylog-exact' result. */
  exact?: QuicExact;
  /** The RFC 9002 sender replay behind a 'keylog-exact' or 'bottleneck-model' result. */
  replay?: SenderSeries;
  /** 'bottleneck-model': server datagrams the model says the bottleneck queue dropped. */
  droppedInQueue?: number;
}

/**
 * Exact BiF of one connection from its datagrams and the key log, in the heuristic's shape
 * (samples at each server packet and each client ACK frame, SampleFlag.dataSend on sends,
 * SampleFlag.recovery in recovery periods); the reason as a string when it cannot.
 */
export function quicKeylogBif(dgrams: QuicDatagram[], keylog: KeyLog, opts: RecoveryOptions = {}): QuicBifResult | string {
  const x = quicExactBif(dgrams, keylog, opts);
  if (typeof x === 'string') return x;
  let serverBytes = 0;
  let serverPackets = 0;
  let maxDatagram = 0;
  for (const d of dgrams) {
    if (!d.fromServer) continue;
    serverBytes += d.wireLen;
    serverPackets++;
    if (d.wireLen > maxDatagram) maxDatagram = d.wireLen;
  }
  // RecoveryFlag uses SampleFlag's bit values, so the flags pass through unchanged.
  const flags = x.series.flags;
  return {
    t: x.series.t,
    bif: x.series.bif,
    flags,
    method: 'keylog-exact',
    bytesPerAck: 0,
    serverBytes,
    serverPackets,
    clientPackets: dgrams.length - serverPackets,
    ackPackets: x.series.stats.ackFrames,
    maxDatagram,
    exact: x,
    replay: x.series,
  };
}

/** BiF from the bottleneck model (quic-model.ts), in the heuristic's shape. */
export function quicBottleneckBif(ev: QuicEvents, b: BottleneckModel, ipVersion: 4 | 6, opts: RecoveryOptions = {}): QuicBifResult {
  const m = quicModelBif(ev, b, ipVersion, opts);
  const { serverBytes, maxDatagram } = serverTotals(ev);
  return {
    t: m.series.t,
    bif: m.series.bif,
    flags: m.series.flags,
    method: 'bottleneck-model',
    bytesPerAck: 0,
    serverBytes,
    serverPackets: m.serverPackets,
    clientPackets: m.clientPackets,
    ackPackets: m.series.stats.ackFrames,
    maxDatagram,
    replay: m.series,
    droppedInQueue: m.droppedInQueue,
  };
}

/** Bytes and datagrams the server sent, and its largest datagram. */
function serverTotals(ev: QuicEvents): { serverBytes: number; serverPackets: number; maxDatagram: number } {
  let serverBytes = 0;
  let serverPackets = 0;
  let maxDatagram = 0;
  for (let i = 0; i < ev.t.length; i++) {
    if (!ev.fromServer[i]) continue;
    serverBytes += ev.bytes[i];
    serverPackets++;
    if (ev.bytes[i] > maxDatagram) maxDatagram = ev.bytes[i];
  }
  return { serverBytes, serverPackets, maxDatagram };
}

export function quicHeuristicBif(ev: QuicEvents): QuicBifResult {
  const n = ev.t.length;
  const { serverBytes, serverPackets, maxDatagram } = serverTotals(ev);
  const first = ev.fromServer.indexOf(1);
  // Client datagrams after the server's first one: the ACKs.
  const ackPackets = first < 0 ? 0 : n - first - (serverPackets);
  const bytesPerAck = ackPackets > 0 ? serverBytes / ackPackets : 0;
  const count = first < 0 ? 0 : n - first;
  const t = new Float64Array(count);
  const bif = new Float64Array(count);
  const flags = new Uint8Array(count);
  let sent = 0;
  let acked = 0;
  for (let i = Math.max(first, 0), k = 0; k < count; i++, k++) {
    if (ev.fromServer[i]) {
      sent += ev.bytes[i];
      flags[k] = SampleFlag.dataSend;
    } else {
      acked += bytesPerAck;
    }
    t[k] = ev.t[i];
    const x = sent - acked;
    bif[k] = x > 1e-6 ? x : 0; // float dust at the end of the transfer
  }
  return {
    t,
    bif,
    flags,
    method: 'nebby-heuristic',
    bytesPerAck,
    serverBytes,
    serverPackets,
    clientPackets: n - serverPackets,
    ackPackets,
    maxDatagram,
  };
}
