/**
 * Analysis of a run directory, from its raw artefacts alone: trace each profile's capture,
 * correlate requests to flows (CDP + NetLog), classify every TCP/QUIC flow, label WebRTC
 * media, and write flows.json, assets.json, verdicts.json and each profile's annotated HAR.
 * `ccbrowse analyze RUN` calls this again with a newer model: old crawls get new labels.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { classifyFlow } from '../classify/index.js';
import { DISTURBANCE_FILE, readDisturbance } from '../shaper/disturbance.js';
import { seriesAtKnownRate } from '../trace/conditions.js';
import type { Model } from '../classify/model.js';
import type { Verdict } from '../classify/verdict.js';
import { readNetLog, type NetLogEndpoint } from '../correlate/netlog.js';
import type { CdpRequest } from '../correlate/cdp-recorder.js';
import type { AssetRule } from '../correlate/asset-type.js';
import { traceFile } from '../trace/index.js';
import type { FlowResult } from '../trace/result.js';
import { ADDR } from '../net/topology.js';
import { loadProfile } from '../shaper/profile.js';
import { bottleneckModelOf } from '../shaper/bottleneck-model.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { verdictRecordFromClassifier } from '../results/fromClassifier.js';
import type { AssetRecord, FlowRecord, VerdictRecord } from '../results/schema.js';
import { ARTIFACTS } from './artifacts.js';
import { correlate } from './correlate.js';

export const REQUESTS_FILE = 'requests.json';

export interface ProfileAnalysis {
  profile: string;
  flows: FlowRecord[];
  assets: AssetRecord[];
  verdicts: VerdictRecord[];
  /** Classifier verdicts by flow id, for fusion across profiles. */
  rawVerdicts: Map<string, Verdict>;
  /** Host and asset types carried, by flow id. */
  flowInfo: Map<string, { host: string; assetBytes: Record<string, number>; protocol: FlowRecord['protocol']; bytesDown: number }>;
  byteCoverage: number;
  /** The page's requests that got no response at all (no status): a host that never answered. */
  unanswered?: Array<{ host: string; assetType: string; failed: string | null }>;
  warnings: string[];
}

export function modelId(modelPath: string): string {
  const hash = createHash('sha256').update(readFileSync(modelPath)).digest('hex').slice(0, 12);
  return `${basename(modelPath)}@${hash}`;
}

/** RTP/SRTP: version 2 in the first two bits; QUIC was already told apart by the trace. */
function looksLikeMedia(f: FlowResult): boolean {
  return f.kind === 'udp' && f.key.serverPort !== 53 && f.key.clientPort !== 53 && f.toClient.packets + f.toServer.packets >= 20;
}

function protocolOf(f: FlowResult): FlowRecord['protocol'] {
  if (f.kind === 'tcp') return 'tcp';
  if (f.kind === 'quic') return 'quic';
  return looksLikeMedia(f) ? 'udp-rtp' : 'udp';
}

function harProtocol(p: string | null): AssetRecord['protocol'] {
  if (!p) return null;
  if (p === 'h3' || p.startsWith('h3') || p === 'quic') return 'h3';
  if (p === 'h2') return 'h2';
  if (p.startsWith('http/1')) return 'h1';
  return null;
}

export async function analyzeProfile(dir: string, profile: string, model: Model, rules: readonly AssetRule[],
  opts: { lab?: boolean; bottleneck?: BottleneckModel | null; rateKbit?: number; notForClassification?: boolean } = {}): Promise<ProfileAnalysis> {
  const disturbance = readDisturbance(join(dir, DISTURBANCE_FILE));
  const warnings: string[] = [];
  // With the TLS key log (kept by --keep-keys, or still there when a run analyses before
  // deleting it) QUIC flows get exact bytes in flight; without it, a replay of the profile's
  // bottleneck (src/trace/quic-model.ts); Nebby's heuristic only when neither is available.
  const keylog = join(dir, ARTIFACTS.keylog);
  // As recorded in run.json (null: not replayable); older runs: the profile file of that name.
  const bottleneck = opts.bottleneck === null ? undefined
    : opts.bottleneck ?? await loadProfile(profile).then(bottleneckModelOf, () => undefined);
  const trace = await traceFile(join(dir, ARTIFACTS.pcap), { clientIps: [ADDR.client, ADDR.client6], keylog: existsSync(keylog) ? keylog : undefined, bottleneck });
  const heuristic = trace.flows.filter((f) => f.bifMethod === 'quic-nebby-heuristic').length;
  if (heuristic) warnings.push(`${heuristic} QUIC flow(s) on Nebby's heuristic (no usable key log${bottleneck ? '' : `; profile ${profile} cannot be replayed: shared queue, random loss or unknown profile`})`);
  warnings.push(...trace.warnings);
  let endpoints = new Map<number, NetLogEndpoint>();
  try { endpoints = readNetLog(join(dir, ARTIFACTS.netlog)); } catch (err) { warnings.push(`NetLog unusable: ${(err as Error).message}`); }
  const requests: CdpRequest[] = existsSync(join(dir, REQUESTS_FILE)) ? JSON.parse(readFileSync(join(dir, REQUESTS_FILE), 'utf8')) as CdpRequest[] : [];
  const corr = correlate(requests, endpoints, trace.flows, rules, opts);
  const fid = (f: FlowResult) => `${profile}:${f.id}`;

  const flows: FlowRecord[] = [];
  const verdicts: VerdictRecord[] = [];
  const rawVerdicts = new Map<string, Verdict>();
  const flowInfo: ProfileAnalysis['flowInfo'] = new Map();
  const hostByFlow = new Map<string, string>();
  for (const c of corr.requests) if (c.flow && !c.background) {
    try { hostByFlow.set(c.flow.id, new URL(c.request.url).hostname); } catch { /* hostile URL: no host */ }
  }
  for (const f of trace.flows) {
    const protocol = protocolOf(f);
    const id = fid(f);
    flows.push({
      id, profile, protocol, transport: f.kind === 'tcp' ? 'tcp' : 'udp',
      client: { ip: f.key.clientIp, port: f.key.clientPort }, server: { ip: f.key.serverIp, port: f.key.serverPort },
      serverName: hostByFlow.get(f.id),
      bytes: { down: f.toClient.payloadBytes, up: f.toServer.payloadBytes },
      packets: { down: f.toClient.packets, up: f.toServer.packets },
      startMs: Math.max(0, f.startSeconds * 1000), durationMs: Math.max(0, f.durationSeconds * 1000),
      rttMs: Number.isFinite(f.rtt.medianSeconds) && f.rtt.samples > 0 ? f.rtt.medianSeconds * 1000 : null,
      bifMethod: f.bifMethod === 'tcp-seq-ack' || f.bifMethod === 'none' || f.bifMethod === 'quic-keylog-exact' || f.bifMethod === 'quic-bottleneck-model' ? f.bifMethod : 'quic-ack-estimate',
      retransmissions: f.tcp ? f.tcp.server.retransmittedPackets : null,
    } as FlowRecord);
    const assetBytes = Object.fromEntries(corr.flowAssets.get(f.id) ?? []);
    flowInfo.set(id, { host: hostByFlow.get(f.id) ?? f.key.serverIp, assetBytes, protocol, bytesDown: f.toClient.payloadBytes });
    if (protocol === 'udp-rtp') {
      verdicts.push({ flowId: id, label: 'WebRTC media', kind: 'media', confidence: 1,
        reason: 'UDP media flow (RTP/SRTP) of a call: real-time media has no TCP-like congestion window to read', posterior: {}, evidence: null });
    } else if (protocol === 'tcp' || protocol === 'quic') {
      if (!f.series) continue;
      // The run knows its bottleneck: its rate, not what a paused flow delivered, sets the BDP.
      const rate = opts.rateKbit ?? bottleneck?.rateKbit;
      const series = seriesAtKnownRate(f.series, rate);
      const v: Verdict = opts.notForClassification
        ? { schemaVersion: 1, label: 'Unknown', kind: 'unknown', confidence: 0, shapeCluster: null, evidence: null,
          reason: `profile ${profile} is not for classification: no lab controller was measured through it` }
        : classifyFlow(series, model, { disturbance });
      rawVerdicts.set(id, v);
      verdicts.push(verdictRecordFromClassifier(id, v));
    }
  }

  // Assets: every CDP request (the HAR's entries, with the connection the HAR lacks).
  const t0 = requests.length ? Math.min(...requests.map((r) => r.startTime)) : 0;
  const assets: AssetRecord[] = corr.requests.filter((c) => !c.background).map((c, i) => {
    let host = '';
    try { host = new URL(c.request.url).hostname; } catch { /* stays empty */ }
    const startMs = Math.max(0, (c.request.startTime - t0) * 1000);
    return {
      harIndex: i, profile, url: c.request.url, host, assetType: c.assetType, mime: c.request.mimeType,
      bytes: Math.max(0, Math.round(c.request.encodedBytes)), status: c.request.status ?? undefined,
      flowId: c.flow ? fid(c.flow) : null, protocol: harProtocol(c.request.protocol),
      startMs, endMs: Math.max(startMs, ((c.request.endTime ?? c.request.startTime) - t0) * 1000),
    };
  });
  const unanswered = corr.requests.filter((c) => !c.background && c.request.status === null).map((c) => {
    let host = '';
    try { host = new URL(c.request.url).hostname; } catch { /* stays empty */ }
    return { host, assetType: c.assetType, failed: c.request.failed };
  });
  annotateHar(dir, corr.requests.map((c) => ({ url: c.request.url, flowId: c.flow ? fid(c.flow) : null, assetType: c.assetType })), verdicts);
  return { profile, flows, assets, verdicts, rawVerdicts, flowInfo, byteCoverage: corr.byteCoverage, unanswered, warnings };
}

/**
 * Writes <profile>/session.ccb.har: the browser's HAR with `_ccbrowse` on each entry (flow id,
 * asset type, verdict). Entries are matched to requests by URL in order of appearance; the
 * raw session.har stays as the browser wrote it.
 */
function annotateHar(dir: string, reqs: { url: string; flowId: string | null; assetType: string }[], verdicts: VerdictRecord[]): void {
  const path = join(dir, ARTIFACTS.har);
  if (!existsSync(path)) return;
  let har: { log?: { entries?: Array<Record<string, unknown> & { request?: { url?: string } }> } };
  try { har = JSON.parse(readFileSync(path, 'utf8')); } catch { return; }
  const byUrl = new Map<string, typeof reqs>();
  for (const r of reqs) (byUrl.get(r.url) ?? byUrl.set(r.url, []).get(r.url)!).push(r);
  const verdictOf = new Map(verdicts.map((v) => [v.flowId, v]));
  for (const e of har.log?.entries ?? []) {
    const r = byUrl.get(e.request?.url ?? '')?.shift();
    const v = r?.flowId ? verdictOf.get(r.flowId) : undefined;
    e._ccbrowse = { flowId: r?.flowId ?? null, assetType: r?.assetType ?? null, verdict: v?.label ?? null, confidence: v?.confidence ?? null };
  }
  writeFileSync(join(dir, 'session.ccb.har'), JSON.stringify(har));
}

