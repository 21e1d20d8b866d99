/**
 * `ccbrowse classify`: trace any capture, or a probe run directory, and classify every flow.
 * A run directory brings what the probe recorded: its client address, the profile it ran
 * behind (the bottleneck to replay for QUIC without keys) and Chromium's TLS key log (exact
 * QUIC bytes in flight and loss counts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { classifyFlow, loadModel } from '../classify/index.js';
import { bottleneckModelOf } from '../shaper/shaper.js';
import type { Profile } from '../shaper/profile.js';
import { traceFile } from '../trace/index.js';
import { lossShareOf } from '../trace/loss-timeline.js';
import type { BottleneckModel } from '../trace/quic-model.js';

export interface ClassifyCaptureOptions {
  model: string;
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
  confidence: number;
  reason: string;
  /** False when the flow gave no bytes-in-flight series (its verdict is then Unknown by default). */
  read: boolean;
}

/** The capture, key log, client and bottleneck a path stands for (a file, or a probe run directory). */
export function captureInputs(path: string, o: ClassifyCaptureOptions): { pcap: string; keylog?: string; clientIps?: string[]; bottleneck?: BottleneckModel } {
  if (!(existsSync(path) && statSync(path).isDirectory())) return { pcap: path, keylog: o.keylog, clientIps: o.clientIps, bottleneck: o.bottleneck };
  let { clientIps, bottleneck } = o;
  const pj = join(path, 'probe.json');
  if (existsSync(pj)) {
    const probe = JSON.parse(readFileSync(pj, 'utf8')) as { clientAddress?: string; profile?: Profile };
    if (!clientIps && probe.clientAddress) clientIps = [probe.clientAddress];
    // Its profile as applied (cross-traffic probes ran a shared queue), unless --profile said otherwise.
    if (!o.explicitProfile && probe.profile?.rateKbit !== undefined) bottleneck = bottleneckModelOf(probe.profile);
  }
  const ownKeylog = join(path, 'keylog.txt');
  const keylog = o.keylog ?? (existsSync(ownKeylog) ? ownKeylog : undefined);
  return { pcap: join(path, 'capture.pcap'), keylog, clientIps, bottleneck };
}

export async function classifyCapture(path: string, o: ClassifyCaptureOptions): Promise<{ file: string; keylog: string | null; flows: ClassifiedFlowRow[] }> {
  const inputs = captureInputs(path, o);
  const model = loadModel(o.model);
  const r = await traceFile(inputs.pcap, { keylog: inputs.keylog, clientIps: inputs.clientIps, bottleneck: inputs.bottleneck });
  const flows = r.flows.map((f): ClassifiedFlowRow => {
    const v = f.series ? classifyFlow(f.series, model) : null;
    return {
      flow: f.id, tuple: f.tuple, protocol: f.kind, bifMethod: f.bifMethod, bytes: f.toClient.payloadBytes, durationSeconds: f.durationSeconds,
      lossShare: lossShareOf(f.series?.loss),
      verdict: v?.label ?? 'Unknown', confidence: v?.confidence ?? 0, reason: v?.reason ?? 'no bytes-in-flight series (plain UDP)', read: v !== null,
    };
  });
  return { file: inputs.pcap, keylog: inputs.keylog ?? null, flows };
}
