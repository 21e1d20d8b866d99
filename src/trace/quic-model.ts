/**
 * QUIC bytes in flight without keys, from a model of the bottleneck the capture sits in front
 * of ('bottleneck-model'). ccbrowse built that bottleneck, so it knows it exactly: every server
 * datagram the capture sees next enters the flow's own HTB class (token bucket of `rateKbit`,
 * byte-limited FIFO of `bufferBytes`) and a constant delay, and every client datagram the capture
 * sees left the client one delay earlier. Replaying the queue tells, for each client datagram,
 * which server datagrams had reached the client when it was sent (all of them are acknowledged:
 * QUIC ACK frames carry ranges) and which were dropped in the queue (never acknowledged). Those
 * synthetic ACK frames go through the same RFC 9002 sender replay as the key-log method
 * (src/trace/quic/recovery.ts), so loss detection and its timing are the server's.
 *
 * Nebby's heuristic (quic-bif.ts) assumes each client datagram acknowledges an equal share of
 * the data; clients acknowledge every second packet or on a timer, so it drifts. This model
 * needs no such assumption, only the bottleneck's parameters; foreign captures, where they are
 * unknown, keep the heuristic.
 */
import type { DecodedPacket } from './quic/decoder.js';
import type { AckFrame, FrameSummary } from './quic/frames.js';
import { replaySender, type RecoveryOptions, type SenderSeries } from './quic/recovery.js';
import type { QuicEvents } from './quic-bif.js';

/** The bottleneck between the capture point and the client (a ccbrowse network profile). */
export interface BottleneckModel {
  rateKbit: number;
  /** Byte limit of the per-flow FIFO (bfifo counts frames with their Ethernet header). */
  bufferBytes: number;
  /** Added one-way delay, each direction. */
  delaySeconds: number;
  /** HTB burst in bytes (tokens an idle class may save); default one full frame. */
  burstBytes?: number;
}

/** Bytes a datagram occupies in the queue: UDP payload + UDP + IP + Ethernet headers. */
export function frameBytes(udpPayload: number, ipVersion: 4 | 6): number {
  return udpPayload + 8 + (ipVersion === 6 ? 40 : 20) + 14;
}

/**
 * Departure times (seconds, same clock as `arrivals`) of packets through an HTB class feeding
 * a byte-limited FIFO; NaN for packets the FIFO dropped. HTB lets the head packet go whenever
 * the class's tokens are not negative and then charges its length (tokens may go negative),
 * so back-to-back packets leave one serialization time of the previous packet apart.
 */
export function queueDepartures(arrivals: ArrayLike<number>, frames: ArrayLike<number>, b: BottleneckModel): Float64Array {
  const n = arrivals.length;
  const rate = (b.rateKbit * 1000) / 8; // bytes per second
  const burst = b.burstBytes ?? 1514;
  const out = new Float64Array(n).fill(NaN);
  let tokens = burst;
  let tokensAt = -Infinity;
  // Waiting packets (indices) in FIFO order; `head` is the next to leave.
  const queue: number[] = [];
  let head = 0;
  let backlog = 0;
  const tokensAtTime = (t: number) => (tokensAt === -Infinity ? burst : Math.min(burst, tokens + rate * (t - tokensAt)));
  /** Sends every waiting packet that can leave by time `until`. */
  const drain = (until: number) => {
    while (head < queue.length) {
      const i = queue[head];
      const ready = Math.max(arrivals[i], tokensAt);
      const available = tokensAtTime(ready);
      const leave = available >= 0 ? ready : ready + -available / rate;
      if (leave > until) return;
      tokens = tokensAtTime(leave) - frames[i];
      tokensAt = leave;
      out[i] = leave;
      backlog -= frames[i];
      head++;
    }
  };
  for (let i = 0; i < n; i++) {
    drain(arrivals[i]);
    if (backlog + frames[i] > b.bufferBytes) continue; // tail drop
    queue.push(i);
    backlog += frames[i];
    drain(arrivals[i]);
  }
  drain(Infinity);
  return out;
}

const DATA_FRAMES: FrameSummary = { ackEliciting: true, padding: false, close: false, acks: [], crypto: [], types: [], complete: true };

export interface QuicModelResult {
  series: SenderSeries;
  /** Server datagrams the model says the queue dropped. */
  droppedInQueue: number;
  serverPackets: number;
  clientPackets: number;
}

/**
 * The server's bytes in flight under the bottleneck model. Events are the connection's
 * datagrams as captured (time order); every server datagram is numbered as one packet of one
 * number space and counted in flight (ACK-only server packets are small and get acknowledged
 * with the next ACK anyway).
 */
export function quicModelBif(ev: QuicEvents, b: BottleneckModel, ipVersion: 4 | 6, opts: RecoveryOptions = {}): QuicModelResult {
  const n = ev.t.length;
  const server: number[] = [];
  for (let i = 0; i < n; i++) if (ev.fromServer[i]) server.push(i);
  const arrivals = server.map((i) => ev.t[i]);
  const frames = server.map((i) => frameBytes(ev.bytes[i], ipVersion));
  const departures = queueDepartures(arrivals, frames, b);
  // A packet reached the client at departure + delay. Clients acknowledge within a fraction of
  // a millisecond of the packet that triggers an ACK (measured on the lab: allowing even 0.5 ms
  // of slack for the model's timing lost accuracy), so a client datagram acknowledges exactly
  // what had arrived when it left.
  const packets: DecodedPacket[] = [];
  let pn = 0;
  let delivered = 0; // server packets (by number) up to which deliveries have been considered
  const deliveredSet: number[] = []; // packet numbers delivered, ascending
  let clientPackets = 0;
  const deliveredBy = server.map((_, k) => departures[k] + b.delaySeconds);
  for (let i = 0; i < n; i++) {
    if (ev.fromServer[i]) {
      packets.push({ datagram: i, t: ev.t[i], fromServer: true, type: 'short', space: 2, pn: pn++, size: ev.bytes[i], frames: DATA_FRAMES, verified: false, guessed: true });
      continue;
    }
    clientPackets++;
    const clientSent = ev.t[i] - b.delaySeconds;
    // Deliveries happen in packet-number order, so a cursor suffices; dropped ones are skipped.
    while (delivered < pn) {
      const at = deliveredBy[delivered];
      if (Number.isNaN(at)) { delivered++; continue; }
      if (at > clientSent) break;
      deliveredSet.push(delivered);
      delivered++;
    }
    const ack = ackFrameOf(deliveredSet);
    packets.push({
      datagram: i, t: ev.t[i], fromServer: false, type: 'short', space: 2, pn: clientPackets - 1, size: ev.bytes[i],
      frames: { ...DATA_FRAMES, acks: ack ? [ack] : [] }, verified: false, guessed: true,
    });
  }
  const series = replaySender(packets, opts);
  let droppedInQueue = 0;
  for (const d of departures) if (Number.isNaN(d)) droppedInQueue++;
  return { series, droppedInQueue, serverPackets: server.length, clientPackets };
}

/** How far back an ACK frame reaches: older packets are acknowledged or declared lost by then. */
const ACK_WINDOW = 256;

/** An ACK frame for the delivered packet numbers (ascending), covering the recent window. */
export function ackFrameOf(deliveredAscending: number[]): AckFrame | undefined {
  if (deliveredAscending.length === 0) return undefined;
  const ranges: AckFrame['ranges'] = [];
  let k = deliveredAscending.length - 1;
  const floor = deliveredAscending[k] - ACK_WINDOW;
  while (k >= 0 && deliveredAscending[k] >= floor) {
    const hi = deliveredAscending[k];
    let lo = hi;
    // Stop at the window's floor: a long unbroken run must not be walked back to packet 0 on
    // every ACK (that made the replay quadratic in the trace's length).
    while (k > 0 && lo - 1 >= floor && deliveredAscending[k - 1] === lo - 1) { k--; lo--; }
    ranges.push({ lo, hi });
    k--;
  }
  return { largest: ranges[0].hi, delay: 0, ranges };
}
