/**
 * QUIC's round trip on the server's side of the capture point, read from the server's own ACK
 * frames: a client packet passes the capture point, the server acknowledges it, and the ACK
 * passes the capture point again one server-side round trip (plus the server's ACK delay) later.
 * As RFC 9002's min_rtt (section 5.2): the smallest sample, each taken when an ACK frame newly
 * acknowledges a larger packet number in its space, without the ACK delay taken off (a delay the
 * peer reports is not checked, and a minimum needs only one prompt ACK).
 *
 * WHY: without keys the trace can only pair a client datagram with the server's next one
 * (conditions.ts quicServerSideRtt), and a server's datagrams are not all replies: its data
 * already on the way, a probe timeout, or its next handshake flight after TLS work pass the
 * capture point just after a client datagram. In the lab rounds of sessions 47-49, 44 of 95 QUIC
 * flows read a server-side round trip under 0.8 of the path's (1-45 ms for 55-135 ms), which put
 * most of the round trip in front of the capture point and the flow in the wrong place among the
 * trained conditions (envelope.ts visible share); no TCP flow of 593 did (TCP pairs SYN and SYN-ACK).
 */
import type { DecodedPacket } from './decoder.js';

/** Seconds, or null when no server ACK frame acknowledged a client packet the capture holds. */
export function serverSideRttFromAcks(packets: readonly DecodedPacket[]): number | null {
  // When each client packet first passed the capture point, per space: `${space}:${pn}`.
  const passed = new Map<string, number>();
  const largestAcked = [-1, -1, -1];
  let best = Infinity;
  for (const p of packets) {
    if (!p.fromServer) {
      const key = `${p.space}:${p.pn}`;
      if (!p.guessed && !passed.has(key)) passed.set(key, p.t);
      continue;
    }
    for (const ack of p.frames?.acks ?? []) {
      if (ack.largest <= largestAcked[p.space]) continue;
      largestAcked[p.space] = ack.largest;
      const sent = passed.get(`${p.space}:${ack.largest}`);
      if (sent !== undefined && p.t >= sent) best = Math.min(best, p.t - sent);
    }
  }
  return Number.isFinite(best) ? best : null;
}
