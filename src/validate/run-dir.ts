/**
 * BiF accuracy of one probe run directory (capture.pcap + ground-truth.jsonl + probe.json):
 * traces the capture, picks the server flow, aligns it with the server's samples.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SampleFlag, traceFile } from '../trace/index.js';
import type { FlowResult } from '../trace/index.js';
import { compareBif, readGroundTruth, type AccuracyResult, type TruthField } from './bif-accuracy.js';

/** The probe's client address inside its topology (src/net/topology.ts ADDR.client). */
export const PROBE_CLIENT_IP = '10.203.1.2';

export interface RunMeta {
  dir: string;
  protocol: 'tcp' | 'quic';
  stack: string;
  cca: string;
  profile: string;
  region: string;
  /** Added RTT of the region (ms), from the lab config the run used. */
  regionRttMs: number;
}

export interface RunAccuracy extends RunMeta {
  field: TruthField;
  bifMethod: string;
  accuracy: AccuracyResult;
}

interface ProbeJson {
  origin: { serve: 'tcp' | 'h3'; stack?: string; cca: string };
  profile: { name: string };
  region: string;
  regionRttMs?: number;
}

export function readRunMeta(dir: string, regionRttMs?: number): RunMeta {
  const p = JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8')) as ProbeJson;
  return {
    dir,
    protocol: p.origin.serve === 'tcp' ? 'tcp' : 'quic',
    stack: p.origin.serve === 'tcp' ? 'tcp' : (p.origin.stack ?? 'quic'),
    cca: p.origin.cca,
    profile: p.profile.name,
    region: p.region,
    regionRttMs: regionRttMs ?? p.regionRttMs ?? 0,
  };
}

/** The flow that carried the bulk transfer: the one with most server bytes and a series. */
export function bulkFlow(flows: FlowResult[], protocol: 'tcp' | 'quic'): FlowResult | undefined {
  return flows
    .filter((f) => f.series && (protocol === 'tcp' ? f.kind === 'tcp' : f.kind === 'quic'))
    .sort((a, b) => b.toClient.payloadBytes - a.toClient.payloadBytes)[0];
}

/**
 * quinn's `bytes_in_flight` is an estimate between ACKs (docs/lab-quic.md); its exact counter
 * is `bytes_in_flight_at_ack`. aioquic's `bytes_in_flight` is exact. TCP: `unsacked_bytes`,
 * snd_nxt - snd_una - sacked_out x MSS, the sender's own count of what has not reached the
 * receiver (without SACK, sacked_out is its duplicate-ACK count): in bytes, it is the kernel's
 * pipe (packets_out - sacked_out - lost_out + retrans_out, what cwnd limits) whenever every
 * segment marked lost has been retransmitted, which NewReno does at once. snd_nxt - snd_una
 * (`inflight_bytes`) keeps growing through fast recovery (new data sent per duplicate ACK) and
 * is no network quantity; `pipe_bytes` (tcp_info packets x MSS) rounds short segments up to a
 * full MSS. docs/benchmarks/bif-accuracy.md compares all three.
 */
export function truthFieldFor(meta: Pick<RunMeta, 'protocol' | 'stack'>): TruthField {
  if (meta.protocol === 'tcp') return 'unsacked_bytes';
  return meta.stack === 'quinn' ? 'bytes_in_flight_at_ack' : 'bytes_in_flight';
}

/**
 * `alignment`: 'two-sided' (default) undoes the ACKs the capture saw within one one-way delay
 * before a server sample (see AccuracyOptions.dataSend); 'shift' matches one instant only.
 */
export async function runAccuracy(dir: string, opts: { regionRttMs?: number; field?: TruthField; floorBytes?: number; alignment?: 'two-sided' | 'shift' } = {}): Promise<RunAccuracy> {
  const meta = readRunMeta(dir, opts.regionRttMs);
  const pcap = join(dir, 'capture.pcap');
  if (!existsSync(pcap)) throw new Error(`${dir}: no capture.pcap`);
  const tr = await traceFile(pcap, { clientIps: [PROBE_CLIENT_IP] });
  const flow = bulkFlow(tr.flows, meta.protocol);
  const field = opts.field ?? truthFieldFor(meta);
  if (!flow?.series) throw new Error(`${dir}: no ${meta.protocol} flow with a BiF series in the capture`);
  // Series times are seconds since the flow's first packet; rebase to unix seconds.
  const base = tr.captureStart + flow.startSeconds;
  const t = Float64Array.from(flow.series.t, (x) => x + base);
  const truth = readGroundTruth(join(dir, 'ground-truth.jsonl'), field);
  const floorBytes = opts.floorBytes ?? truth.mss ?? (meta.protocol === 'tcp' ? 1448 : 1200);
  const recovery = flow.sampleFlags ? Uint8Array.from(flow.sampleFlags, (f) => (f & SampleFlag.recovery ? 1 : 0)) : undefined;
  const dataSend = flow.sampleFlags && opts.alignment !== 'shift' ? Uint8Array.from(flow.sampleFlags, (f) => (f & SampleFlag.dataSend ? 1 : 0)) : undefined;
  const accuracy = compareBif({ t, bytes: flow.series.bif }, truth, { shiftSeconds: meta.regionRttMs / 2000, floorBytes, recovery, dataSend });
  return { ...meta, field, bifMethod: flow.bifMethod, accuracy };
}
