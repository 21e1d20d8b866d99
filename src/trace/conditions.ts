/**
 * The conditions a flow was captured under, read from the capture itself: what a verdict needs
 * to know to say whether the classifier has seen such conditions (issue 16). Our own runs know
 * their bottleneck; a foreign capture (taken elsewhere, behind another bottleneck, maybe with
 * SACK off or from another vantage point) only tells through its packets:
 *  - transport, segment size, SACK (negotiated in the SYNs, or seen in use);
 *  - the round trips on each side of the capture point (the opening exchange): the share of the
 *    path behind the capture point is the share of the sender's bytes in flight it can see
 *    (Nebby: x/(x+20) of the pipe for x ms added after the capture point);
 *  - the delivery rate (what the bottleneck passed, from the ACKs) and the window it allows in
 *    packets of the flow's own segment size (the BDP in packets, which sets how a shape looks);
 *  - reordering and loss before the capture point, and how much of what the sender resent was
 *    really lost (go-back-N and spurious resends are not); for QUIC, reordering only (its packet
 *    numbers, when the key log lets them be read).
 */
import type { FlowConditions } from './types.js';

export type { FlowConditions };

/** 90th percentile of the rate over windows of `window` seconds, from cumulative-bytes samples. */
export function busiestRate(t: ArrayLike<number>, bytes: ArrayLike<number>, window: number): number | null {
  const rates: number[] = [];
  let j = 0;
  for (let i = 0; i < t.length; i++) {
    if (j < i) j = i;
    while (j < t.length && t[j] - t[i] < window) j++;
    if (j >= t.length) break;
    rates.push((bytes[j] - bytes[i]) / (t[j] - t[i]));
  }
  if (rates.length === 0) return null;
  rates.sort((a, b) => a - b);
  return rates[Math.min(rates.length - 1, Math.floor(0.9 * rates.length))];
}

const round = (x: number | null, digits = 4): number | null => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

export function visibleShareOf(server: number | null, client: number | null): number | null {
  if (server === null || client === null || !(server + client > 0)) return null;
  return client / (server + client);
}

export interface ConditionInputs {
  transport: 'tcp' | 'quic';
  segmentBytes: number;
  sack: boolean | null;
  rttSeconds: number;
  minRttSeconds: number;
  opening: { serverSeconds: number; clientSeconds: number } | null;
  /** Delivered payload bytes per second at the busiest, or null. */
  deliveryBytesPerSecond: number | null;
  tcp?: { dataPackets: number; dataBytes: number; reorderedPackets: number; upstreamLostBytes: number; upstreamLostPackets: number; retransmittedPackets: number; needlessResends: number };
  /** QUIC with its packets read (key log): the server's packets and those seen after a higher-numbered one. */
  quic?: { sentPackets: number; reorderedPackets: number };
  bifMethod: NonNullable<FlowConditions['bifMethod']>;
}

export function flowConditions(c: ConditionInputs): FlowConditions {
  const server = c.opening?.serverSeconds ?? null;
  const client = c.opening?.clientSeconds ?? null;
  const rate = c.deliveryBytesPerSecond;
  const minRtt = Number.isFinite(c.minRttSeconds) && c.minRttSeconds > 0 ? c.minRttSeconds : null;
  const tcp = c.tcp;
  return {
    transport: c.transport,
    segmentBytes: Math.round(c.segmentBytes),
    sack: c.sack,
    rttSeconds: round(c.rttSeconds, 6) ?? 0,
    minRttSeconds: round(c.minRttSeconds, 6) ?? 0,
    serverSideRttSeconds: round(server, 6),
    clientSideRttSeconds: round(client, 6),
    visibleShare: round(visibleShareOf(server, client), 3),
    deliveryKbit: round(rate === null ? null : (rate * 8) / 1000, 1),
    bdpPackets: round(rate !== null && minRtt !== null && c.segmentBytes > 0 ? (rate * minRtt) / c.segmentBytes : null, 1),
    reorderShare: tcp ? round(tcp.dataPackets > 0 ? tcp.reorderedPackets / tcp.dataPackets : 0)
      : c.quic ? round(c.quic.sentPackets > 0 ? c.quic.reorderedPackets / c.quic.sentPackets : 0) : null,
    // Six places: against a large window (envelope.ts upstreamLossAgainstWindow) one in 10^5 matters.
    upstreamLossShare: tcp ? round(tcp.dataBytes + tcp.upstreamLostBytes > 0 ? tcp.upstreamLostBytes / (tcp.dataBytes + tcp.upstreamLostBytes) : 0, 6) : null,
    needlessResendShare: tcp ? round(tcp.retransmittedPackets > 0 ? tcp.needlessResends / tcp.retransmittedPackets : 0, 3) : null,
    // A resend that filled a gap (a loss before the capture point) is a resend too.
    resentPackets: tcp ? tcp.retransmittedPackets + tcp.upstreamLostPackets : null,
    bifMethod: c.bifMethod,
  };
}

/**
 * QUIC's round trip on the server's side of the capture point: the shortest wait from a client
 * datagram to the server's next one, among client datagrams that found the server silent for two
 * of the client side's round trips (so the reply answers that datagram, not an earlier one).
 * WHY not just the opening exchange, as for TCP: a QUIC server answers the Initial only after its
 * TLS work (the lab's Python stack took 1-1.7 s), while a request on an idle connection is
 * answered at once.
 */
export function quicServerSideRtt(ev: { t: ArrayLike<number>; fromServer: ArrayLike<number> }, clientSideRtt: number): number | null {
  if (!(clientSideRtt > 0)) return null;
  let best = Infinity;
  let lastServer = -Infinity;
  for (let i = 0; i < ev.t.length; i++) {
    if (ev.fromServer[i]) {
      lastServer = ev.t[i];
      continue;
    }
    if (ev.t[i] - lastServer < 2 * clientSideRtt) continue;
    for (let j = i + 1; j < ev.t.length; j++) {
      if (ev.fromServer[j]) {
        best = Math.min(best, ev.t[j] - ev.t[i]);
        break;
      }
    }
  }
  return Number.isFinite(best) ? best : null;
}

/** Frame bytes per TCP segment beyond its payload: IP 20 + TCP 20 + timestamps 12 + Ethernet 14. */
const TCP_FRAME_OVERHEAD = 66;
/** ... and per QUIC datagram: IP 20 + UDP 8 + Ethernet 14. */
const UDP_FRAME_OVERHEAD = 42;

/**
 * The conditions with the delivery rate and BDP of a bottleneck the caller knows (our own runs
 * record the profile they ran behind). WHY: a browser's flow is often paused by its page (a
 * player fetching a segment at a time), so what it delivered is below what the path allows,
 * and its BDP in segments would read smaller than the one its window really met.
 */
export function withKnownBottleneck(c: FlowConditions, rateKbit: number): FlowConditions {
  if (!(rateKbit > 0) || !(c.segmentBytes > 0)) return c;
  const overhead = c.transport === 'tcp' ? TCP_FRAME_OVERHEAD : UDP_FRAME_OVERHEAD;
  const payloadBytesPerSecond = ((rateKbit * 1000) / 8) * (c.segmentBytes / (c.segmentBytes + overhead));
  return {
    ...c,
    deliveryKbit: round((payloadBytesPerSecond * 8) / 1000, 1),
    bdpPackets: round(c.minRttSeconds > 0 ? (payloadBytesPerSecond * c.minRttSeconds) / c.segmentBytes : null, 1),
  };
}

/** A series whose conditions carry the run's known bottleneck rate (unchanged without a rate or conditions). */
export function seriesAtKnownRate<S extends { conditions?: FlowConditions }>(series: S, rateKbit: number | undefined): S {
  return series.conditions && rateKbit ? { ...series, conditions: withKnownBottleneck(series.conditions, rateKbit) } : series;
}
