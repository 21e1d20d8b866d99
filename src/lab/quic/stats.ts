/**
 * The ground-truth lines every HTTP/3 lab origin writes (one JSON object per connection per
 * sampling tick). Fields a stack cannot observe are null, never guessed.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const n = z.number().nullable();
export const QuicStatsLineSchema = z.object({
  /** Unix time of the sample, seconds. */
  t: z.number(),
  stack: z.enum(['quinn', 'aioquic', 'quiche']),
  /** Per-process connection number (1, 2, ...). */
  conn: z.number().int(),
  /** Peer "ip:port" as last seen (follows QUIC migration). */
  remote: z.string(),
  local: z.string(),
  /** The configured controller: the label the classifier is judged against. */
  cc: z.string(),
  /** Congestion window, bytes. */
  cwnd: z.number(),
  /** Bytes in flight: exact (aioquic, quiche) or estimated (quinn, see docs/lab-quic.md). */
  bytes_in_flight: n,
  /** quinn only: exact bytes in flight right after the latest ACK batch. */
  bytes_in_flight_at_ack: n.optional(),
  ssthresh: n.optional(),
  pacing_rate_bps: n.optional(),
  /** quiche only: delivery-rate estimate and (bbr2) max-bandwidth estimate, bits/s. */
  delivery_rate_bps: n.optional(),
  max_bandwidth_bps: n.optional(),
  rtt_ms: z.number(),
  min_rtt_ms: n,
  sent_packets: z.number(),
  lost_packets: z.number(),
  lost_bytes: n.optional(),
  congestion_events: n.optional(),
  mtu: n.optional(),
  udp_tx_bytes: n.optional(),
  udp_tx_datagrams: n.optional(),
  udp_rx_bytes: n.optional(),
  /** True on the one last line written after the connection closed. */
  closed: z.boolean(),
});
export type QuicStatsLine = z.infer<typeof QuicStatsLineSchema>;

/** Parses a stats file's text; a torn last line (origin killed mid-write) is dropped. */
export function parseQuicStats(text: string): QuicStatsLine[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const out: QuicStatsLine[] = [];
  lines.forEach((line, i) => {
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      if (i === lines.length - 1) return;
      throw new Error(`stats line ${i + 1} is not JSON: ${(err as Error).message}`);
    }
    out.push(QuicStatsLineSchema.parse(obj));
  });
  return out;
}

export async function readQuicStats(file: string): Promise<QuicStatsLine[]> {
  return parseQuicStats(await readFile(file, 'utf8'));
}
