/**
 * The server's bytes in flight as its own loss recovery computes it (RFC 9002), replayed from
 * the decrypted packets: every server packet in flight (ack-eliciting or padded) adds its size;
 * the client's ACK frames remove what they newly acknowledge; loss detection (packet threshold
 * 3, time threshold 9/8 x max(smoothed RTT, latest RTT), on ACKs and on the loss timer)
 * removes what the server declares lost; discarding Initial / Handshake keys removes what
 * remains of those spaces (RFC 9002 section 6.4). One state per packet-number space.
 *
 * At-ACK values (`SenderSeries.atAck`, quinn's `bytes_in_flight_at_ack`) follow the server's
 * order of events, not the capture's: an ACK seen at t is processed at sent-clock t + d, so
 * packets the capture sees in (t, t + d) had already left and are in the server's count.
 *
 * Clock: the capture sits between server and client, so the server sends a packet d/2 before
 * the capture sees it and gets an ACK d/2 after (d = `senderPathRttSeconds`, the server-to-
 * capture round trip, 0 when unknown). Internally a "sent clock" = server time + d/2: a send
 * seen at capture time t happened at sent-clock t, an ACK seen at t is processed at t + d. The
 * output series keeps capture times (sends at t, ACK-side steps at sent-clock - d), the shape
 * the classifier and the heuristic use.
 */
import { LossTimeline } from '../loss-timeline.js';
import { SampleFlag } from '../tcp-bif.js';
import type { LossCheckpoint } from '../types.js';
import type { DecodedPacket } from './decoder.js';
import type { AckFrame } from './frames.js';
import type { Space } from './packet.js';

export interface RecoveryOptions {
  senderPathRttSeconds?: number;
  /** The client's max_ack_delay transport parameter (RFC 9000 default 25 ms; not visible in a cut capture). */
  maxAckDelaySeconds?: number;
  /** The client's ack_delay_exponent (default 3). */
  ackDelayExponent?: number;
  packetThreshold?: number;
  timeThreshold?: number;
  /** RTT assumed before the first sample (RFC 9002 kInitialRtt, 333 ms). */
  initialRttSeconds?: number;
  /** Diagnostics: every packet acknowledged or declared lost. */
  onEvent?: (e: RecoveryEvent) => void;
}

/** A packet leaving the replay's flight (diagnostics). */
export interface RecoveryEvent {
  kind: 'acked' | 'lost-count' | 'lost-time';
  /** Capture clock (ACK side) of the decision. */
  t: number;
  space: Space;
  pn: number;
  size: number;
  /** Bytes in flight after it. */
  bif: number;
  /** Declared by the loss timer rather than on an ACK. */
  byTimer?: boolean;
  /** The RTT state the decision used (seconds; NaN before the first sample). */
  srtt: number;
  latestRtt: number;
  /** Capture time the packet was seen sent. */
  sentT: number;
}

interface Sent {
  pn: number;
  /** Capture time the packet was seen (the sent-time clock). */
  t: number;
  size: number;
  inFlight: boolean;
  ackEliciting: boolean;
}

class SpaceState {
  /** Outstanding packets in the order the capture saw them (a reordered one comes late; nothing relies on the order). */
  readonly sent = new Map<number, Sent>();
  /** Packet numbers read from the capture so far: one seen again is the capture's duplicate, even after it left the flight. */
  readonly seen = new Set<number>();
  /** Highest packet number read: a lower one read after it was reordered before the capture. */
  largestSent = -1;
  largestAcked = -1;
  /** Ack-clock time at which the earliest outstanding packet below largestAcked times out. */
  lossTime = Infinity;
  discarded = false;
}

/** Sample flags: the first two are SampleFlag's bits (src/trace/tcp-bif.ts), so they pass through. */
export const RecoveryFlag = {
  /** Within a recovery period (a loss declared, no packet sent after it acknowledged yet). */
  recovery: SampleFlag.recovery,
  /** Sample after a server packet (the classifier's and the validation's "data send"). */
  dataSend: SampleFlag.dataSend,
  /** Losses declared by the server's loss timer, not on an ACK (the validation times these apart). */
  lossTimer: 64,
} as const;

export interface RecoveryStats {
  sentPackets: number;
  inFlightPackets: number;
  sentBytes: number;
  ackedPackets: number;
  lostPackets: number;
  lostBytes: number;
  /** Losses declared by packet threshold / by time threshold (on an ACK or by the timer). */
  lostByPacketThreshold: number;
  lostByTime: number;
  /** Bytes removed when Initial / Handshake keys were discarded. */
  discardedBytes: number;
  /** ACK frames processed / those that newly acknowledged something. */
  ackFrames: number;
  ackFramesNewlyAcking: number;
  /**
   * Server packets the capture saw after a higher-numbered one of their space. A QUIC sender
   * numbers its packets in sending order and never reuses a number, so each is reordering on the
   * path before the capture point (no retransmission can look like one, unlike TCP).
   */
  reorderedPackets: number;
  rttSamples: number[];
  smoothedRtt: number;
  minRtt: number;
}

export interface SenderSeries {
  t: Float64Array;
  bif: Float64Array;
  flags: Uint8Array;
  /** Bytes in flight right after each ACK frame's newly acknowledged packets are removed, before loss detection. */
  atAck: { t: Float64Array; bif: Float64Array };
  stats: RecoveryStats;
  /** Sent and lost bytes every half second (capture clock), so a cut trace can recount its losses. */
  lossCheckpoints: LossCheckpoint[];
}

/** Whether a server packet counts toward bytes in flight. */
export function countsInFlight(p: DecodedPacket): boolean {
  const f = p.frames;
  if (!f) return true; // undecryptable: a server packet is almost always data
  if (f.ackEliciting || f.padding) return true;
  // All frames read and none was ack-eliciting: an ACK-only (or CONNECTION_CLOSE) packet. A cut
  // payload whose visible part is only ACKs: large packets carry data after them.
  return !f.complete;
}

export class SenderRecovery {
  private readonly spaces = [new SpaceState(), new SpaceState(), new SpaceState()];
  private readonly d: number;
  private readonly maxAckDelay: number;
  private readonly ackDelayUnit: number;
  private readonly packetThreshold: number;
  private readonly timeThreshold: number;
  private srtt = NaN;
  private rttvar = NaN;
  private minRtt = Infinity;
  private latestRtt = NaN;
  private readonly initialRtt: number;
  private readonly onEvent: RecoveryOptions['onEvent'];
  private bif = 0;
  private readonly lossTimeline = new LossTimeline();
  /** Sent-clock time of the start of the current recovery period (-Infinity: none). */
  private recoveryStart = -Infinity;
  private readonly t: number[] = [];
  private readonly v: number[] = [];
  private readonly f: number[] = [];
  private readonly ackT: number[] = [];
  private readonly ackV: number[] = [];
  /** At-ACK snapshots (indices into ackT/ackV) whose ACK the server had not yet processed when the latest send was seen. */
  private pendingAtAck = 0;
  readonly stats: RecoveryStats = {
    sentPackets: 0, inFlightPackets: 0, sentBytes: 0, ackedPackets: 0, lostPackets: 0, lostBytes: 0,
    lostByPacketThreshold: 0, lostByTime: 0, discardedBytes: 0, ackFrames: 0, ackFramesNewlyAcking: 0, reorderedPackets: 0,
    rttSamples: [], smoothedRtt: NaN, minRtt: NaN,
  };

  constructor(o: RecoveryOptions = {}) {
    this.d = o.senderPathRttSeconds ?? 0;
    this.maxAckDelay = o.maxAckDelaySeconds ?? 0.025;
    this.ackDelayUnit = 2 ** (o.ackDelayExponent ?? 3) * 1e-6;
    this.packetThreshold = o.packetThreshold ?? 3;
    this.timeThreshold = o.timeThreshold ?? 9 / 8;
    this.initialRtt = o.initialRttSeconds ?? 0.333;
    this.onEvent = o.onEvent;
  }

  /**
   * A server packet seen at the capture. `pnRead`: its number was read (opened with the key log),
   * not guessed: only such numbers tell reordering and duplicates (a packet that failed to open
   * may carry a garbage number far above the real ones).
   */
  onSent(t: number, space: Space, pn: number, size: number, inFlight: boolean, ackEliciting: boolean, pnRead = true): void {
    this.fireTimers(t); // a send seen at t left the server at sent-clock t
    const s = this.spaces[space];
    if (s.discarded) return;
    if (s.sent.has(pn)) return; // a duplicate in the capture
    if (pnRead) {
      if (s.seen.has(pn)) return; // ... of a packet already acknowledged or declared lost
      s.seen.add(pn);
      if (pn < s.largestSent) this.stats.reorderedPackets++;
      else s.largestSent = pn;
    }
    s.sent.set(pn, { pn, t, size, inFlight, ackEliciting });
    this.stats.sentPackets++;
    this.stats.sentBytes += size;
    this.lossTimeline.onSent(t, size);
    if (inFlight) {
      this.stats.inFlightPackets++;
      this.bif += size;
      // The server processes an ACK seen at capture time ta at sent-clock ta + d, so a packet
      // seen in (ta, ta + d) left before that ACK was processed: the server's at-ACK count holds it.
      while (this.pendingAtAck < this.ackT.length && this.ackT[this.pendingAtAck] + this.d <= t) this.pendingAtAck++;
      for (let k = this.pendingAtAck; k < this.ackT.length; k++) this.ackV[k] += size;
    }
    this.sample(t, RecoveryFlag.dataSend);
  }

  /** One ACK frame from the client, seen at the capture at time t. */
  onAck(t: number, space: Space, ack: AckFrame): void {
    const now = t + this.d; // the server processes it d/2 after the capture: sent-clock t + d
    this.fireTimers(now);
    const s = this.spaces[space];
    if (s.discarded) return;
    this.stats.ackFrames++;
    let largestNewlyAcked: Sent | undefined;
    let ackElicitingAcked = false;
    let newly = 0;
    for (const r of ack.ranges) {
      // Walk whichever is smaller: the range, or what is outstanding.
      if (r.hi - r.lo + 1 <= s.sent.size) {
        for (let pn = r.lo; pn <= r.hi; pn++) {
          const p = s.sent.get(pn);
          if (p) {
            this.acked(s, p, t, space);
            newly++;
            ackElicitingAcked ||= p.ackEliciting;
            if (pn === ack.largest) largestNewlyAcked = p;
          }
        }
      } else {
        for (const p of [...s.sent.values()]) {
          if (p.pn < r.lo || p.pn > r.hi) continue;
          this.acked(s, p, t, space);
          newly++;
          ackElicitingAcked ||= p.ackEliciting;
          if (p.pn === ack.largest) largestNewlyAcked = p;
        }
      }
    }
    if (ack.largest > s.largestAcked) s.largestAcked = ack.largest;
    if (newly === 0) {
      this.sample(t, 0);
      return;
    }
    this.stats.ackFramesNewlyAcking++;
    this.ackT.push(t);
    this.ackV.push(this.bif);
    if (largestNewlyAcked && ackElicitingAcked) {
      const ackDelay = space === 2 ? Math.min(ack.delay * this.ackDelayUnit, this.maxAckDelay) : 0;
      this.updateRtt(now - largestNewlyAcked.t, ackDelay);
    }
    // A packet sent after the recovery period began is acknowledged: the period ends.
    if (largestNewlyAcked && largestNewlyAcked.t > this.recoveryStart) this.recoveryStart = -Infinity;
    this.detectLoss(s, now);
    this.sample(t, 0);
  }

  /** Keys of a space discarded: what remains of it leaves bytes in flight (RFC 9002 6.4). */
  discard(t: number, space: Space): void {
    this.fireTimers(t + this.d);
    const s = this.spaces[space];
    if (s.discarded) return;
    s.discarded = true;
    for (const p of s.sent.values()) {
      if (!p.inFlight) continue;
      this.bif -= p.size;
      this.stats.discardedBytes += p.size;
    }
    s.sent.clear();
    s.lossTime = Infinity;
    this.sample(t, 0);
  }

  /**
   * Runs the loss timer up to sent-clock time `now` (timers that fired between packets); the
   * loss shows in the series on the ACK side's capture clock (sent clock - d).
   */
  fireTimers(now: number): void {
    for (;;) {
      let next: SpaceState | undefined;
      for (const s of this.spaces) if (s.lossTime < (next?.lossTime ?? Infinity)) next = s;
      if (!next || next.lossTime > now) return;
      const at = next.lossTime;
      this.detectLoss(next, at, true);
      this.sample(at - this.d, RecoveryFlag.lossTimer);
    }
  }

  finish(): SenderSeries {
    const st = this.stats;
    st.smoothedRtt = this.srtt;
    st.minRtt = Number.isFinite(this.minRtt) ? this.minRtt : NaN;
    return {
      t: Float64Array.from(this.t),
      bif: Float64Array.from(this.v),
      flags: Uint8Array.from(this.f),
      atAck: { t: Float64Array.from(this.ackT), bif: Float64Array.from(this.ackV) },
      stats: st,
      lossCheckpoints: this.lossTimeline.checkpoints,
    };
  }

  private acked(s: SpaceState, p: Sent, t: number, space: Space): void {
    s.sent.delete(p.pn);
    if (p.inFlight) this.bif -= p.size;
    this.stats.ackedPackets++;
    this.onEvent?.({ kind: 'acked', t, space, pn: p.pn, size: p.size, bif: this.bif, srtt: this.srtt, latestRtt: this.latestRtt, sentT: p.t });
  }

  /** RFC 9002 section 5.3. */
  private updateRtt(latest: number, ackDelay: number): void {
    this.latestRtt = latest;
    this.stats.rttSamples.push(latest);
    if (!(this.minRtt <= latest)) this.minRtt = latest;
    if (Number.isNaN(this.srtt)) {
      this.srtt = latest;
      this.rttvar = latest / 2;
      return;
    }
    const adjusted = latest >= this.minRtt + ackDelay ? latest - ackDelay : latest;
    this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - adjusted);
    this.srtt = 0.875 * this.srtt + 0.125 * adjusted;
  }

  /** RFC 9002 section 6.1 (DetectAndRemoveLostPackets), at sent-clock time `now`. */
  private detectLoss(s: SpaceState, now: number, byTimer = false): void {
    s.lossTime = Infinity;
    if (s.largestAcked < 0) return;
    const rtt = Number.isNaN(this.srtt) ? this.initialRtt : Math.max(this.latestRtt, this.srtt);
    const lossDelay = Math.max(this.timeThreshold * rtt, 0.001);
    let lost = false;
    for (const p of [...s.sent.values()]) {
      if (p.pn > s.largestAcked) continue;
      const byCount = s.largestAcked >= p.pn + this.packetThreshold;
      // The same sum as the timer's deadline below, so a fired timer always declares its packet.
      const byTime = p.t + lossDelay <= now;
      if (byCount || byTime) {
        s.sent.delete(p.pn);
        if (p.inFlight) {
          this.bif -= p.size;
          lost = true;
        }
        this.stats.lostPackets++;
        this.stats.lostBytes += p.size;
        this.lossTimeline.onLost(now - this.d, p.size);
        if (byCount) this.stats.lostByPacketThreshold++;
        else this.stats.lostByTime++;
        this.onEvent?.({
          kind: byCount ? 'lost-count' : 'lost-time', t: now - this.d, space: this.spaces.indexOf(s) as Space, pn: p.pn, size: p.size, bif: this.bif,
          byTimer, srtt: this.srtt, latestRtt: this.latestRtt, sentT: p.t,
        });
      } else {
        s.lossTime = Math.min(s.lossTime, p.t + lossDelay);
      }
    }
    if (lost && this.recoveryStart === -Infinity) this.recoveryStart = now;
  }

  private sample(t: number, flags: number): void {
    // Timer samples can fall a hair before the previous event: keep the series ascending.
    const last = this.t.length ? this.t[this.t.length - 1] : -Infinity;
    this.t.push(t < last ? last : t);
    this.v.push(this.bif < 0.5 ? 0 : this.bif);
    this.f.push(flags | (this.recoveryStart !== -Infinity ? RecoveryFlag.recovery : 0));
  }
}

/**
 * Replays a connection's decoded packets through the server's recovery. Initial keys go when
 * the client's first Handshake packet arrives, Handshake keys when the handshake is confirmed
 * (the client's Finished, or failing that its first 1-RTT packet) - as the server does.
 */
export function replaySender(packets: DecodedPacket[], o: RecoveryOptions = {}): SenderSeries {
  const r = new SenderRecovery(o);
  let handshakeConfirmed = false;
  for (const p of packets) {
    if (p.fromServer) {
      r.onSent(p.t, p.space, p.pn, p.size, countsInFlight(p), p.frames?.ackEliciting ?? true, !p.guessed && !p.problem);
      continue;
    }
    for (const a of p.frames?.acks ?? []) r.onAck(p.t, p.space, a);
    if (p.type === 'handshake') r.discard(p.t, 0);
    const finished = p.type === 'handshake' && (p.frames?.crypto.length ?? 0) > 0;
    if (!handshakeConfirmed && (finished || p.type === 'short')) {
      handshakeConfirmed = true;
      r.discard(p.t, 0);
      r.discard(p.t, 1);
    }
  }
  return r.finish();
}
