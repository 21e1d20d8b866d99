import { describe, expect, it } from 'vitest';
import { busiestRate, flowConditions, quicServerSideRtt, visibleShareOf, withKnownBottleneck } from '../../../src/trace/conditions.js';
import { traceFile } from '../../../src/trace/index.js';

describe('the conditions a capture shows of itself', () => {
  it('the busiest delivery rate is the 90th percentile over windows, not the mean', () => {
    // 10 s at 1000 B/s, then 10 s idle: the mean is 500 B/s, the busiest windows 1000.
    const t: number[] = [];
    const b: number[] = [];
    for (let i = 0; i <= 200; i++) {
      t.push(i / 10);
      b.push(Math.min(i, 100) * 100);
    }
    expect(busiestRate(t, b, 1)).toBeCloseTo(1000, 0);
    expect(busiestRate([0, 0.5], [0, 10], 1)).toBeNull();
  });

  it('visible share is the client side of the round trip over the whole', () => {
    expect(visibleShareOf(0.01, 0.09)).toBeCloseTo(0.9);
    expect(visibleShareOf(null, 0.1)).toBeNull();
  });

  it('derives BDP in segments from the delivery rate and the minimum RTT, and a known bottleneck replaces a paused flow rate', () => {
    const c = flowConditions({
      transport: 'tcp', segmentBytes: 88, sack: true, rttSeconds: 0.25, minRttSeconds: 0.1, opening: { serverSeconds: 0.01, clientSeconds: 0.1 },
      deliveryBytesPerSecond: 5000, bifMethod: 'exact', tcp: { dataPackets: 1000, dataBytes: 88000, reorderedPackets: 10, upstreamLostBytes: 880, upstreamLostPackets: 10, retransmittedPackets: 20, needlessResends: 5 },
    });
    expect(c.bdpPackets).toBeCloseTo(5.7, 1);
    expect(c.reorderShare).toBeCloseTo(0.01);
    expect(c.upstreamLossShare).toBeCloseTo(880 / 88880, 4);
    expect(c.needlessResendShare).toBeCloseTo(0.25);
    expect(c.resentPackets).toBe(30); // 20 resends seen twice, 10 that filled a gap
    // 200 kbit/s on the wire, 88-byte payloads in 154-byte frames: 114 kbit/s of payload, BDP 16 segments at 100 ms.
    const k = withKnownBottleneck(c, 200);
    expect(k.deliveryKbit).toBeCloseTo(114.3, 0);
    expect(k.bdpPackets).toBeCloseTo(16.2, 0);
  });

  it('QUIC measures reordering from its packet numbers when they were read, and nothing of what TCP\'s resends tell', () => {
    const base = { transport: 'quic', segmentBytes: 1200, sack: true, rttSeconds: 0.1, minRttSeconds: 0.1, opening: null, deliveryBytesPerSecond: 20000, bifMethod: 'exact' } as const;
    const read = flowConditions({ ...base, quic: { sentPackets: 400, reorderedPackets: 20 } });
    expect(read.reorderShare).toBeCloseTo(0.05);
    expect(read.upstreamLossShare).toBeNull();
    expect(read.needlessResendShare).toBeNull();
    expect(read.resentPackets).toBeNull();
    expect(flowConditions({ ...base, bifMethod: 'estimated' }).reorderShare).toBeNull();
  });

  it('QUIC: the server side of the round trip from a request on an idle connection, not the handshake the server took long over', () => {
    // Client Initial at 0, the server answers after 1.5 s of TLS work; later an idle request at 3 s is answered 12 ms later.
    const t = [0, 1.5, 1.6, 1.61, 3, 3.012, 3.02];
    const fromServer = [0, 1, 0, 1, 0, 1, 1];
    expect(quicServerSideRtt({ t, fromServer }, 0.1)).toBeCloseTo(0.012, 6);
  });

  it('on a real lab capture (kernel CUBIC behind nebby-50, SACK off): segment size, SACK, both sides of the round trip', async () => {
    const r = await traceFile(new URL('../../fixtures/lab-traces/tcp-cubic-nebby-50/capture.pcap', import.meta.url).pathname);
    const f = r.flows.find((x) => x.kind === 'tcp')!;
    const c = f.conditions!;
    expect(c).toMatchObject({ transport: 'tcp', segmentBytes: 88, sack: false });
    expect(c.clientSideRttSeconds!).toBeGreaterThan(0.099);
    expect(c.clientSideRttSeconds!).toBeLessThan(0.11);
    expect(c.serverSideRttSeconds!).toBeGreaterThan(0.009);
    expect(c.serverSideRttSeconds!).toBeLessThan(0.02);
    expect(c.visibleShare!).toBeGreaterThan(0.85);
    expect(f.series!.conditions).toEqual(c);
  });
});
