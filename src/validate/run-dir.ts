/**
 * BiF accuracy of one probe run directory (capture.pcap + ground-truth.jsonl + probe.json, and
 * for HTTP/3 probes keylog.txt): traces the capture, picks the server flow, aligns it with the
 * server's samples.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCapture, SampleFlag, TcpFlag, traceFile } from '../trace/index.js';
import type { FlowResult, PacketRecord } from '../trace/index.js';
import { formatEndpoint } from '../trace/ip.js';
import { loadProfile, type Profile } from '../shaper/profile.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { bottleneckModelOf } from '../shaper/bottleneck-model.js';
import { compareAtAck, compareBif, compareBifByCounters, compareTcpBifByCounters, readGroundTruth, type AccuracyResult, type CaptureDatagrams, type TcpCaptureSegments, type TruthField } from './bif-accuracy.js';

/** The TLS key log an HTTP/3 probe keeps (src/probe/probe.ts PROBE_KEYLOG). */
export const RUN_KEYLOG = 'keylog.txt';

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
  originIp?: string;
  /** The probe competed with a download through a shared queue (ProbeResult.crossTraffic). */
  crossTraffic: boolean;
  /** ... and that download came from the probed origin itself (same server address). */
  crossTrafficFromOrigin: boolean;
  /** The profile as the probe applied it (probe.json), when recorded. */
  appliedProfile?: Profile;
}

export type Alignment = 'two-sided' | 'shift' | 'counters';

export interface RunAccuracy extends RunMeta {
  field: TruthField;
  bifMethod: string;
  alignment: Alignment;
  accuracy: AccuracyResult;
  /** Why a QUIC flow kept the heuristic although the run has a key log. */
  fallbackReason?: string;
}

interface ProbeJson {
  origin: { serve: 'tcp' | 'h3'; stack?: string; cca: string; ip?: string };
  crossTraffic?: { ip?: string };
  profile: { name: string } & Partial<Profile>;
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
    originIp: p.origin.ip,
    crossTraffic: p.crossTraffic !== undefined,
    crossTrafficFromOrigin: p.crossTraffic !== undefined && p.crossTraffic.ip === p.origin.ip,
    ...(p.profile.rateKbit !== undefined ? { appliedProfile: p.profile as Profile } : {}),
  };
}

/** The bottleneck the run really had, for the QUIC model; an error when it cannot be replayed. */
export async function replayableBottleneck(meta: RunMeta): Promise<BottleneckModel> {
  const b = bottleneckModelOf(meta.appliedProfile ?? (await loadProfile(meta.profile)));
  if (!b) throw new Error(`${meta.dir}: the bottleneck cannot be replayed (shared queue or random loss)`);
  return b;
}

/**
 * The flow that carried the bulk transfer: the one with most server bytes and a series, from
 * the probed origin when `probe` says which. When cross traffic came from that same origin
 * (`afterCrossTraffic`): the latest-starting flow, since the competing download started first.
 */
export function bulkFlow(flows: FlowResult[], protocol: 'tcp' | 'quic', probe?: { originIp: string; afterCrossTraffic: boolean }): FlowResult | undefined {
  let candidates = flows.filter((f) => f.series && (protocol === 'tcp' ? f.kind === 'tcp' : f.kind === 'quic'));
  if (probe) candidates = candidates.filter((f) => f.paths.some((p) => p.includes(`-${probe.originIp}:`)));
  if (probe?.afterCrossTraffic) return candidates.sort((a, b) => b.startSeconds - a.startSeconds)[0];
  return candidates.sort((a, b) => b.toClient.payloadBytes - a.toClient.payloadBytes)[0];
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
 * before a server sample (see AccuracyOptions.dataSend); 'shift' matches one instant only;
 * 'counters' aligns by the server's own counters: QUIC datagram counters (compareBifByCounters),
 * TCP tcp_info bytes_sent/bytes_acked (compareTcpBifByCounters).
 * `quic`: 'auto' (default) uses the key log when the run has one (exact BiF), 'heuristic' never
 * (Nebby's heuristic), 'model' the bottleneck model of the run's profile (no key log).
 * quinn's `bytes_in_flight_at_ack` is compared with the exact replay's at-ACK values.
 */
export async function runAccuracy(dir: string, opts: {
  regionRttMs?: number; field?: TruthField; floorBytes?: number; alignment?: Alignment; quic?: 'auto' | 'heuristic' | 'exact' | 'model';
  /** Diagnostics for the counter alignment (times in unix seconds). */
  onSample?: Parameters<typeof compareBifByCounters>[3]['onSample'];
} = {}): Promise<RunAccuracy> {
  const meta = readRunMeta(dir, opts.regionRttMs);
  const pcap = join(dir, 'capture.pcap');
  if (!existsSync(pcap)) throw new Error(`${dir}: no capture.pcap`);
  const keylogPath = join(dir, RUN_KEYLOG);
  const useKeys = meta.protocol === 'quic' && (opts.quic === undefined || opts.quic === 'auto' || opts.quic === 'exact') && existsSync(keylogPath);
  if (opts.quic === 'exact' && !useKeys) throw new Error(`${dir}: no ${RUN_KEYLOG} for exact QUIC BiF`);
  const oneWay = meta.regionRttMs / 2000;
  const tr = await traceFile(pcap, {
    clientIps: [PROBE_CLIENT_IP],
    keylog: useKeys ? keylogPath : undefined,
    // The capture point sits one region RTT (there and back) from the origin.
    quicSenderPathRttSeconds: meta.regionRttMs / 1000,
    bottleneck: opts.quic === 'model' ? await replayableBottleneck(meta) : undefined,
  });
  const flow = bulkFlow(tr.flows, meta.protocol, meta.originIp ? { originIp: meta.originIp, afterCrossTraffic: meta.crossTrafficFromOrigin } : undefined);
  const field = opts.field ?? truthFieldFor(meta);
  const alignment = opts.alignment ?? 'two-sided';
  if (!flow?.series) throw new Error(`${dir}: no ${meta.protocol} flow with a BiF series in the capture`);
  // Series times are seconds since the flow's first packet; rebase to unix seconds.
  const base = tr.captureStart + flow.startSeconds;
  const t = Float64Array.from(flow.series.t, (x) => x + base);
  // The ground truth may hold other connections (cross traffic from the same origin, or on a
  // kept path the last probe's, still closing): keep the flow's, by its client ports (every
  // path of a QUIC connection that migrated; the upstream NAT keeps ports).
  const clientPorts = new Set(flow.paths.map((p) => Number(/:(\d+)-/.exec(p)?.[1])).filter(Number.isFinite));
  const truth = readGroundTruth(join(dir, 'ground-truth.jsonl'), field, clientPorts.size ? clientPorts : undefined);
  if (truth.t.length === 0 && clientPorts.size && readGroundTruth(join(dir, 'ground-truth.jsonl'), field).t.length > 0) {
    throw new Error(`${dir}: the ground truth has samples, but none of the flow's connection (client port ${[...clientPorts].join(', ')})`);
  }
  const floorBytes = opts.floorBytes ?? truth.mss ?? (meta.protocol === 'tcp' ? 1448 : 1200);
  const recovery = flow.sampleFlags ? Uint8Array.from(flow.sampleFlags, (f) => (f & SampleFlag.recovery ? 1 : 0)) : undefined;
  const dataSend = flow.sampleFlags && alignment !== 'shift' ? Uint8Array.from(flow.sampleFlags, (f) => (f & SampleFlag.dataSend ? 1 : 0)) : undefined;
  const replayAtAck = flow.quic?.exact?.atAck ?? flow.quic?.modelAtAck;
  const atAck = field === 'bytes_in_flight_at_ack' && replayAtAck ? { t: Float64Array.from(replayAtAck.t, (x) => x + base), bytes: replayAtAck.bif } : undefined;
  let accuracy: AccuracyResult;
  if (alignment === 'counters' && meta.protocol === 'tcp') {
    if (!truth.tcpCounters || !flow.sampleFlags) throw new Error(`${dir}: counter alignment needs the server's tcp_info bytes_sent/bytes_acked`);
    const segs = await tcpFlowSegments(pcap, flow, base);
    accuracy = compareTcpBifByCounters({ t, bytes: flow.series.bif, flags: flow.sampleFlags }, { ...truth, tcpCounters: truth.tcpCounters }, segs,
      { shiftSeconds: oneWay, floorBytes, recovery });
  } else if (alignment === 'counters') {
    if (meta.protocol !== 'quic' || !truth.counters || !flow.sampleFlags) throw new Error(`${dir}: counter alignment needs a QUIC flow and the origin's datagram counters`);
    const dgrams = await flowDatagrams(pcap, flow, base);
    accuracy = compareBifByCounters({ t, bytes: flow.series.bif, flags: flow.sampleFlags }, { ...truth, counters: truth.counters }, dgrams,
      { shiftSeconds: oneWay, floorBytes, recovery, atAck, onSample: opts.onSample });
  } else if (atAck) {
    accuracy = compareAtAck(atAck, truth, { shiftSeconds: alignment === 'shift' ? 0 : oneWay, floorBytes, end: t[t.length - 1] });
  } else {
    accuracy = compareBif({ t, bytes: flow.series.bif }, truth, { shiftSeconds: oneWay, floorBytes, recovery, dataSend });
  }
  return { ...meta, field, bifMethod: flow.bifMethod, alignment, accuracy, fallbackReason: flow.quic?.fallbackReason };
}

/**
 * The TCP flow's server data segments and advancing client ACKs as captured, for the counter
 * alignment, on exactly the series' clock (as flowDatagrams). Cumulative ACKs are relative to the
 * server's ISN + 1, as tcp_info's bytes_acked; without the server's SYN-ACK they cannot be.
 */
async function tcpFlowSegments(pcap: string, flow: FlowResult, base: number): Promise<TcpCaptureSegments> {
  const out: TcpCaptureSegments = { dataT: [], dataCum: [], ackT: [], ackCum: [] };
  let isn: number | undefined;
  let sum = 0;
  let maxAck = 0;
  await readFlowPackets(pcap, flow, base, (p, tu, fromServer) => {
    if (fromServer) {
      if (p.tcpFlags & TcpFlag.syn) isn = p.seq;
      if (p.payloadLen > 0 && !(p.tcpFlags & TcpFlag.rst)) {
        sum += p.payloadLen;
        out.dataT.push(tu);
        out.dataCum.push(sum);
      }
    } else if (isn !== undefined && p.tcpFlags & TcpFlag.ack && !(p.tcpFlags & TcpFlag.rst)) {
      const a = (p.ack - isn - 1) >>> 0;
      if (a < 2 ** 31 && a > maxAck) {
        maxAck = a;
        out.ackT.push(tu);
        out.ackCum.push(a);
      }
    }
  });
  if (isn === undefined) throw new Error(`${pcap}: no SYN-ACK from the server: cannot relate ACKs to tcp_info's bytes_acked`);
  return out;
}

/**
 * Visits the packets of one traced flow (all its paths: "tcp:CLIENT-SERVER" / "udp:...") with
 * their time on the flow series' clock (same arithmetic as the trace step, so equal capture
 * times compare equal) and their direction.
 */
async function readFlowPackets(pcap: string, flow: FlowResult, base: number,
  visit: (p: PacketRecord, t: number, fromServer: boolean) => void): Promise<void> {
  const ends = flow.paths.map((p) => /^(tcp|udp):(.*\d)-((?:\[[^\]]+\]|[\d.]+):\d+)$/.exec(p)).filter((m) => m !== null);
  const protocol = ends[0]?.[1] === 'tcp' ? 6 : 17;
  const clients = new Set(ends.map((m) => m[2]));
  const servers = new Set(ends.map((m) => m[3]));
  let sec0: number | undefined;
  let nsec0 = 0;
  await readCapture(pcap, (p) => {
    if (sec0 === undefined) {
      sec0 = p.tsSec;
      nsec0 = p.tsNsec;
    }
    if (p.protocol !== protocol) return;
    const src = formatEndpoint(p.ipVersion, p.src, p.srcPort);
    const dst = formatEndpoint(p.ipVersion, p.dst, p.dstPort);
    const t = (p.tsSec - sec0 + (p.tsNsec - nsec0) * 1e-9 - flow.startSeconds) + base;
    if (servers.has(src) && clients.has(dst)) visit(p, t, true);
    else if (servers.has(dst) && clients.has(src)) visit(p, t, false);
  });
}

/**
 * The flow's datagrams as captured, for the counter alignment, on exactly the series' clock
 * (same arithmetic as the trace step, so equal capture times compare equal).
 */
async function flowDatagrams(pcap: string, flow: FlowResult, base: number): Promise<CaptureDatagrams> {
  const out: CaptureDatagrams = { serverT: [], serverBytes: [], clientT: [], clientBytes: [] };
  await readFlowPackets(pcap, flow, base, (p, tu, fromServer) => {
    if (fromServer) {
      out.serverT.push(tu);
      out.serverBytes.push(p.payloadLen);
    } else {
      out.clientT.push(tu);
      out.clientBytes.push(p.payloadLen);
    }
  });
  return out;
}
