/**
 * TCP bytes in flight from the capture point, per direction of one connection.
 *
 * BiF = highest sequence sent - cumulative ACK - SACKed bytes above it - (without SACK) one
 * segment per duplicate ACK, the way Nebby corrects for losses when SACK is off: a duplicate
 * ACK means a segment left the network. Without SACK the credit follows the Linux sender's own
 * bookkeeping (its `sacked_out` for a Reno/NewReno connection, net/ipv4/tcp_input.c), so the
 * estimate equals the sender's snd_nxt - snd_una - sacked_out x MSS:
 *  - tcp_add_reno_sack: +1 segment per duplicate ACK, capped so at least one segment of the
 *    outstanding ones stays a hole (tcp_limit_reno_sacked: sacked_out <= packets_out - 1);
 *  - tcp_remove_reno_sacks: a partial ACK in fast recovery that acknowledges n segments removes
 *    only n - 1 segments of credit ("one ACK acked the hole, the rest eat duplicate ACKs");
 *  - tcp_reset_reno_sack: any other advancing ACK (outside recovery, or the one reaching the
 *    recovery point) clears it;
 *  - a retransmission timeout (seen as a retransmission of the first unacknowledged byte
 *    >= RTO_MIN after the cumulative ACK last advanced) clears it, and in the Loss state that follows every advancing
 *    ACK clears it too (tcp_enter_loss, tcp_process_loss), until the ACK of all data sent
 *    before the timeout; meanwhile every segment sent before the timeout counts as lost, so the
 *    cap above leaves only segments sent since then to be credited.
 * Sequence numbers are unwrapped onto a float line (exact to 2^53), so the 2^32 wrap never
 * shows up in the arithmetic.
 *
 * Both directions are tracked, because which side is the server may only be known at the
 * end (the side that sent fewer bytes); the caller keeps the server direction's series.
 */
import { F64Column, TupleQueue, U8Column, median } from './buffers.js';
import { TcpFlag, TcpOpt, type PacketRecord } from './packet.js';
import { addRange, coveredBytes, removeRange, trimBelow, type RangeSet } from './ranges.js';
import { LossTimeline } from './loss-timeline.js';

/** Bits of the per-sample flags column. */
export const SampleFlag = {
  /** Sender application-limited or idle (set by the app-limited pass). */
  appLimited: 1,
  /** BiF within one segment of the receiver's advertised window: the receiver, not CC, limits. */
  rwndLimited: 2,
  /** The sample is a retransmitted data segment. */
  retransmission: 4,
  /** Between a loss episode's first retransmission and the ACK of everything sent before it. */
  recovery: 8,
  /** The sample is a data packet from the sender (else an ACK from the receiver). */
  dataSend: 16,
  dupAck: 32,
} as const;

export interface LossEpisode {
  /** Seconds (capture-relative until the caller rebases them). */
  start: number;
  end: number | null;
  retransmissions: number;
}

export type RttMethod = 'timestamps' | 'seq-ack' | 'handshake' | 'none';

export interface RttSummary {
  method: RttMethod;
  samples: number;
  medianSeconds: number;
  minSeconds: number;
}

export interface TcpSenderStats {
  dataPackets: number;
  /** Payload bytes sent, retransmissions included. */
  dataBytes: number;
  /** Distinct sequence space covered: highest sequence - first. */
  uniqueBytes: number;
  retransmittedPackets: number;
  retransmittedBytes: number;
  spuriousRetransmissions: number;
  /**
   * Retransmissions the receiver was waiting for (its cumulative ACK stopped inside them) and
   * that were not spurious: the losses the sender really had. The rest are spurious (D-SACK, or
   * acknowledged faster than a round trip) or needless (go-back-N after a timeout resends
   * segments the receiver already held: its cumulative ACK jumped over them).
   */
  neededRetransmittedBytes: number;
  needlessRetransmissions: number;
  /** Data that reached the capture point out of order and filled its gap within half an RTT (reordering before the capture). */
  reorderedPackets: number;
  /** Data the capture never saw the first time: a gap filled later than that (lost between the server and the capture point). */
  upstreamLostPackets: number;
  upstreamLostBytes: number;
  dsackBlocks: number;
  /** Duplicate ACKs the receiver sent for this direction's data. */
  dupAcks: number;
  lossEpisodes: LossEpisode[];
  sackUsed: boolean;
  timestampsUsed: boolean;
  /** Largest payload seen: the effective segment size. */
  mss: number;
  maxBif: number;
  /** Bytes ACKed or skipped that the capture never showed (capture drops, or it started late). */
  unseenBytes: number;
  rtt: RttSummary;
}

interface Retransmission {
  start: number;
  end: number;
  time: number;
  spurious: boolean;
  /** The receiver's cumulative ACK stopped inside it: it was waiting for these bytes. */
  needed: boolean;
  bytes: number;
}

/** Gaps shorter than this share of the RTT are reordering, longer ones a loss before the capture point. */
const REORDER_RTT_SHARE = 0.5;
/** ... before any RTT is known. */
const REORDER_DEFAULT_SECONDS = 0.05;

const TWO32 = 4294967296;
const MAX_JUMP = 2 ** 30;
const MAX_TRACKED = 1 << 20;
/** Linux TCP_RTO_MIN (200 ms), less a little for capture-side timing. */
const RTO_MIN_SECONDS = 0.19;

/** Sequence space of one direction's data and what the other side acknowledged of it. */
export class TcpSender {
  started = false;
  private refRaw = 0;
  private refAbs = TWO32;
  dataStart = 0;
  sndMax = 0;
  cumAck = 0;
  private finAbs = NaN;
  private sacked = 0;
  /** Duplicate-ACK credit without SACK, in segments (the sender's Reno sacked_out). */
  private renoSacked = 0;
  private readonly scoreboard: RangeSet = [];
  private readonly holes: RangeSet = [];
  /** [start, end, time] of each gap in the data the capture saw, for telling reordering from loss upstream. */
  private readonly holeTimes: Array<[number, number, number]> = [];
  private lastWindowRaw = -1;
  /** Receiver's advertised window in bytes (NaN when the scale is unknown). */
  rwnd = NaN;
  mss = 0;
  private inRecovery = false;
  private recoveryPoint = 0;
  /** After a retransmission timeout, until recoveryPoint is acknowledged (the kernel's TCP_CA_Loss). */
  private inLoss = false;
  /** When the cumulative ACK last advanced (the kernel re-arms its RTO timer then, not on dup ACKs). */
  private lastAdvanceTime = -Infinity;
  private readonly pending: Retransmission[] = [];
  private readonly resolved: Retransmission[] = [];
  /** [start, end, sendTime, retransmitted] of each new segment, for seq/ack RTT (Karn). */
  private readonly segments = new TupleQueue(4);
  /** [TSval, first time seen]. */
  private readonly tsvals = new TupleQueue(2);
  private lastTsval = -1;
  private sentTs = false;
  private echoedTs = false;
  private minRtt = Infinity;

  readonly t = new F64Column();
  readonly bif = new F64Column();
  /** Data and retransmitted bytes over time, so a cut trace can recount its losses. */
  readonly lossTimeline = new LossTimeline();
  readonly flags = new U8Column();
  /** [time, cumulative ACK - first byte] at most every 10 ms: what reached the receiver, for the delivery rate. */
  readonly delivered = { t: new F64Column(16), bytes: new F64Column(16) };
  readonly rttT = { ts: new F64Column(16), seq: new F64Column(16) };
  readonly rttV = { ts: new F64Column(16), seq: new F64Column(16) };

  readonly stats = {
    dataPackets: 0,
    dataBytes: 0,
    retransmittedPackets: 0,
    retransmittedBytes: 0,
    spuriousRetransmissions: 0,
    neededRetransmittedBytes: 0,
    needlessRetransmissions: 0,
    reorderedPackets: 0,
    upstreamLostPackets: 0,
    upstreamLostBytes: 0,
    dsackBlocks: 0,
    dupAcks: 0,
    sackUsed: false,
    maxBif: 0,
    unseenBytes: 0,
    lossEpisodes: [] as LossEpisode[],
  };

  /** Maps a raw 32-bit sequence number to the unwrapped line, nearest to the frontier. */
  unwrap(raw: number): number {
    return this.refAbs + ((raw - this.refRaw) | 0);
  }

  private advanceRef(raw: number, abs: number): void {
    if (abs > this.refAbs) {
      this.refAbs = abs;
      this.refRaw = raw;
    }
  }

  private start(seqRaw: number, syn: boolean, t: number): void {
    this.started = true;
    this.refRaw = seqRaw;
    this.refAbs = TWO32;
    // The SYN occupies one sequence number before the first data byte.
    this.dataStart = syn ? TWO32 + 1 : TWO32;
    this.sndMax = this.dataStart;
    this.cumAck = syn ? TWO32 : TWO32;
    if (syn) this.segments.push(TWO32, TWO32 + 1, t, 0);
  }

  currentBif(): number {
    const acked = Math.max(this.cumAck, this.dataStart);
    return Math.max(0, this.sndMax - acked - this.sacked - this.renoSacked * this.mss);
  }

  private sample(t: number, flags: number): void {
    const b = this.currentBif();
    if (this.inRecovery) flags |= SampleFlag.recovery;
    if (b > 0 && b + this.mss > this.rwnd) flags |= SampleFlag.rwndLimited;
    if (b > this.stats.maxBif) this.stats.maxBif = b;
    this.t.push(t);
    this.bif.push(b);
    this.flags.push(flags);
  }

  /** A segment sent by this side: data, SYN or FIN, or a pure ACK (which only starts the state). */
  onSegment(t: number, seqRaw: number, len: number, tcpFlags: number, tsVal: number, hasTs: boolean): void {
    const syn = (tcpFlags & TcpFlag.syn) !== 0;
    if (!this.started) {
      this.start(seqRaw, syn, t);
    } else if (syn) {
      // A repeated SYN: its handshake RTT sample would be ambiguous (Karn).
      if (this.segments.size > 0 && this.segments.get(0, 0) < this.dataStart) this.segments.set(0, 3, 1);
      return;
    }
    if (hasTs) this.noteTsval(tsVal, t);
    if (syn) return;
    const a = this.unwrap(seqRaw);
    const b = a + len;
    if (len > 0) {
      if (b - this.sndMax > MAX_JUMP || a < this.dataStart - MAX_JUMP) return; // garbage seq: ignore
      const st = this.stats;
      st.dataPackets++;
      st.dataBytes += len;
      this.lossTimeline.onSent(t, len);
      if (len > this.mss) this.mss = len;
      let flags = SampleFlag.dataSend;
      if (a < this.sndMax) {
        const overlapEnd = Math.min(b, this.sndMax);
        const gapFill = removeRange(this.holes, a, overlapEnd);
        if (gapFill > 0) this.onGapFilled(a, overlapEnd, gapFill, t);
        const resent = overlapEnd - Math.max(a, this.dataStart) - gapFill;
        const keepAlive = len <= 1 && a === this.sndMax - 1 && this.cumAck >= this.sndMax;
        if (resent > 0 && !keepAlive) {
          this.onRetransmission(a, overlapEnd, resent, t);
          flags |= SampleFlag.retransmission;
        }
      }
      if (b > this.sndMax) {
        if (a > this.sndMax) {
          addRange(this.holes, this.sndMax, a);
          this.holeTimes.push([this.sndMax, a, t]);
          if (this.holeTimes.length > 4096) this.holeTimes.shift(); // bound memory on a hostile capture
        }
        this.segments.push(Math.max(a, this.sndMax), b, t, 0);
        if (this.segments.size > MAX_TRACKED) this.segments.shift(); // receiver never ACKs: bound memory
        this.sndMax = b;
        this.advanceRef((seqRaw + len) >>> 0, b);
      }
      this.sample(t, flags);
    }
    if (tcpFlags & TcpFlag.fin && Number.isNaN(this.finAbs)) this.finAbs = b;
  }

  /**
   * Bytes that filled a gap in what the capture had seen: reordered before the capture point when
   * the gap was young, else the server's retransmission of bytes lost before the capture point
   * (a loss the sender had, which the capture sees only as a gap).
   */
  private onGapFilled(a: number, end: number, bytes: number, t: number): void {
    let opened = Infinity;
    for (const [hs, he, ht] of this.holeTimes) if (hs < end && he > a) opened = Math.min(opened, ht);
    const window = Number.isFinite(this.minRtt) ? REORDER_RTT_SHARE * this.minRtt : REORDER_DEFAULT_SECONDS;
    if (Number.isFinite(opened) && t - opened <= window) {
      this.stats.reorderedPackets++;
      return;
    }
    this.stats.upstreamLostPackets++;
    this.stats.upstreamLostBytes += bytes;
    this.lossTimeline.onSent(t, bytes); // its first transmission, which never reached the capture
    this.lossTimeline.onLost(t, bytes);
  }

  private onRetransmission(a: number, end: number, bytes: number, t: number): void {
    const st = this.stats;
    st.retransmittedPackets++;
    st.retransmittedBytes += bytes;
    // The cumulative ACK sits inside it now: the receiver is waiting for it.
    const r: Retransmission = { start: a, end, time: t, spurious: false, needed: this.cumAck >= a && this.cumAck < end, bytes };
    this.pending.push(r);
    // Everything it carries was already acknowledged: the receiver had it, so it was needless.
    if (end <= this.cumAck) this.markSpurious(r);
    // Karn: an ACK covering a retransmitted range gives no RTT sample.
    for (let i = 0; i < this.segments.size; i++) {
      if (this.segments.get(i, 1) > a && this.segments.get(i, 0) < end) this.segments.set(i, 3, 1);
    }
    // A timeout: the first unacknowledged byte resent >= RTO_MIN after the cumulative ACK last
    // advanced (duplicate ACKs do not re-arm the timer). A fast retransmit comes within a few
    // duplicate ACKs of the last advance (10-30 ms in the lab's traces, every timeout 0.2-0.6 s);
    // no TLP without SACK.
    const head = a <= Math.max(this.cumAck, this.dataStart);
    const timeout = head && t - this.lastAdvanceTime >= RTO_MIN_SECONDS;
    if (timeout) {
      this.inLoss = true;
      this.renoSacked = 0; // tcp_enter_loss
      this.recoveryPoint = this.sndMax;
    }
    if (!this.inRecovery) {
      this.inRecovery = true;
      this.recoveryPoint = this.sndMax;
      st.lossEpisodes.push({ start: t, end: null, retransmissions: 0 });
    }
    st.lossEpisodes[st.lossEpisodes.length - 1].retransmissions++;
  }

  private noteTsval(v: number, t: number): void {
    this.sentTs = true;
    if (v === this.lastTsval) return;
    this.lastTsval = v;
    this.tsvals.push(v, t);
    if (this.tsvals.size > MAX_TRACKED) this.tsvals.shift(); // bound memory if the peer never echoes
  }

  /**
   * An ACK from the other side for this direction's data. `windowRaw` is the unscaled field
   * (for duplicate-ACK detection), `windowBytes` the scaled one (NaN when the scale is unknown).
   */
  onAck(p: PacketRecord, t: number, windowBytes: number): void {
    if (!this.started) return;
    let ack = this.unwrap(p.ack);
    if (ack > this.sndMax) {
      if (ack === this.finAbs + 1) ack = this.sndMax;
      else if (ack - this.sndMax > MAX_JUMP) return; // not this connection's sequence space
      else {
        // Data the capture never showed was acknowledged.
        this.stats.unseenBytes += ack - this.sndMax;
        this.sndMax = ack;
        this.advanceRef(p.ack, ack);
      }
    }
    this.rwnd = windowBytes;
    const pure = p.payloadLen === 0 && (p.tcpFlags & (TcpFlag.syn | TcpFlag.fin)) === 0;
    const newCum = Math.max(ack, this.cumAck);
    let changed = false;
    let dup = false;
    const hasSack = p.sackCount > 0;
    if (hasSack) changed = this.onSackBlocks(p, newCum);
    if (ack > this.cumAck) {
      this.onCumulativeAck(ack, t, p, hasSack || this.scoreboard.length > 0);
      changed = true;
    } else if (ack === this.cumAck && pure && this.sndMax > this.cumAck && p.window === this.lastWindowRaw) {
      dup = true;
      this.stats.dupAcks++;
      this.markWaitedFor(this.cumAck);
      if (!hasSack && this.scoreboard.length === 0) {
        // tcp_add_reno_sack + tcp_limit_reno_sacked: sacked_out <= packets_out - max(lost_out, 1).
        // lost_out is 1 in fast recovery (the head), but after a timeout every segment sent before
        // it is marked lost, so only segments sent since then can be credited.
        const cap = this.inLoss
          ? Math.ceil(Math.max(0, this.sndMax - Math.max(this.recoveryPoint, this.cumAck)) / Math.max(1, this.mss))
          : this.packetsOut() - 1;
        this.renoSacked = Math.min(this.renoSacked + 1, Math.max(0, cap));
      }
    }
    this.lastWindowRaw = p.window;
    if ((changed || dup) && this.sndMax > this.dataStart) this.sample(t, dup ? SampleFlag.dupAck : 0);
  }

  /** Segments sent and not yet cumulatively acknowledged (the sender's packets_out). */
  private packetsOut(): number {
    const bytes = this.sndMax - Math.max(this.cumAck, this.dataStart);
    if (bytes <= 0) return 0;
    return this.mss > 0 ? Math.ceil(bytes / this.mss) : 1;
  }

  private onCumulativeAck(ack: number, t: number, p: PacketRecord, sackActive: boolean): void {
    const before = this.cumAck;
    this.cumAck = ack;
    this.lastAdvanceTime = t;
    const n = this.delivered.t.length;
    if (n === 0 || t - this.delivered.t.data[n - 1] >= 0.01) {
      this.delivered.t.push(t);
      this.delivered.bytes.push(ack - this.dataStart);
    }
    trimBelow(this.scoreboard, ack);
    this.sacked = coveredBytes(this.scoreboard);
    if (this.holes.length > 0) {
      // Acknowledged ranges the capture never showed: dropped by the capture, or reordered away.
      const before = coveredBytes(this.holes);
      trimBelow(this.holes, ack);
      this.stats.unseenBytes += before - coveredBytes(this.holes);
    }
    // Retransmissions now covered: spurious if the ACK came faster than any round trip could;
    // a real loss if the receiver had been waiting for it (its cumulative ACK stopped inside it).
    for (let i = 0; i < this.pending.length; ) {
      const r = this.pending[i];
      if (r.end > ack) {
        i++;
        continue;
      }
      if (!r.spurious && Number.isFinite(this.minRtt) && t - r.time < this.minRtt) this.markSpurious(r);
      this.resolve(r, t);
      this.pending.splice(i, 1);
      this.resolved.push(r);
      if (this.resolved.length > 256) this.resolved.shift();
    }
    this.markWaitedFor(ack);
    // Seq/ack RTT from the newest fully acked segment, unless ambiguous (Karn) or SACK reordered it.
    let lastTime = -1;
    let ambiguous = false;
    let segmentsAcked = 0;
    while (this.segments.size > 0 && this.segments.get(0, 1) <= ack) {
      lastTime = this.segments.get(0, 2);
      if (this.segments.get(0, 3) !== 0) ambiguous = true;
      if (this.segments.get(0, 0) >= this.dataStart) segmentsAcked++;
      this.segments.shift();
    }
    if (this.renoSacked > 0) {
      if (this.inRecovery && !this.inLoss && ack < this.recoveryPoint) {
        // tcp_remove_reno_sacks on a partial ACK: the first acked segment filled the hole.
        const acked = segmentsAcked > 0 ? segmentsAcked : Math.max(1, Math.round((ack - before) / Math.max(1, this.mss)));
        this.renoSacked = Math.max(0, this.renoSacked - (acked - 1));
      } else {
        this.renoSacked = 0; // tcp_reset_reno_sack
      }
    }
    if (lastTime >= 0 && !ambiguous && !sackActive) this.addRtt('seq', t, t - lastTime);
    if (p.tcpOptions & TcpOpt.timestamps) {
      this.echoedTs = true;
      const echo = p.tsEcr;
      while (this.tsvals.size > 0) {
        const d = (this.tsvals.get(0, 0) - echo) | 0;
        if (d < 0) {
          this.tsvals.shift();
          continue;
        }
        if (d === 0) {
          this.addRtt('ts', t, t - this.tsvals.get(0, 1));
          this.tsvals.shift();
        }
        break;
      }
    }
    if (this.inRecovery && ack >= this.recoveryPoint) {
      this.inRecovery = false;
      this.inLoss = false;
      this.stats.lossEpisodes[this.stats.lossEpisodes.length - 1].end = t;
    }
  }

  /** Returns true when the scoreboard changed. */
  private onSackBlocks(p: PacketRecord, cum: number): boolean {
    this.stats.sackUsed = true;
    let changed = false;
    for (let i = 0; i < p.sackCount; i++) {
      const l = this.unwrap(p.sack[2 * i]);
      const r = this.unwrap(p.sack[2 * i + 1]);
      if (r <= l || r - l > MAX_JUMP) continue;
      // RFC 2883: a first block below the cumulative ACK, or inside the second block, is a D-SACK.
      const dsack =
        i === 0 &&
        (r <= cum || (p.sackCount > 1 && l >= this.unwrap(p.sack[2]) && r <= this.unwrap(p.sack[3])));
      if (dsack) {
        this.stats.dsackBlocks++;
        for (const list of [this.pending, this.resolved]) {
          for (const x of list) if (!x.spurious && x.start < r && x.end > l) this.markSpurious(x);
        }
        continue;
      }
      const s = Math.max(l, cum);
      const e = Math.min(r, this.sndMax);
      if (addRange(this.scoreboard, s, e) > 0) changed = true;
    }
    if (changed) this.sacked = coveredBytes(this.scoreboard) - this.sackedBelow(cum);
    return changed;
  }

  /** Scoreboard bytes below `cum` (trimmed once the cumulative ACK is applied). */
  private sackedBelow(cum: number): number {
    let n = 0;
    for (let i = 0; i < this.scoreboard.length; i += 2) {
      if (this.scoreboard[i] < cum) n += Math.min(cum, this.scoreboard[i + 1]) - this.scoreboard[i];
    }
    return n;
  }

  private markSpurious(r: Retransmission): void {
    r.spurious = true;
    this.stats.spuriousRetransmissions++;
  }

  /** The receiver's cumulative ACK stands at `cum`: a pending retransmission holding it was waited for. */
  private markWaitedFor(cum: number): void {
    for (const r of this.pending) if (r.start <= cum && cum < r.end) r.needed = true;
  }

  /** A retransmission the cumulative ACK now covers is counted as a loss, or as needless. */
  private resolve(r: Retransmission, t: number): void {
    if (r.spurious) return;
    if (r.needed) {
      this.stats.neededRetransmittedBytes += r.bytes;
      this.lossTimeline.onLost(t, r.bytes);
    } else this.stats.needlessRetransmissions++;
  }

  private addRtt(kind: 'ts' | 'seq', t: number, rtt: number): void {
    if (!(rtt >= 0)) return;
    this.rttT[kind].push(t);
    this.rttV[kind].push(rtt);
    if (rtt < this.minRtt && rtt > 0) this.minRtt = rtt;
  }

  /** The RTT samples to report: TCP timestamps when both sides used them, else seq/ack. */
  rttSamples(): { method: RttMethod; t: Float64Array; rtt: Float64Array } {
    const useTs = this.sentTs && this.echoedTs && this.rttV.ts.length > 0;
    const kind = useTs ? 'ts' : 'seq';
    const n = this.rttV[kind].length;
    const method: RttMethod = n === 0 ? 'none' : useTs ? 'timestamps' : this.rttV.seq.length === 1 ? 'handshake' : 'seq-ack';
    return { method, t: this.rttT[kind].toArray(), rtt: this.rttV[kind].toArray() };
  }

  summary(): TcpSenderStats {
    const r = this.rttSamples();
    let min = Infinity;
    for (const x of r.rtt) if (x < min) min = x;
    // Retransmissions still outstanding at the end: a loss if the receiver was waiting for them.
    const pendingNeeded = this.pending.filter((r) => r.needed && !r.spurious).reduce((a, r) => a + r.bytes, 0);
    return {
      ...this.stats,
      neededRetransmittedBytes: this.stats.neededRetransmittedBytes + pendingNeeded,
      lossEpisodes: this.stats.lossEpisodes.map((e) => ({ ...e })),
      uniqueBytes: Math.max(0, this.sndMax - this.dataStart),
      timestampsUsed: this.sentTs && this.echoedTs,
      mss: this.mss,
      rtt: { method: r.method, samples: r.rtt.length, medianSeconds: median(r.rtt), minSeconds: r.rtt.length ? min : NaN },
    };
  }
}

/** Both directions of one TCP connection, plus what the handshake negotiated. */
export class TcpConnection {
  readonly senders: [TcpSender, TcpSender] = [new TcpSender(), new TcpSender()];
  /** Window scale each side announced in its SYN (-1: no option or no SYN seen). */
  private readonly wscale = [-1, -1];
  private readonly synSeen = [false, false];
  /** Each side's SYN offered SACK (RFC 2018): SACK is in use only when both did. */
  readonly sackPermitted = [false, false];
  rsts = 0;

  onPacket(p: PacketRecord, dir: 0 | 1, t: number): void {
    const f = p.tcpFlags;
    if (f & TcpFlag.rst) {
      this.rsts++; // a RST's sequence numbers need not be meaningful
      return;
    }
    if (f & TcpFlag.syn) {
      this.synSeen[dir] = true;
      this.wscale[dir] = p.tcpOptions & TcpOpt.wscale ? p.wscale : -1;
      this.sackPermitted[dir] = (p.tcpOptions & TcpOpt.sackPermitted) !== 0;
    }
    const hasTs = (p.tcpOptions & TcpOpt.timestamps) !== 0;
    this.senders[dir].onSegment(t, p.seq, p.payloadLen, f, p.tsVal, hasTs);
    if (f & TcpFlag.ack) this.senders[1 - dir].onAck(p, t, this.windowBytes(p, dir));
  }

  /** SACK negotiated by both SYNs; null when the capture missed a SYN. */
  sackNegotiated(): boolean | null {
    return this.synSeen[0] && this.synSeen[1] ? this.sackPermitted[0] && this.sackPermitted[1] : null;
  }

  /** The receive window `dir` advertises, in bytes; NaN when its scale is unknown. */
  private windowBytes(p: PacketRecord, dir: 0 | 1): number {
    if (p.tcpFlags & TcpFlag.syn) return p.window; // never scaled in a SYN
    if (!this.synSeen[0] || !this.synSeen[1]) return NaN;
    const scaled = this.wscale[0] >= 0 && this.wscale[1] >= 0;
    return scaled ? p.window * 2 ** this.wscale[dir] : p.window;
  }
}
