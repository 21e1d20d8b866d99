/**
 * One capture's analysis for `classify` and `trace`, already formatted as the command prints
 * it: the same function runs in the command's own process (one capture) and in each worker
 * thread of a batch (analysis-worker.ts), so a batch prints exactly what one-at-a-time would.
 * Everything in a job is plain data (it crosses a thread boundary).
 */
import type { Model } from '../classify/index.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import type { ClassifiedFlowRow } from './classifyCapture.js';

/** classify: `table` (a person), `json` (one document), `jsonl` (a line per flow), `csv` (a row per flow). */
export type ClassifyFormat = 'table' | 'json' | 'jsonl' | 'csv';
/** trace: `flows` (the flow table as CSV), `series` (--csv: the BiF samples), `json`, `jsonl` (a line per flow, no samples). */
export type TraceFormat = 'flows' | 'series' | 'json' | 'jsonl';

export interface ClassifyJob {
  command: 'classify';
  input: string;
  format: ClassifyFormat;
  model: string;
  keylog?: string;
  clientIps?: string[];
  bottleneck?: BottleneckModel;
  explicitProfile?: boolean;
  /** Several inputs: each table starts with the input's name; CSV rows carry it anyway. */
  many: boolean;
}

export interface TraceJob {
  command: 'trace';
  input: string;
  format: TraceFormat;
  keylog?: string;
  flowId?: string;
  clientIps?: string[];
  bottleneck?: BottleneckModel;
  many: boolean;
}

export type AnalysisJob = ClassifyJob | TraceJob;

export interface AnalysisReply {
  /** What stdout gets for this input (JSON formats: the document or lines). */
  text: string;
  flows: number;
  /** Flows without a bytes-in-flight series (classify: Unknown by default; exit 1). */
  unread: string[];
  /** For stderr (the trace's own warnings). */
  warnings: string[];
}

const models = new Map<string, Model>();

/** A model is parsed and checked once per thread, not once per capture. */
async function modelFor(path: string): Promise<Model> {
  let m = models.get(path);
  if (!m) {
    const { loadModel } = await import('../classify/index.js');
    m = loadModel(path);
    models.set(path, m);
  }
  return m;
}

export const CLASSIFY_CSV_COLUMNS = [
  'input', 'file', 'flow', 'tuple', 'protocol', 'bif_method', 'bytes', 'duration_s', 'loss_share', 'verdict', 'confidence', 'read',
  'inside_trained', 'transport', 'sack', 'segment_bytes', 'rtt_s', 'min_rtt_s', 'server_side_rtt_s', 'client_side_rtt_s', 'visible_share',
  'delivery_kbit', 'bdp_packets', 'reorder_share', 'upstream_loss_share', 'needless_resend_share', 'reason',
] as const;

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(Number.isInteger(v) ? v : Number(v.toFixed(6))) : '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function classifyCsvRow(input: string, file: string, x: ClassifiedFlowRow): string {
  const c = x.conditions;
  return [
    input, file, x.flow, x.tuple, x.protocol, x.bifMethod, x.bytes, x.durationSeconds, x.lossShare, x.verdict, x.confidence, x.read ? 1 : 0,
    x.insideTrained === null ? '' : x.insideTrained ? 1 : 0, c?.transport, c?.sack === null || c?.sack === undefined ? '' : c.sack ? 1 : 0,
    c?.segmentBytes, c?.rttSeconds, c?.minRttSeconds, c?.serverSideRttSeconds, c?.clientSideRttSeconds, c?.visibleShare,
    c?.deliveryKbit, c?.bdpPackets, c?.reorderShare, c?.upstreamLossShare, c?.needlessResendShare, x.reason,
  ].map(csvCell).join(',');
}

/** The table `classify` has always printed for one capture: verdict, calibrated confidence, reason, conditions. */
export function classifyTable(flows: ClassifiedFlowRow[], describe: (x: ClassifiedFlowRow) => string): string {
  const lines = [`${'flow'.padEnd(8)} ${'proto'.padEnd(5)} ${'bytes'.padStart(9)} ${'dur s'.padStart(6)}  ${'verdict'.padEnd(20)} conf  reason`];
  for (const x of flows) {
    lines.push(`${x.flow.padEnd(8)} ${x.protocol.padEnd(5)} ${String(x.bytes).padStart(9)} ${x.durationSeconds.toFixed(1).padStart(6)}  ${x.verdict.padEnd(20)} ${x.confidence.toFixed(2)}  ${x.reason}`);
    if (x.conditions) lines.push(`         ${describe(x)}`);
  }
  return lines.join('\n') + '\n';
}

async function classifyOne(job: ClassifyJob): Promise<AnalysisReply> {
  const { classifyCapture, describeConditions } = await import('./classifyCapture.js');
  const r = await classifyCapture(job.input, {
    model: job.model, loadedModel: await modelFor(job.model), keylog: job.keylog, clientIps: job.clientIps,
    bottleneck: job.bottleneck, explicitProfile: job.explicitProfile,
  });
  const unread = r.flows.filter((x) => !x.read).map((x) => x.flow);
  let text: string;
  switch (job.format) {
    case 'json': text = JSON.stringify({ ...(job.many ? { input: job.input } : {}), file: r.file, keylog: r.keylog, model: job.model, flows: r.flows }, null, 2); break;
    case 'jsonl': text = r.flows.map((x) => JSON.stringify({ input: job.input, file: r.file, ...x })).join('\n') + (r.flows.length ? '\n' : ''); break;
    case 'csv': text = r.flows.map((x) => classifyCsvRow(job.input, r.file, x)).join('\n') + (r.flows.length ? '\n' : ''); break;
    default: text = (job.many ? `== ${job.input}\n` : '') + classifyTable(r.flows, (x) => describeConditions(x.conditions, x.insideTrained));
  }
  return { text, flows: r.flows.length, unread, warnings: [] };
}

/** A trace's JSON line per flow: no samples (the series is what --csv is for), no NaN. */
function flowLineValue(key: string, value: unknown): unknown {
  if (key === 'series' || key === 'sampleFlags') return undefined;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>);
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

async function traceOne(job: TraceJob): Promise<AnalysisReply> {
  const { traceFile, toCsv, toFlowsCsv, toJson } = await import('../trace/index.js');
  const { captureInputs } = await import('./capture-inputs.js');
  // A run directory brings its capture, key log, client and bottleneck, as for classify.
  const inputs = captureInputs(job.input, { model: '', keylog: job.keylog, clientIps: job.clientIps, bottleneck: job.bottleneck, explicitProfile: job.bottleneck !== undefined });
  const r = await traceFile(inputs.pcap, { keylog: inputs.keylog, flowId: job.flowId, clientIps: inputs.clientIps, bottleneck: inputs.bottleneck });
  const prefix = (csv: string, header: boolean) => {
    const lines = csv.trimEnd().split('\n');
    const body = lines.slice(1).map((l) => `${csvCell(job.input)},${l}`);
    return (header ? [`input,${lines[0]}`, ...body] : body).join('\n') + (body.length || header ? '\n' : '');
  };
  let text: string;
  switch (job.format) {
    case 'json': text = toJson(r); break;
    case 'jsonl': text = r.flows.map((f) => JSON.stringify({ input: job.input, file: r.file, ...f }, flowLineValue)).join('\n') + (r.flows.length ? '\n' : ''); break;
    case 'series': text = job.many ? prefix(toCsv(r), false) : toCsv(r); break;
    default: text = job.many ? prefix(toFlowsCsv(r), false) : toFlowsCsv(r);
  }
  return { text, flows: r.flows.length, unread: [], warnings: r.warnings };
}

export function analyse(job: AnalysisJob): Promise<AnalysisReply> {
  return job.command === 'classify' ? classifyOne(job) : traceOne(job);
}

/** The header line a batch's CSV starts with (once, before the first input's rows). */
export async function csvHeader(job: AnalysisJob): Promise<string> {
  if (job.command === 'classify') return CLASSIFY_CSV_COLUMNS.join(',') + '\n';
  const { toCsv, toFlowsCsv } = await import('../trace/format.js');
  const empty = { flows: [] } as unknown as Parameters<typeof toCsv>[0];
  return `input,${(job.format === 'series' ? toCsv(empty) : toFlowsCsv(empty)).trim()}\n`;
}
