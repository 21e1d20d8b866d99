/**
 * QUIC's round trip on the server's side of the capture point, read from the server's own ACK
 * frames: a client packet passes the capture point, the server acknowledges it, and the ACK
 * passes the capture point again one server-side round trip (plus the server's ACK delay) later.
 * Like RFC 9002's min_rtt: the smallest sample, each taken when an ACK frame's largest
 * acknowledged packet number is larger than any before in its space, from that client packet's
 * passing; the ACK delay is not taken off (a delay the peer reports is not checked, and a
 * minimum needs only one prompt ACK). RFC 9002 also wants a newly acknowledged packet to be
 * ack-eliciting; without that check a sample can only be later, never earlier.
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
  // When each readable client packet first passed the capture point, per space.
  const passed: Array<Map<number, number>> = [new Map(), new Map(), new Map()];
  // The largest client packet number seen per space (guessed ones too): an ACK above it
  // acknowledges a packet that never passed here (garbage, or a packet the capture missed).
  const largestSent = [-1, -1, -1];
  const largestAcked = [-1, -1, -1];
  let best = Infinity;
  for (const p of packets) {
    if (!p.fromServer) {
      largestSent[p.space] = Math.max(largestSent[p.space], p.pn);
      // A number that was guessed, or read from a packet that would not open, is not trusted.
      if (!p.guessed && !p.problem && !passed[p.space].has(p.pn)) passed[p.space].set(p.pn, p.t);
      continue;
    }
    for (const ack of p.frames?.acks ?? []) {
      if (ack.largest <= largestAcked[p.space] || ack.largest > largestSent[p.space]) continue;
      largestAcked[p.space] = ack.largest;
      const sent = passed[p.space].get(ack.largest);
      if (sent !== undefined && p.t >= sent) best = Math.min(best, p.t - sent);
    }
  }
  return Number.isFinite(best) ? best : null;
}
