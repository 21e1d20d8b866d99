/**
 * Output formats for `ccbrowse trace`: CSV of the series (one row per sample, for
 * spreadsheets and plotting), CSV of the flow table, and JSON with a schema version.
 */
import type { FlowResult, TraceResult } from './trace.js';

/** Trims float noise without losing microseconds or bytes. */
function num(x: number, digits: number): string {
  if (!Number.isFinite(x)) return '';
  return Number.isInteger(x) ? String(x) : String(Number(x.toFixed(digits)));
}

/** One row per BiF sample of every flow that has a series. */
export function toCsv(result: TraceResult): string {
  const lines = ['flow_id,t_s,bif_bytes,app_limited,flags'];
  for (const f of result.flows) {
    const s = f.series;
    if (!s) continue;
    for (let i = 0; i < s.t.length; i++) {
      lines.push(`${f.id},${num(s.t[i], 9)},${num(s.bif[i], 3)},${s.appLimited?.[i] ?? 0},${f.sampleFlags?.[i] ?? 0}`);
    }
  }
  return lines.join('\n') + '\n';
}

const FLOW_COLUMNS = [
  'id', 'kind', 'tuple', 'client_by', 'start_s', 'duration_s', 'handshake', 'bif_method', 'samples',
  'rtt_method', 'rtt_median_s', 'to_server_packets', 'to_server_bytes', 'to_client_packets', 'to_client_bytes',
  'retransmissions', 'spurious_retransmissions', 'loss_episodes', 'dup_acks', 'app_limited_samples', 'paths',
] as const;

function flowRow(f: FlowResult): string {
  const cells = [
    f.id, f.kind, f.tuple, f.clientBy, num(f.startSeconds, 6), num(f.durationSeconds, 6), f.handshake ? 1 : 0,
    f.bifMethod, f.series?.t.length ?? 0, f.rtt.method, num(f.rtt.medianSeconds, 6), f.toServer.packets,
    f.toServer.payloadBytes, f.toClient.packets, f.toClient.payloadBytes, f.tcp?.server.retransmittedPackets ?? '',
    f.tcp?.server.spuriousRetransmissions ?? '', f.tcp?.server.lossEpisodes.length ?? '', f.tcp?.server.dupAcks ?? '',
    f.appLimitedSamples, f.paths.join(' '),
  ];
  return cells.map((c) => (typeof c === 'string' && /[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : String(c))).join(',');
}

/** One row per flow: the summary table. */
export function toFlowsCsv(result: TraceResult): string {
  return [FLOW_COLUMNS.join(','), ...result.flows.map(flowRow)].join('\n') + '\n';
}

/** JSON: typed arrays become arrays, NaN becomes null; `series: false` leaves the samples out. */
export function toJson(result: TraceResult, opts: { series?: boolean; indent?: number } = {}): string {
  const withSeries = opts.series ?? true;
  return JSON.stringify(
    result,
    (key, value: unknown) => {
      if (!withSeries && (key === 'series' || key === 'sampleFlags')) return undefined;
      if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>);
      if (typeof value === 'number' && !Number.isFinite(value)) return null;
      return value;
    },
    opts.indent,
  );
}
