/**
 * Exact QUIC bytes in flight from a capture and a TLS key log: describe the connection (long
 * headers), find its secrets (ClientHello random, or trial decryption), decrypt every packet
 * the capture holds enough of, and replay the server's RFC 9002 recovery. Any reason it cannot
 * comes back as a string, for the caller to fall back to the heuristic and say why.
 */
import { describeConnection, type QuicDatagram } from './connection.js';
import { decodePackets, type DecodeStats } from './decoder.js';
import type { KeyLog } from './keylog.js';
import { matchKeys } from './match.js';
import { replaySender, type RecoveryOptions, type SenderSeries } from './recovery.js';
import { serverSideRttFromAcks } from './server-rtt.js';

export type { QuicDatagram } from './connection.js';
export type { KeyLog, TlsSecrets } from './keylog.js';
export { parseKeyLog, readKeyLog } from './keylog.js';
export type { RecoveryOptions, RecoveryEvent, SenderSeries, RecoveryStats } from './recovery.js';

export interface QuicExact {
  series: SenderSeries;
  version: number;
  suite: string;
  matchedBy: 'client-hello' | 'trial-decryption';
  clientRandom: string;
  decode: DecodeStats;
  /** Server packets whose number had to be guessed (header past the snaplen). */
  guessedServerPackets: number;
  /** Client packets that could not be opened (their ACKs are missing from the replay). */
  unreadableClientPackets: number;
  /** The round trip beyond the capture point, from the server's ACK frames (server-rtt.ts); null without a sample. */
  serverSideRttSeconds: number | null;
}

/** Share of server 1-RTT packets that must open for the replay to be trusted. */
const MIN_SERVER_OPENED = 0.9;

export function quicExactBif(dgrams: QuicDatagram[], keylog: KeyLog, opts: RecoveryOptions = {}): QuicExact | string {
  try {
    const view = describeConnection(dgrams);
    if (typeof view === 'string') return view;
    const m = matchKeys(dgrams, view, keylog);
    if (typeof m === 'string') return m;
    const { packets, stats } = decodePackets(dgrams, view, m.keys);
    const server1Rtt = packets.filter((p) => p.fromServer && p.type === 'short');
    const opened = server1Rtt.filter((p) => p.frames !== undefined).length;
    if (server1Rtt.length > 0 && opened < MIN_SERVER_OPENED * server1Rtt.length) {
      return `decryption failed for ${server1Rtt.length - opened} of ${server1Rtt.length} server 1-RTT packets`;
    }
    const series = replaySender(packets, opts);
    return {
      series,
      version: view.version,
      suite: m.suite.name,
      matchedBy: m.by,
      clientRandom: m.clientRandom,
      decode: stats,
      guessedServerPackets: packets.filter((p) => p.fromServer && p.guessed).length,
      unreadableClientPackets: packets.filter((p) => !p.fromServer && !p.frames).length,
      serverSideRttSeconds: serverSideRttFromAcks(packets),
    };
  } catch (err) {
    // A bug, not the input's fault; still never take the whole trace down with it.
    return `exact decoding failed: ${(err as Error).message}`;
  }
}
