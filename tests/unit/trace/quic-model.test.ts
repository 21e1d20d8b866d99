import { describe, expect, it } from 'vitest';
import { ackFrameOf, frameBytes, queueDepartures, quicModelBif, type BottleneckModel } from '../../../src/trace/quic-model.js';
import type { QuicEvents } from '../../../src/trace/quic-bif.js';

// 10,000 bytes/s: a 1,000-byte frame takes 0.1 s to leave.
const link: BottleneckModel = { rateKbit: 80, bufferBytes: 2500, delaySeconds: 0.05, burstBytes: 1100 };

describe('bottleneck queue replay (HTB class + byte FIFO)', () => {
  it('an idle class sends its burst at once, then one serialization time per packet', () => {
    const d = queueDepartures([0, 0, 0, 0], [1000, 1000, 1000, 1000], link);
    // Tokens 1100: the first two leave at once (HTB sends while tokens >= 0), then 0.1 s apart
    // counted from when the tokens come back to zero.
    expect(Array.from(d)).toEqual([0, 0, expect.closeTo(0.09, 9), expect.closeTo(0.19, 9)]);
  });

  it('drops what does not fit the byte limit, counting only packets still waiting', () => {
    // Five at once: two leave, two wait (2,000 bytes), the fifth would make 3,000 > 2,500.
    const d = queueDepartures([0, 0, 0, 0, 0], [1000, 1000, 1000, 1000, 1000], link);
    expect(Number.isNaN(d[4])).toBe(true);
    expect(d.slice(0, 4).every((x) => !Number.isNaN(x))).toBe(true);
    // Once one has left, room again.
    const later = queueDepartures([0, 0, 0, 0, 0.1], [1000, 1000, 1000, 1000, 1000], link);
    expect(later[4]).toBeCloseTo(0.29, 9);
  });

  it('a class idle long enough starts again from a full bucket, never more', () => {
    const d = queueDepartures([0, 10, 10, 10], [1000, 1000, 1000, 1000], link);
    expect(Array.from(d)).toEqual([0, 10, 10, expect.closeTo(10.09, 9)]);
  });

  it('counts IPv4/IPv6, UDP and Ethernet headers in a frame', () => {
    expect(frameBytes(1200, 4)).toBe(1242);
    expect(frameBytes(1200, 6)).toBe(1262);
  });
});

describe('synthetic ACK frames', () => {
  it('lists ranges from the largest down, gaps where packets were dropped', () => {
    expect(ackFrameOf([0, 1, 2, 4, 5, 7])).toEqual({ largest: 7, delay: 0, ranges: [{ lo: 7, hi: 7 }, { lo: 4, hi: 5 }, { lo: 0, hi: 2 }] });
    expect(ackFrameOf([])).toBeUndefined();
  });

  it('reaches back only a window (256 packets), however long the unbroken run', () => {
    const all = Array.from({ length: 10_000 }, (_, i) => i);
    expect(ackFrameOf(all)).toEqual({ largest: 9999, delay: 0, ranges: [{ lo: 9999 - 256, hi: 9999 }] });
  });
});

/** Events from [time, fromServer, bytes] rows. */
function events(rows: Array<[number, 0 | 1, number]>): QuicEvents {
  return { t: Float64Array.from(rows.map((r) => r[0])), fromServer: Uint8Array.from(rows.map((r) => r[1])), bytes: Uint32Array.from(rows.map((r) => r[2])) };
}

/** BiF right after the last sample at or before t. */
function bifAt(s: { t: Float64Array; bif: Float64Array }, t: number): number {
  let v = 0;
  for (let i = 0; i < s.t.length && s.t[i] <= t; i++) v = s.bif[i];
  return v;
}

describe('QUIC bytes in flight from the bottleneck model', () => {
  // 958-byte datagrams make 1,000-byte frames on IPv4.
  const D = 958;

  it('each client datagram acknowledges exactly what had reached the client when it left', () => {
    const b: BottleneckModel = { ...link, bufferBytes: 100_000 };
    // Four datagrams at 0; they reach the client at 0.05, 0.05, 0.14, 0.24 (delay 0.05), and
    // the client's datagrams pass the capture one delay after they left it.
    const ev = events([[0, 1, D], [0, 1, D], [0, 1, D], [0, 1, D], [0.1005, 0, 40], [0.1905, 0, 40], [0.2905, 0, 40]]);
    const { series, droppedInQueue } = quicModelBif(ev, b, 4);
    expect(droppedInQueue).toBe(0);
    expect(bifAt(series, 0.01)).toBe(4 * D);
    expect(bifAt(series, 0.15)).toBe(2 * D);
    expect(bifAt(series, 0.25)).toBe(D);
    expect(bifAt(series, 0.3)).toBe(0);
  });

  it('a client datagram sent just before a delivery does not acknowledge it', () => {
    const b: BottleneckModel = { ...link, bufferBytes: 100_000 };
    // The third datagram reaches the client at 0.14; a client datagram that left at 0.139 misses it.
    const ev = events([[0, 1, D], [0, 1, D], [0, 1, D], [0.189, 0, 40], [0.1905, 0, 40]]);
    const { series } = quicModelBif(ev, b, 4);
    expect(bifAt(series, 0.1895)).toBe(D);
    expect(bifAt(series, 0.191)).toBe(0);
  });

  it('a datagram the queue dropped stays in flight until the sender declares it lost', () => {
    // Five at once: the fifth is dropped; later datagrams fill the gap's successors.
    const rows: Array<[number, 0 | 1, number]> = [[0, 1, D], [0, 1, D], [0, 1, D], [0, 1, D], [0, 1, D]];
    // Three more sent at 0.3 (the queue has drained): they leave at 0.3, 0.39, 0.49 and reach
    // the client at 0.35, 0.44, 0.54.
    rows.push([0.3, 1, D], [0.3, 1, D], [0.3, 1, D]);
    // Client datagrams, each just after a delivery (seen one delay later).
    rows.push([0.1005, 0, 40], [0.1905, 0, 40], [0.2905, 0, 40], [0.4005, 0, 40], [0.4905, 0, 40], [0.5905, 0, 40]);
    rows.sort((a, c) => a[0] - c[0]);
    const lost: number[] = [];
    const { series, droppedInQueue } = quicModelBif(events(rows), link, 4, { onEvent: (e) => { if (e.kind !== 'acked') lost.push(e.pn); } });
    expect(droppedInQueue).toBe(1);
    // At 0.35 the four delivered ones are acknowledged; the dropped one (number 4) and the
    // three new ones are outstanding: never acknowledged, the dropped one still counts.
    expect(bifAt(series, 0.35)).toBe(4 * D);
    // The ACK of packet 5 (0.4005) comes 0.4 s after packet 4 was sent, more than 9/8 RTT: the
    // sender's time threshold declares it lost then (RFC 9002 section 6.1.2).
    expect(bifAt(series, 0.401)).toBe(2 * D);
    expect(lost).toEqual([4]);
    expect(bifAt(series, 0.491)).toBe(D);
    expect(bifAt(series, 0.591)).toBe(0);
  });

  it('is deterministic', () => {
    const ev = events([[0, 1, D], [0, 1, D], [0, 1, D], [0.1005, 0, 40], [0.1905, 0, 40]]);
    expect(Array.from(quicModelBif(ev, link, 4).series.bif)).toEqual(Array.from(quicModelBif(ev, link, 4).series.bif));
  });
});
