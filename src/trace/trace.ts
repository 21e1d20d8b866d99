/**
 * The trace step: capture file -> flows -> a bytes-in-flight series per flow.
 * One streaming pass over the packets (TCP state is updated as packets arrive); QUIC series
 * are computed after the pass, because Nebby's estimate needs the connection's totals and the
 * exact method (with a key log) needs the connection's secrets before it can decrypt.
 */
import { readFile } from 'node:fs/promises';
import { BadInputError } from '../util/errors.js';
import { markAppLimited } from './app-limited.js';
import { rebaseCheckpoints } from './loss-timeline.js';
import { busiestRate, flowConditions, quicServerSideRtt } from './conditions.js';
import { FlowRecord, FlowTable, UdpEvents } from './flows.js';
import { parseIp } from './ip.js';
import { PacketKind, type PacketRecord } from './packet.js';
import { readCapture, readCaptureBuffer, type CaptureInfo } from './pcap.js';
import { quicBottleneckBif, quicHeuristicBif, quicKeylogBif, type QuicBifResult } from './quic-bif.js';
import { QuicConnectionTable, UdpPathState, type QuicConnection } from './quic.js';
import { parseKeyLog, type KeyLog, type QuicDatagram } from './quic/index.js';
import type {
  ClientInference,
  DirectionCounts,
  FlowKind,
  FlowResult,
  FlowRttMethod,
  QuicExactSummary,
  TraceOptions,
  TraceResult,
} from './result.js';
import { SampleFlag, TcpConnection, type TcpSenderStats } from './tcp-bif.js';
import { median } from '../util/stats.js';
import type { FlowKey, LossCheckpoint, SenderLoss } from './types.js';

export type * from './result.js';

const ipKey = (version: number, w: ArrayLike<number>) => `${version}:${w[0]},${w[1]},${w[2]},${w[3]}`;

/** Collects flows while the reader streams packets; `finish` turns them into results. */
export class TraceBuilder {
  private readonly table = new FlowTable();
  private readonly quic = new QuicConnectionTable();
  private readonly counts = { tcp: 0, udp: 0, otherIp: 0, notIp: 0, malformed: 0, fragments: 0 };
  private readonly malformedReasons = new Map<string, number>();
  private started = false;
  private sec0 = 0;
  private nsec0 = 0;
  private lastT = 0;
  private backwards = 0;
  private readonly clientIps: Set<string>;
  /** Captured UDP payloads per flow, kept only when a key log can use them. */
  private readonly udpPayloads = new Map<FlowRecord, Uint8Array[]>();

  /** `keys`: the parsed key log (traceFile reads `opts.keylog`); enables exact QUIC BiF. */
  constructor(private readonly opts: TraceOptions = {}, private readonly keys?: KeyLog) {
    this.clientIps = new Set();
    for (const text of opts.clientIps ?? []) {
      const ip = parseIp(text);
      if (!ip) throw new BadInputError(`"${text}" is not an IP address`, 'give client addresses like 10.0.0.1 or 2001:db8::1');
      this.clientIps.add(ipKey(ip.version, ip.words));
    }
  }

  readonly visit = (p: PacketRecord): void => {
    if (!this.started) {
      this.started = true;
      this.sec0 = p.tsSec;
      this.nsec0 = p.tsNsec;
    }
    const t = p.tsSec - this.sec0 + (p.tsNsec - this.nsec0) * 1e-9;
    if (t < this.lastT) this.backwards++;
    else this.lastT = t;
    switch (p.kind) {
      case PacketKind.tcp:
        this.counts.tcp++;
        break;
      case PacketKind.udp:
        this.counts.udp++;
        break;
      case PacketKind.malformed:
        this.counts.malformed++;
        this.malformedReasons.set(p.malformedReason, (this.malformedReasons.get(p.malformedReason) ?? 0) + 1);
        return;
      case PacketKind.fragment:
        this.counts.fragments++;
        return;
      case PacketKind.otherIp:
        this.counts.otherIp++;
        return;
      default:
        this.counts.notIp++;
        return;
    }
    const flow = this.table.lookup(p, t);
    const dir = this.table.dir;
    // Keep each flow's clock monotonic even if the capture's is not.
    const ft = t > flow.lastTime ? t : flow.lastTime;
    flow.count(p, dir, ft);
    if (p.kind === PacketKind.tcp) {
      (flow.tcp ??= new TcpConnection()).onPacket(p, dir, ft);
    } else {
      const path = (flow.udp ??= new UdpPathState());
      const ev = (flow.udpEvents ??= new UdpEvents());
      ev.t.push(ft);
      ev.dir.push(dir);
      ev.bytes.push(p.payloadLen);
      if (this.keys) {
        // The record's buffer is reused: copy the captured payload (<= snaplen) for decryption.
        // (Uint8Array.from, not .slice: on a Node Buffer, slice is a view into the chunk, which
        // the next read overwrites; captures over one 4 MB chunk decrypted garbage.)
        let list = this.udpPayloads.get(flow);
        if (!list) this.udpPayloads.set(flow, (list = []));
        list.push(Uint8Array.from(p.data.subarray(p.payloadOffset, p.payloadOffset + p.payloadCapLen)));
      }
      this.quic.onPacket(path, p, dir);
    }
  };

  finish(file: string, info: CaptureInfo): TraceResult {
    const warnings = [...info.warnings];
    if (this.backwards > 0) warnings.push(`${this.backwards} packets have timestamps earlier than the packet before them`);
    for (const [reason, n] of this.malformedReasons) warnings.push(`${n} packets skipped: ${reason}`);
    const flows = this.table.flows;
    this.groupOrphanQuicPaths(flows);

    const results: FlowResult[] = [];
    let tcpN = 0;
    let udpN = 0;
    for (const f of flows) {
      if (f.protocol === 6) results.push(this.tcpResult(f, `tcp-${tcpN++}`));
      else if (f.udp?.connection === undefined) results.push(this.udpResult(f, `udp-${udpN++}`));
    }
    const conns = this.quic.connections.filter((c) => c.paths.length > 0);
    const firstPacketOf = (c: QuicConnection) => Math.min(...c.paths.map((p) => this.flowOfPath(p).firstPacket));
    conns.sort((x, y) => firstPacketOf(x) - firstPacketOf(y));
    conns.forEach((c, i) => results.push(this.quicResult(c, `quic-${i}`)));
    results.sort((x, y) => x.startSeconds - y.startSeconds || x.id.localeCompare(y.id));

    if (this.keys) {
      const fellBack = results.filter((r) => r.kind === 'quic' && r.quic?.fallbackReason);
      if (fellBack.length > 0) {
        warnings.push(`${fellBack.length} of ${conns.length} QUIC connections without exact BiF (Nebby's heuristic used): ` +
          fellBack.slice(0, 3).map((r) => `${r.id}: ${r.quic!.fallbackReason}`).join('; '));
      }
      if (this.keys.badLines > 0) warnings.push(`key log: ${this.keys.badLines} malformed lines skipped`);
    }
    let selected = results;
    if (this.opts.flowId !== undefined) {
      const want = this.opts.flowId;
      selected = results.filter((r) => r.id === want || r.tuple === want || r.paths.includes(want) || reverseTuple(r.tuple) === want);
      if (selected.length === 0) {
        const ids = results.slice(0, 12).map((r) => `${r.id} (${r.tuple})`);
        throw new BadInputError(
          `${file}: no flow "${want}"`,
          `pick one of: ${ids.join(', ')}${results.length > 12 ? ', ...' : ''}`,
        );
      }
    }
    return {
      schemaVersion: 1,
      file,
      format: info.format,
      linkTypes: info.linkTypes,
      packets: info.packets,
      counts: { ...this.counts },
      captureStart: this.sec0 + this.nsec0 * 1e-9,
      durationSeconds: this.lastT,
      warnings,
      flows: selected,
    };
  }

  private readonly pathOwner = new Map<UdpPathState, FlowRecord>();
  private flowOfPath(p: UdpPathState): FlowRecord {
    if (this.pathOwner.size === 0) for (const f of this.table.flows) if (f.udp) this.pathOwner.set(f.udp, f);
    return this.pathOwner.get(p)!;
  }

  /**
   * UDP paths that look like QUIC (short headers) but matched no handshake CID: a migration
   * to a new CID, which we cannot see without keys. Join the one connection between the same
   * client address and server endpoint that was alive when the path appeared, else stand alone.
   */
  private groupOrphanQuicPaths(flows: FlowRecord[]): void {
    for (const f of flows) {
      const path = f.udp;
      if (!path || path.connection !== undefined) continue;
      const packets = f.packets[0] + f.packets[1];
      if (path.shortHeaders < 0.9 * packets || packets < 2) continue;
      const candidates = this.quic.connections.filter((c) => {
        if (c.paths.length === 0 || !c.handshakeSeen) return false;
        const other = this.flowOfPath(c.paths[0]);
        const cd = this.clientDirOfPath(other, c.paths[0]);
        const serverIp = ipKey(other.ipVersion, cd === 0 ? other.b : other.a);
        const serverPort = other.port((1 - cd) as 0 | 1);
        const clientIp = ipKey(other.ipVersion, cd === 0 ? other.a : other.b);
        const aKey = ipKey(f.ipVersion, f.a);
        const bKey = ipKey(f.ipVersion, f.b);
        const sameEnds =
          (bKey === serverIp && f.bPort === serverPort && aKey === clientIp) ||
          (aKey === serverIp && f.aPort === serverPort && bKey === clientIp);
        const lastTime = Math.max(...c.paths.map((p) => this.flowOfPath(p).lastTime));
        return sameEnds && f.firstTime >= other.firstTime && f.firstTime <= lastTime + 30;
      });
      if (candidates.length === 1) this.quic.merge(path, candidates[0]);
      else this.quic.adopt(path);
    }
  }

  /** Client side of a flow: client IPs, then SYN / QUIC evidence, a well-known server port, fewer bytes sent. */
  private clientSide(f: FlowRecord, protocolHint: -1 | 0 | 1, hintBy: ClientInference): { dir: 0 | 1; by: ClientInference } {
    if (this.clientIps.size > 0) {
      const aIn = this.clientIps.has(ipKey(f.ipVersion, f.a));
      const bIn = this.clientIps.has(ipKey(f.ipVersion, f.b));
      if (aIn !== bIn) return { dir: aIn ? 0 : 1, by: 'client-ips' };
    }
    if (protocolHint !== -1) return { dir: protocolHint, by: hintBy };
    // A well-known port (< 1024) against an ephemeral one marks the server.
    const aLow = f.aPort < 1024;
    if (aLow !== f.bPort < 1024) return { dir: aLow ? 1 : 0, by: 'well-known-port' };
    if (f.payloadBytes[0] !== f.payloadBytes[1]) return { dir: f.payloadBytes[0] < f.payloadBytes[1] ? 0 : 1, by: 'fewer-bytes' };
    return { dir: 0, by: 'first-sender' };
  }

  private clientDirOfPath(f: FlowRecord, path: UdpPathState): 0 | 1 {
    const hint = path.clientDir;
    return this.clientSide(f, hint, path.joinedBy === 'cid' ? 'quic-cid' : 'quic-initial').dir;
  }

  private baseResult(f: FlowRecord, id: string, kind: FlowKind, clientDir: 0 | 1, by: ClientInference) {
    const s = (1 - clientDir) as 0 | 1;
    const proto = f.protocol === 6 ? 'tcp' : 'udp';
    const tuple = `${kind === 'quic' ? 'udp' : proto}:${f.endpoint(clientDir)}-${f.endpoint(s)}`;
    const key: FlowKey = {
      protocol: proto,
      clientIp: f.ip(clientDir),
      clientPort: f.port(clientDir),
      serverIp: f.ip(s),
      serverPort: f.port(s),
    };
    const counts = (d: 0 | 1): DirectionCounts => ({ packets: f.packets[d], payloadBytes: f.payloadBytes[d], ipBytes: f.ipBytes[d] });
    const o = f.opening;
    const opened = o.firstDir === clientDir && Number.isFinite(o.reply) && Number.isFinite(o.next);
    return {
      id,
      tuple,
      kind,
      key,
      paths: [tuple],
      clientBy: by,
      openingRtt: opened ? { serverSeconds: o.reply - o.first, clientSeconds: o.next - o.reply } : null,
      startSeconds: f.firstTime,
      durationSeconds: f.lastTime - f.firstTime,
      toServer: counts(clientDir),
      toClient: counts(s),
    };
  }

  private tcpResult(f: FlowRecord, id: string): FlowResult {
    const side = this.clientSide(f, f.synFrom, 'syn');
    const base = this.baseResult(f, id, 'tcp', side.dir, side.by);
    const conn = f.tcp!;
    const server = conn.senders[1 - side.dir];
    const client = conn.senders[side.dir];
    const stats = server.summary();
    for (const e of stats.lossEpisodes) {
      e.start -= f.firstTime;
      if (e.end !== null) e.end -= f.firstTime;
    }
    const rtt = { method: stats.rtt.method as FlowRttMethod, ...pickRtt(stats.rtt) };
    const t = server.t.toArray();
    for (let i = 0; i < t.length; i++) t[i] -= f.firstTime;
    const flags = server.flags.toArray();
    const bif = server.bif.toArray();
    const appLimitedSamples = markAppLimited(t, bif, flags, {
      rttSeconds: rtt.medianSeconds,
      // Less than half a segment outstanding: nothing left to deliver (one segment could be an RTO).
      drainedBytes: Math.max(server.mss, 1) / 2,
      idleRtts: this.opts.idleRtts,
    });
    const rate = busiestRate(server.delivered.t.data.subarray(0, server.delivered.t.length), server.delivered.bytes.data.subarray(0, server.delivered.bytes.length),
      Math.max(1, 4 * (Number.isFinite(rtt.medianSeconds) ? rtt.medianSeconds : 0.25)));
    const conditions = flowConditions({
      transport: 'tcp', segmentBytes: stats.mss, sack: conn.sackNegotiated() ?? (stats.sackUsed ? true : null),
      rttSeconds: rtt.medianSeconds, minRttSeconds: rtt.minSeconds, opening: base.openingRtt ?? null, deliveryBytesPerSecond: rate,
      tcp: { dataPackets: stats.dataPackets, dataBytes: stats.dataBytes, reorderedPackets: stats.reorderedPackets, upstreamLostBytes: stats.upstreamLostBytes, upstreamLostPackets: stats.upstreamLostPackets,
        retransmittedPackets: stats.retransmittedPackets, needlessResends: stats.needlessRetransmissions + stats.spuriousRetransmissions },
      bifMethod: 'exact',
    });
    return {
      ...base,
      conditions,
      handshake: f.handshake,
      bifMethod: 'tcp-seq-ack',
      series: { t, bif, appLimited: appLimitedColumn(flags), transport: 'tcp', rttSeconds: rtt.medianSeconds, conditions, loss: senderLossOf(stats, rebaseCheckpoints(server.lossTimeline.checkpoints, f.firstTime)) },
      sampleFlags: flags,
      rtt,
      appLimitedSamples,
      tcp: { server: stats, clientDataBytes: client.summary().dataBytes, resets: conn.rsts },
    };
  }

  private udpResult(f: FlowRecord, id: string): FlowResult {
    const side = this.clientSide(f, -1, 'fewer-bytes');
    return {
      ...this.baseResult(f, id, 'udp', side.dir, side.by),
      handshake: false,
      bifMethod: 'none',
      series: null,
      sampleFlags: null,
      rtt: { method: 'none', samples: 0, medianSeconds: NaN, minSeconds: NaN },
      appLimitedSamples: 0,
    };
  }

  private quicResult(c: QuicConnection, id: string): FlowResult {
    // Paths in order of appearance; the first one names the connection.
    const paths = [...c.paths].sort((x, y) => this.flowOfPath(x).firstPacket - this.flowOfPath(y).firstPacket);
    const first = this.flowOfPath(paths[0]);
    const firstSide = this.clientSide(first, paths[0].clientDir, paths[0].joinedBy === 'cid' ? 'quic-cid' : 'quic-initial');
    const clientIp = ipKey(first.ipVersion, firstSide.dir === 0 ? first.a : first.b);
    const tuples: string[] = [];
    const perPath: Array<{ f: FlowRecord; clientDir: 0 | 1 }> = [];
    for (const path of paths) {
      const f = this.flowOfPath(path);
      let clientDir = this.clientSide(f, path.clientDir, 'quic-initial').dir;
      // A path with no evidence of its own follows the connection's client address.
      if (path.clientDir === -1 && this.clientIps.size === 0) {
        if (ipKey(f.ipVersion, f.a) === clientIp) clientDir = 0;
        else if (ipKey(f.ipVersion, f.b) === clientIp) clientDir = 1;
      }
      perPath.push({ f, clientDir });
      tuples.push(`udp:${f.endpoint(clientDir)}-${f.endpoint((1 - clientDir) as 0 | 1)}`);
    }
    const events = mergeEvents(perPath);
    const recoveryOpts = { senderPathRttSeconds: this.opts.quicSenderPathRttSeconds };
    // Best method available: the key log, else the known bottleneck, else Nebby's heuristic.
    let q: QuicBifResult | undefined;
    let fallbackReason: string | undefined;
    if (this.keys) {
      const exact = quicKeylogBif(this.datagramsOf(perPath), this.keys, recoveryOpts);
      if (typeof exact === 'string') fallbackReason = exact;
      else q = exact;
    }
    if (!q && this.opts.bottleneck) {
      // Each 5-tuple has its own queue in the shaper: a migrated connection is not one replay.
      if (perPath.length === 1) q = quicBottleneckBif(events, this.opts.bottleneck, first.ipVersion === 6 ? 6 : 4, recoveryOpts);
      else fallbackReason = [fallbackReason, `bottleneck model: ${perPath.length} paths (migration), one queue each`].filter(Boolean).join('; ');
    }
    q ??= quicHeuristicBif(events);
    const start = Math.min(...perPath.map((p) => p.f.firstTime));
    const end = Math.max(...perPath.map((p) => p.f.lastTime));
    // A sender replay measures RTT from ACKs (capture-side: the client's half of the path).
    const exactRtt = q.replay ? median(q.replay.stats.rttSamples) : NaN;
    const rttSeconds = Number.isFinite(exactRtt) ? exactRtt : quicHandshakeRtt(events);
    const t = q.t;
    for (let i = 0; i < t.length; i++) t[i] -= start;
    const atAck = q.replay ? Float64Array.from(q.replay.atAck.t, (x) => x - start) : undefined;
    const appLimitedSamples = markAppLimited(t, q.bif, q.flags, {
      rttSeconds,
      // Exact: drained = less than half a datagram outstanding, as for TCP. The heuristic
      // cannot tell an RTO stall from idleness, so it judges by the gap alone.
      drainedBytes: q.replay ? Math.max(q.maxDatagram, 1) / 2 : Infinity,
      idleRtts: this.opts.idleRtts,
    });
    const sum = (fn: (x: { f: FlowRecord; clientDir: 0 | 1 }) => number) => perPath.reduce((n, x) => n + fn(x), 0);
    const dirCounts = (toServer: boolean): DirectionCounts => ({
      packets: sum((x) => x.f.packets[toServer ? x.clientDir : 1 - x.clientDir]),
      payloadBytes: sum((x) => x.f.payloadBytes[toServer ? x.clientDir : 1 - x.clientDir]),
      ipBytes: sum((x) => x.f.ipBytes[toServer ? x.clientDir : 1 - x.clientDir]),
    });
    const base = this.baseResult(first, id, 'quic', perPath[0].clientDir, firstSide.by);
    const versions = new Set<number>();
    for (const p of paths) for (const v of p.versions) versions.add(v);
    const toClient = dirCounts(false);
    const minRtt = q.replay && Number.isFinite(exactRtt) ? q.replay.stats.minRtt : rttSeconds;
    // No per-ACK delivery for QUIC here: the mean rate over the flow's sending time (a bulk flow's is the bottleneck's).
    const sending = Math.max(1e-3, (t.length ? t[t.length - 1] - t[0] : 0));
    // The server's ACK frames time it exactly; without keys, the datagrams' timing (a guess).
    const serverSide = minRtt > 0 ? (q.exact?.serverSideRttSeconds ?? quicServerSideRtt(events, minRtt)) : null;
    const opening = serverSide !== null ? { serverSeconds: serverSide, clientSeconds: minRtt } : null;
    const conditions = flowConditions({
      transport: 'quic', segmentBytes: toClient.packets ? toClient.payloadBytes / toClient.packets : 0, sack: true,
      rttSeconds, minRttSeconds: minRtt, opening,
      bifMethod: q.exact ? 'exact' : q.replay ? 'replayed' : 'estimated',
      deliveryBytesPerSecond: t.length > 1 ? toClient.payloadBytes / sending : null,
      // Packet numbers are read only with the key log; the bottleneck model's replay guesses them.
      ...(q.exact ? { quic: { sentPackets: q.exact.series.stats.sentPackets, reorderedPackets: q.exact.series.stats.reorderedPackets } } : {}),
    });
    return {
      ...base,
      openingRtt: opening,
      conditions,
      paths: tuples,
      startSeconds: start,
      durationSeconds: end - start,
      toServer: dirCounts(true),
      toClient,
      handshake: c.handshakeSeen,
      bifMethod: `quic-${q.method}`,
      series: {
        t, bif: q.bif, appLimited: appLimitedColumn(q.flags), transport: 'quic', rttSeconds, conditions,
        // Losses are known only when the packets could be read (key log), not guessed.
        ...(q.exact ? { loss: { sentBytes: q.exact.series.stats.sentBytes, lostBytes: q.exact.series.stats.lostBytes, checkpoints: rebaseCheckpoints(q.exact.series.lossCheckpoints, start) } } : {}),
      },
      sampleFlags: q.flags,
      rtt: q.replay && Number.isFinite(exactRtt)
        ? { method: 'quic-ack', samples: q.replay.stats.rttSamples.length, medianSeconds: exactRtt, minSeconds: q.replay.stats.minRtt }
        : {
          method: Number.isNaN(rttSeconds) ? 'none' : 'quic-handshake',
          samples: Number.isNaN(rttSeconds) ? 0 : 1,
          medianSeconds: rttSeconds,
          minSeconds: rttSeconds,
        },
      appLimitedSamples,
      quic: {
        versions: [...versions].map((v) => '0x' + v.toString(16).padStart(8, '0')),
        joinedBy: paths.map((p) => p.joinedBy),
        bytesPerAck: q.bytesPerAck,
        serverPackets: q.serverPackets,
        clientPackets: q.clientPackets,
        ackPackets: q.ackPackets,
        fallbackReason,
        exact: q.exact && atAck ? exactSummary(q.exact, atAck) : undefined,
        droppedInQueue: q.droppedInQueue,
        modelAtAck: !q.exact && q.replay && atAck ? { t: atAck, bif: q.replay.atAck.bif } : undefined,
      },
    };
  }

  /** The connection's datagrams in time order, with their captured payloads, for decryption. */
  private datagramsOf(paths: Array<{ f: FlowRecord; clientDir: 0 | 1 }>): QuicDatagram[] {
    const out: QuicDatagram[] = [];
    for (const { f, clientDir } of paths) {
      const ev = f.udpEvents!;
      const data = this.udpPayloads.get(f) ?? [];
      for (let i = 0; i < ev.t.length; i++) {
        out.push({ t: ev.t.data[i], fromServer: ev.dir.data[i] !== clientDir, data: data[i] ?? new Uint8Array(0), wireLen: ev.bytes.data[i] });
      }
    }
    // Stable: datagrams of one path keep their capture order at equal times.
    return paths.length === 1 ? out : out.map((d, i) => ({ d, i })).sort((a, b) => a.d.t - b.d.t || a.i - b.i).map((x) => x.d);
  }
}

/** What the result keeps of an exact replay (times already rebased to the flow's start). */
function exactSummary(x: NonNullable<QuicBifResult['exact']>, atAckT: Float64Array): QuicExactSummary {
  const s = x.series.stats;
  return {
    version: '0x' + x.version.toString(16).padStart(8, '0'),
    suite: x.suite,
    matchedBy: x.matchedBy,
    packets: x.decode.packets,
    opened: x.decode.opened,
    verified: x.decode.verified,
    guessedServerPackets: x.guessedServerPackets,
    unreadableClientPackets: x.unreadableClientPackets,
    keyUpdates: { client: x.decode.keyUpdates[0], server: x.decode.keyUpdates[1] },
    lostPackets: s.lostPackets,
    lostBytes: s.lostBytes,
    lostByPacketThreshold: s.lostByPacketThreshold,
    lostByTime: s.lostByTime,
    smoothedRttSeconds: s.smoothedRtt,
    atAck: { t: atAckT, bif: x.series.atAck.bif },
  };
}

function pickRtt(r: TcpSenderStats['rtt']) {
  return { samples: r.samples, medianSeconds: r.medianSeconds, minSeconds: r.minSeconds };
}

function appLimitedColumn(flags: Uint8Array): Uint8Array {
  const out = new Uint8Array(flags.length);
  for (let i = 0; i < flags.length; i++) out[i] = flags[i] & SampleFlag.appLimited ? 1 : 0;
  return out;
}

function reverseTuple(tuple: string): string {
  const m = /^(\w+):(.*\d)-((?:\[[^\]]+\]|[\d.]+):\d+)$/.exec(tuple);
  return m ? `${m[1]}:${m[3]}-${m[2]}` : tuple;
}

/** All paths' datagrams in time order, labelled server or client. */
function mergeEvents(paths: Array<{ f: FlowRecord; clientDir: 0 | 1 }>) {
  let n = 0;
  for (const p of paths) n += p.f.udpEvents!.t.length;
  const t = new Float64Array(n);
  const fromServer = new Uint8Array(n);
  const bytes = new Uint32Array(n);
  let k = 0;
  for (const { f, clientDir } of paths) {
    const ev = f.udpEvents!;
    for (let i = 0; i < ev.t.length; i++, k++) {
      t[k] = ev.t.data[i];
      fromServer[k] = ev.dir.data[i] === clientDir ? 0 : 1;
      bytes[k] = ev.bytes.data[i];
    }
  }
  if (paths.length === 1) return { t, fromServer, bytes };
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => t[x] - t[y] || x - y);
  return {
    t: Float64Array.from(order, (i) => t[i]),
    fromServer: Uint8Array.from(order, (i) => fromServer[i]),
    bytes: Uint32Array.from(order, (i) => bytes[i]),
  };
}

/** The server's first flight to the client's next datagram: one round trip past the capture point. */
function quicHandshakeRtt(ev: { t: Float64Array; fromServer: Uint8Array }): number {
  let firstServer = -1;
  for (let i = 0; i < ev.t.length; i++) {
    if (ev.fromServer[i]) {
      if (firstServer < 0) firstServer = i;
    } else if (firstServer >= 0) {
      return ev.t[i] - ev.t[firstServer];
    }
  }
  return NaN;
}

/** Reads a capture and returns every flow's bytes-in-flight series (the `ccbrowse trace` step). */
export async function traceFile(path: string, opts: TraceOptions & { chunkSize?: number } = {}): Promise<TraceResult> {
  let keys: KeyLog | undefined;
  if (opts.keylog !== undefined) {
    let text: string;
    try {
      text = await readFile(opts.keylog, 'utf8');
    } catch {
      throw new BadInputError(`key log ${opts.keylog} cannot be read`, 'give the file Chromium wrote with --ssl-key-log-file');
    }
    keys = parseKeyLog(text);
  }
  const builder = new TraceBuilder(opts, keys);
  const info = await readCapture(path, builder.visit, { chunkSize: opts.chunkSize });
  return builder.finish(path, info);
}

/** Same as traceFile for a capture already in memory (`keylogText`: the key log's contents). */
export function traceBuffer(bytes: Uint8Array, name: string, opts: TraceOptions = {}, keylogText?: string): TraceResult {
  const builder = new TraceBuilder(opts, keylogText === undefined ? undefined : parseKeyLog(keylogText));
  const info = readCaptureBuffer(bytes, name, builder.visit);
  return builder.finish(name, info);
}

/**
 * A TCP sender's losses for the classifier: the retransmissions its receiver was waiting for,
 * plus the bytes lost before the capture point (seen as a gap the server filled later); not
 * spurious or go-back-N resends, which the sender made without the network losing anything
 * (SACK off, a timeout resends what the receiver already holds: read as loss, a sender that
 * kept its window through "30-50% loss" looked like BBRv1).
 */
export function senderLossOf(stats: TcpSenderStats, checkpoints: LossCheckpoint[]): SenderLoss {
  return { sentBytes: stats.dataBytes + stats.upstreamLostBytes, lostBytes: stats.neededRetransmittedBytes + stats.upstreamLostBytes, checkpoints };
}
