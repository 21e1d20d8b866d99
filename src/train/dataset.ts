/**
 * The labelled BiF series a model was trained on, kept as compact JSON (build/train/) so the
 * model can be retrained without probing again.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { traceFile, type TraceResult } from '../trace/index.js';
import type { BifSeries, FlowConditions } from '../trace/types.js';
import { lossAt } from '../trace/loss-timeline.js';
import { samplesWithin, truncateSeries } from '../trace/truncate.js';
import { withKnownBottleneck } from '../trace/conditions.js';
import type { LabelledSeries } from '../classify/index.js';
import { PROBE_CLIENT_IP, bulkFlow } from '../validate/run-dir.js';
import { disturbanceSchema } from '../shaper/disturbance.js';
import type { ProbeOutcome } from './probes.js';

export const DATASET_SCHEMA_VERSION = 1;

const entrySchema = z.object({
  label: z.string(),
  origin: z.string(),
  protocol: z.enum(['tcp', 'quic']),
  profile: z.string(),
  region: z.string(),
  rep: z.number().int(),
  dir: z.string(),
  rttSeconds: z.number(),
  /** Seconds since the flow's first packet, rounded to 0.1 ms. */
  t: z.array(z.number()),
  bif: z.array(z.number()),
  appLimited: z.array(z.number().int()).optional(),
  /**
   * The sender's losses (the whole flow, or up to the last checkpoint before the 30 s cut), with half-second checkpoints so a cut
   * can recount them (absent in datasets traced before they were kept; checkpoints absent
   * in datasets of session 6).
   */
  loss: z.object({
    sentBytes: z.number().nonnegative(),
    lostBytes: z.number().nonnegative(),
    checkpoints: z.array(z.tuple([z.number(), z.number().nonnegative(), z.number().nonnegative()])).optional(),
  }).optional(),
  /**
   * The grid condition the trace was measured under (src/train/grid.ts EntryConditions); absent
   * in datasets from before the grid (the lab's base conditions then).
   */
  conditions: z.record(z.string(), z.unknown()).optional(),
  /** The conditions the trace itself shows (src/trace/conditions.ts FlowConditions). */
  flowConditions: z.record(z.string(), z.unknown()).optional(),
  /** How much the measuring host held the bottleneck back during the transfer (src/shaper/disturbance.ts). */
  disturbance: disturbanceSchema.optional(),
});
export type DatasetEntry = z.infer<typeof entrySchema>;
const datasetSchema = z.object({ schemaVersion: z.literal(DATASET_SCHEMA_VERSION), createdAt: z.string(), entries: z.array(entrySchema) });
export type Dataset = z.infer<typeof datasetSchema>;

/** Traces of at most this long: the benchmark's target is judged on <= 30 s traces. */
export const MAX_TRACE_SECONDS = 30;

// Moved to trace/ (the early-stop rule replays cuts too); kept here for existing callers.
export { truncateSeries };

export function toSeries(e: Pick<DatasetEntry, 't' | 'bif' | 'appLimited' | 'rttSeconds' | 'loss' | 'flowConditions'> & { protocol?: DatasetEntry['protocol'] }): BifSeries {
  return {
    ...(e.flowConditions ? { conditions: e.flowConditions as unknown as FlowConditions } : {}),
    t: Float64Array.from(e.t),
    bif: Float64Array.from(e.bif),
    ...(e.appLimited ? { appLimited: Uint8Array.from(e.appLimited) } : {}),
    ...(e.protocol ? { transport: e.protocol } : {}),
    rttSeconds: e.rttSeconds,
    ...(e.loss ? { loss: { ...e.loss } } : {}),
  };
}

/** A dataset entry cut to its first `maxSeconds` (shorter-trace studies), its losses recounted as truncateSeries does. */
export function truncateEntry(e: DatasetEntry, maxSeconds: number): DatasetEntry {
  const n = samplesWithin(e.t, maxSeconds);
  if (n === e.t.length) return e;
  const { loss: whole, ...rest } = e;
  const loss = whole ? lossAt(whole, maxSeconds, e.t[e.t.length - 1]) : null;
  return { ...rest, t: e.t.slice(0, n), bif: e.bif.slice(0, n), ...(e.appLimited ? { appLimited: e.appLimited.slice(0, n) } : {}), ...(loss ? { loss } : {}) };
}

/** Traces a probe run directory's capture as the dataset does (with its key log when kept). */
export async function traceProbeDir(dir: string): Promise<TraceResult> {
  // HTTP/3 probes keep Chromium's TLS key log: with it the QUIC BiF is exact, not Nebby's heuristic.
  const keylog = `${dir}/keylog.txt`;
  return traceFile(`${dir}/capture.pcap`, { clientIps: [PROBE_CLIENT_IP], ...(existsSync(keylog) ? { keylog } : {}) });
}

/**
 * Traces one probe into a dataset entry: a completed one, or one its time limit ended whose flow
 * lasted the whole trace length the dataset keeps (null otherwise, or when the capture holds no
 * usable flow). WHY the second: dropping them dropped the slowest paths' senders from the rounds
 * (session 57: 27 of 105 probes of round AC, at 0.3% loss 90 ms away and without SACK behind one
 * BDP, each with 90 s of capture), so a round's figures left out the flows hardest to read.
 */
export async function entryFromProbe(o: ProbeOutcome, opts: { timedOutMinSeconds?: number } = {}): Promise<DatasetEntry | null> {
  if (!o.result || (o.result.status !== 'complete' && !o.result.timedOut)) return null;
  const tr = await traceProbeDir(o.result.dir);
  const f = bulkFlow(tr.flows, o.target.protocol, { originIp: o.result.origin.ip, afterCrossTraffic: o.result.crossTraffic?.ip === o.result.origin.ip });
  if (!f?.series) return null;
  if (o.result.status !== 'complete' && f.series.t[f.series.t.length - 1] < (opts.timedOutMinSeconds ?? MAX_TRACE_SECONDS)) return null;
  const s = truncateSeries(f.series, MAX_TRACE_SECONDS);
  return {
    label: o.target.label, origin: o.target.origin, protocol: o.target.protocol, profile: o.profile.name, region: o.region, rep: o.rep,
    dir: o.result.dir, rttSeconds: s.rttSeconds,
    t: Array.from(s.t, (x) => Math.round(x * 1e4) / 1e4),
    bif: Array.from(s.bif, (x) => Math.round(x)),
    ...(s.appLimited ? { appLimited: Array.from(s.appLimited) } : {}),
    ...(s.loss ? { loss: { ...s.loss } } : {}),
    ...(o.result.disturbance ? { disturbance: o.result.disturbance } : {}),
    // The bottleneck the probe ran behind is known: its rate, not what the flow delivered, sets the BDP.
    ...(s.conditions ? { flowConditions: { ...withKnownBottleneck(s.conditions, o.profile.rateKbit) } } : {}),
  };
}

/**
 * The entry traced again from its run directory with the current trace code (loss account,
 * conditions), keeping what the measurement knew (label, conditions, disturbance). Null when
 * the directory or its flow is gone.
 */
export async function retraceEntry(e: DatasetEntry): Promise<DatasetEntry | null> {
  if (!existsSync(`${e.dir}/capture.pcap`) || !existsSync(`${e.dir}/probe.json`)) return null;
  const result = JSON.parse(readFileSync(`${e.dir}/probe.json`, 'utf8')) as ProbeOutcome['result'];
  const target = { origin: e.origin, protocol: e.protocol, stack: '', cca: '', label: e.label, host: '' };
  const fresh = await entryFromProbe({ target, region: e.region, profile: result!.profile, path: '', rep: e.rep, result });
  if (!fresh) return null;
  const { conditions, disturbance } = e;
  return { ...fresh, dir: e.dir, ...(conditions ? { conditions } : {}), ...(disturbance ?? fresh.disturbance ? { disturbance: disturbance ?? fresh.disturbance } : {}) };
}

export function labelledFrom<E extends DatasetEntry>(entries: E[], seriesOf: (e: E) => BifSeries = (e) => ({ ...toSeries(e), transport: e.protocol })): LabelledSeries[] {
  return entries.map((e) => ({ label: e.label, group: `${e.protocol}-${e.profile}`, series: seriesOf(e) }));
}

export function saveDataset(path: string, entries: DatasetEntry[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ schemaVersion: DATASET_SCHEMA_VERSION, createdAt: new Date().toISOString(), entries }));
}

/** A dataset file, plain or gzipped (`.json.gz`: the committed fixtures under tests/fixtures/lab-series). */
export function loadDataset(path: string): Dataset {
  const raw = readFileSync(path);
  return datasetSchema.parse(JSON.parse((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')));
}

/**
 * Several datasets as one (comma-separated paths, e.g. rounds of `lab train`). Repetition
 * numbers are shifted per origin and region so measurements of different files never merge.
 */
export function loadDatasets(paths: string): DatasetEntry[] {
  const next = new Map<string, number>();
  const out: DatasetEntry[] = [];
  for (const path of paths.split(',').map((p) => p.trim()).filter(Boolean)) {
    const entries = loadDataset(path).entries;
    const key = (e: DatasetEntry) => `${e.origin}\t${e.region}`;
    const top = new Map<string, number>();
    for (const e of entries) {
      const k = key(e);
      out.push({ ...e, rep: e.rep + (next.get(k) ?? 0) });
      top.set(k, Math.max(top.get(k) ?? 0, e.rep + 1));
    }
    for (const [k, n] of top) next.set(k, (next.get(k) ?? 0) + n);
  }
  return out;
}

/** Rebuilds dataset entries from probe run directories (e.g. after an interrupted `lab train`). */
export async function entriesFromRuns(root: string): Promise<DatasetEntry[]> {
  const { readdirSync, existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { labelFor } = await import('./labels.js');
  const out: DatasetEntry[] = [];
  const seen = new Map<string, number>();
  for (const d of readdirSync(root).sort()) {
    const dir = join(root, d);
    if (!existsSync(join(dir, 'probe.json')) || !existsSync(join(dir, 'capture.pcap'))) continue;
    const p = JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8'));
    if (p.status !== 'complete' && !p.timedOut) continue;
    const protocol = p.origin.serve === 'tcp' ? 'tcp' : 'quic';
    const k = `${p.origin.name}\t${p.profile.name}\t${p.region}`;
    const rep = seen.get(k) ?? 0;
    seen.set(k, rep + 1);
    const target = { origin: p.origin.name, protocol, stack: protocol === 'tcp' ? 'tcp' : p.origin.stack, cca: p.origin.cca, label: labelFor(protocol, p.origin.cca), host: '' } as const;
    const e = await entryFromProbe({ target, region: p.region, profile: p.profile, path: '', rep, result: p });
    if (e) out.push({ ...e, dir });
  }
  return out;
}
