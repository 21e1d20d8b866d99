/**
 * QUIC bytes in flight without keys, Nebby's way (thesis section 6.2.2): every server datagram
 * is data, every client datagram an ACK, and each ACK acknowledges the same share of the data,
 * total server bytes / client datagrams. We count only client datagrams sent after the
 * server's first one (earlier ones, the client's Initial and requests, cannot acknowledge
 * data that was not sent yet), so the estimate returns to 0 when the transfer ends.
 *
 * With a TLS key log the exact method can replace this (`QuicBifMethod` 'keylog-exact', not
 * implemented yet). The plan, which fits snaplen-128 captures: match the connection to its key
 * log line by the ClientHello random (client Initial, decrypted with the DCID-derived Initial
 * keys); remove header protection (its 16-byte sample lies within the first ~50 bytes of a
 * short header) to read each server packet's number; decrypt the captured prefix of client
 * packets with AES-CTR at the GCM counter (no tag check, the tail is not captured) to read
 * their ACK frames; BiF = bytes of server packets neither acked nor in ACK ranges. Key updates
 * (key phase bit) need the next-generation secret; ChaCha20 suites need the raw chacha20 cipher.
 */
import { SampleFlag } from './tcp-bif.js';

export type QuicBifMethod = 'nebby-heuristic' | 'keylog-exact';

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
}

export function quicHeuristicBif(ev: QuicEvents): QuicBifResult {
  const n = ev.t.length;
  let serverBytes = 0;
  let serverPackets = 0;
  let ackPackets = 0;
  let maxDatagram = 0;
  let first = -1;
  for (let i = 0; i < n; i++) {
    if (ev.fromServer[i]) {
      if (first < 0) first = i;
      serverBytes += ev.bytes[i];
      serverPackets++;
      if (ev.bytes[i] > maxDatagram) maxDatagram = ev.bytes[i];
    } else if (first >= 0) ackPackets++;
  }
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
