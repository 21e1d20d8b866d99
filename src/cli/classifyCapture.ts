/**
 * `ccbrowse classify`: trace any capture, or a probe run directory, and classify every flow.
 * A run directory brings what the probe recorded: its client address, the profile it ran
 * behind (the bottleneck to replay for QUIC without keys) and Chromium's TLS key log (exact
 * QUIC bytes in flight and loss counts).
 */
import { classifyFlow, fuseProfiles, loadModel, type Model } from '../classify/index.js';
import { withKnownBottleneck } from '../trace/conditions.js';
import type { FlowConditions } from '../trace/types.js';
import { traceFile } from '../trace/index.js';
import { lossShareOf } from '../trace/loss-timeline.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { captureInputs } from './capture-inputs.js';

export interface ClassifyCaptureOptions {
  model: string;
  /** The model already loaded from `model` (a batch loads it once per worker). */
  loadedModel?: Model;
  keylog?: string;
  clientIps?: string[];
  /** From an explicit --profile (wins over the run directory's record). */
  bottleneck?: BottleneckModel;
  /** --profile was given: keep `bottleneck` even when a run directory records its own. */
  explicitProfile?: boolean;
}

export interface ClassifiedFlowRow {
  flow: string;
  tuple: string;
  protocol: string;
  bifMethod: string;
  bytes: number;
  durationSeconds: number;
  /** Share of the bytes the server sent that were lost (null when the trace could not count). */
  lossShare: number | null;
  verdict: string;
  /** Calibrated: how often verdicts like it were right on conditions the model never trained on. */
  confidence: number;
  reason: string;
  /** What the capture shows of its own conditions (SACK, segment size, RTTs, visible share, rate, reordering, loss). */
  conditions: FlowConditions | null;
  /** Whether those conditions lie among the model's training conditions (null: not measured). */
  insideTrained: boolean | null;
  /** False when the flow gave no bytes-in-flight series (its verdict is then Unknown by default). */
  read: boolean;
}

export { captureInputs } from './capture-inputs.js';

export async function classifyCapture(path: string, o: ClassifyCaptureOptions): Promise<{ file: string; keylog: string | null; flows: ClassifiedFlowRow[] }> {
  const inputs = captureInputs(path, o);
  const model = o.loadedModel ?? loadModel(o.model);
  const r = await traceFile(inputs.pcap, { keylog: inputs.keylog, clientIps: inputs.clientIps, bottleneck: inputs.bottleneck });
  const flows = r.flows.map((f): ClassifiedFlowRow => {
    // A known bottleneck (a probe's profile, --profile) sets the BDP; a foreign capture's is read from its ACKs.
    const series = f.series && f.series.conditions && inputs.rateKbit ? { ...f.series, conditions: withKnownBottleneck(f.series.conditions, inputs.rateKbit) } : f.series;
    const raw = series ? classifyFlow(series, model, { disturbance: inputs.disturbance ?? null }) : null;
    // One flow's verdict, calibrated like every single-profile verdict (below the model's minimum
    // answer it becomes Unknown, with what it would have said).
    const cal = raw ? fuseProfiles([raw], { calibration: model.calibration }) : null;
    const v = raw && cal ? { ...raw, confidence: cal.confidence, ...(cal.label !== raw.label ? { label: cal.label, reason: cal.reason } : {}) } : null;
    return {
      flow: f.id, tuple: f.tuple, protocol: f.kind, bifMethod: f.bifMethod, bytes: f.toClient.payloadBytes, durationSeconds: f.durationSeconds,
      lossShare: lossShareOf(f.series?.loss),
      verdict: v?.label ?? 'Unknown', confidence: v?.confidence ?? 0, reason: v?.reason ?? 'no bytes-in-flight series (plain UDP)', read: v !== null,
      conditions: series?.conditions ?? null, insideTrained: v?.conditions && series?.conditions ? v.conditions.inside : null,
    };
  });
  return { file: inputs.pcap, keylog: inputs.keylog ?? null, flows };
}

/** One line a person can read: the conditions a flow was captured under. */
export function describeConditions(c: FlowConditions | null, inside: boolean | null): string {
  if (!c) return 'conditions: not measured';
  const ms = (x: number | null) => (x === null ? '?' : `${(x * 1000).toFixed(0)} ms`);
  const pc = (x: number | null) => (x === null ? '?' : `${(100 * x).toFixed(1)}%`);
  const parts = [
    `${c.transport.toUpperCase()}${c.transport === 'tcp' ? `, SACK ${c.sack === null ? '?' : c.sack ? 'on' : 'off'}` : ''}, segments ${c.segmentBytes} B`,
    `RTT ${ms(c.minRttSeconds)} on the client's side of the capture point, ${ms(c.serverSideRttSeconds)} on the server's (sees ${pc(c.visibleShare)} of the round trip)`,
    `delivers ${c.deliveryKbit ?? '?'} kbit/s (BDP ${c.bdpPackets ?? '?'} segments)`,
  ];
  if (c.transport === 'tcp') parts.push(`reordered ${pc(c.reorderShare)}, lost before the capture point ${pc(c.upstreamLossShare)}, needless resends ${pc(c.needlessResendShare)}`);
  else if (c.reorderShare !== null) parts.push(`reordered ${pc(c.reorderShare)}`); // QUIC: its packet numbers, read with the key log
  return `conditions: ${parts.join('; ')}${inside === null ? '' : inside ? ' - inside the trained conditions' : ' - OUTSIDE the trained conditions'}`;
}
