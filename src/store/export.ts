/**
 * Flat rows of the whole store for downloads (CSV/JSON), streamed: a 20,000-site store has
 * millions of assets, which must never be held in memory at once. Rows come in insertion
 * order (a sequential table scan; a run's rows are inserted together).
 */
import type { Store } from './open.js';

export const RUN_COLUMNS = ['run_id', 'site', 'region', 'date', 'started_at', 'ended_at', 'status', 'incomplete_reason', 'scenario_name',
  'scenario_kind', 'scenario_file', 'start_url', 'mode', 'profiles', 'repeat_index', 'repeat_of', 'tool_version', 'browser_version', 'model'] as const;

export const FLOW_COLUMNS = ['run_id', 'site', 'region', 'date', 'profile', 'flow_id', 'protocol', 'transport', 'client_ip', 'client_port',
  'server_ip', 'server_port', 'server_name', 'bytes_down', 'bytes_up', 'packets_down', 'packets_up', 'start_ms', 'duration_ms', 'rtt_ms',
  'bif_method', 'retransmissions', 'label', 'kind', 'confidence', 'reason'] as const;

export const ASSET_COLUMNS = ['run_id', 'site', 'region', 'date', 'profile', 'har_index', 'url', 'host', 'asset_type', 'mime', 'bytes',
  'status', 'protocol', 'start_ms', 'end_ms', 'flow_id', 'label', 'confidence'] as const;

export type ExportValue = string | number | null;

export function iterateRuns(store: Store): IterableIterator<ExportValue[]> {
  return store.db.prepare(`SELECT ${RUN_COLUMNS.join(', ')} FROM runs ORDER BY site, region, date, run_id`).raw().iterate() as IterableIterator<ExportValue[]>;
}

export function iterateFlows(store: Store): IterableIterator<ExportValue[]> {
  return store.db
    .prepare(`SELECT r.run_id, r.site, r.region, r.date, f.profile, f.flow_id, f.protocol, f.transport, f.client_ip, f.client_port,
      f.server_ip, f.server_port, f.server_name, f.bytes_down, f.bytes_up, f.packets_down, f.packets_up, f.start_ms, f.duration_ms,
      f.rtt_ms, f.bif_method, f.retransmissions, v.label, v.kind, v.confidence, v.reason
      FROM flows f JOIN runs r ON r.run_pk = f.run_pk LEFT JOIN verdicts v ON v.flow_pk = f.flow_pk ORDER BY f.flow_pk`)
    .raw()
    .iterate() as IterableIterator<ExportValue[]>;
}

export function iterateAssets(store: Store): IterableIterator<ExportValue[]> {
  return store.db
    .prepare(`SELECT r.run_id, r.site, r.region, r.date, a.profile, a.har_index, a.url, a.host, a.asset_type, a.mime, a.bytes, a.status,
      a.protocol, a.start_ms, a.end_ms, f.flow_id, v.label, v.confidence
      FROM assets a JOIN runs r ON r.run_pk = a.run_pk LEFT JOIN flows f ON f.flow_pk = a.flow_pk
      LEFT JOIN verdicts v ON v.flow_pk = a.flow_pk ORDER BY a.asset_pk`)
    .raw()
    .iterate() as IterableIterator<ExportValue[]>;
}
