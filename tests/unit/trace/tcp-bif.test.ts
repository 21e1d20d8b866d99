import { describe, expect, it } from 'vitest';
import { SampleFlag } from '../../../src/trace/tcp-bif.js';
import { traceBuffer, type FlowResult } from '../../../src/trace/trace.js';
import { TcpConversation, writePcap, writePcapng, type Link } from './pcap-writer.js';

const round = (xs: ArrayLike<number>, d = 6) => Array.from(xs, (x) => Number(x.toFixed(d)));

function conversation(o: Partial<ConstructorParameters<typeof TcpConversation>[0]> = {}) {
  return new TcpConversation({ client: '10.0.0.1', server: '10.0.0.2', clientPort: 40000, serverPort: 443, ...o });
}

function onlyFlow(buf: Uint8Array, clientIps?: string[]): FlowResult {
  const r = traceBuffer(buf, 'synthetic.pcap', { clientIps });
  expect(r.flows).toHaveLength(1);
  return r.flows[0];
}

/** Server sends 4 x 1000 bytes; the client acks 2000 then 4000. */
function simpleTransfer(c: TcpConversation): void {
  c.handshake(0, 0.1);
  c.serverData(0.2, 0, 1000);
  c.serverData(0.201, 1000, 1000);
  c.serverData(0.202, 2000, 1000);
  c.serverData(0.203, 3000, 1000);
  c.clientAck(0.3, 2000);
  c.clientAck(0.302, 4000);
}

describe('TCP bytes in flight', () => {
  it('is highest sequence sent minus highest ACK, per packet event', () => {
    const c = conversation();
    simpleTransfer(c);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.id).toBe('tcp-0');
    expect(f.tuple).toBe('tcp:10.0.0.1:40000-10.0.0.2:443');
    expect(f.clientBy).toBe('syn');
    expect(f.handshake).toBe(true);
    expect(round(f.series!.t)).toEqual([0.2, 0.201, 0.202, 0.203, 0.3, 0.302]);
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 2000, 0]);
    // Seq/ack RTT: handshake 0.1, then 0.099 twice.
    expect(f.rtt.method).toBe('seq-ack');
    expect(f.rtt.samples).toBe(3);
    expect(f.series!.rttSeconds).toBeCloseTo(0.099, 9);
    expect(f.tcp!.server).toMatchObject({ dataPackets: 4, dataBytes: 4000, uniqueBytes: 4000, retransmittedPackets: 0, dupAcks: 0 });
    expect(f.toClient.payloadBytes).toBe(4000);
    // The drain after the last data packet is the transfer ending, not a back-off.
    expect(Array.from(f.series!.appLimited!)).toEqual([0, 0, 0, 0, 1, 1]);
  });

  it('handles sequence numbers wrapping past 2^32', () => {
    const c = conversation({ isnServer: 2 ** 32 - 1500, isnClient: 2 ** 32 - 1 });
    simpleTransfer(c);
    const f = onlyFlow(writePcap(c.frames));
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 2000, 0]);
    expect(f.tcp!.server.uniqueBytes).toBe(4000);
    expect(f.tcp!.server.retransmittedPackets).toBe(0);
  });

  it.each<[string, Link, boolean]>([
    ['IPv6 over SLL in pcapng', 'sll', true],
    ['IPv6 over SLL2 in pcap', 'sll2', false],
  ])('gives the same series for %s', (_n, link, ng) => {
    const c = new TcpConversation({ client: '2001:db8::1', server: '2001:db8::2', clientPort: 40000, serverPort: 443, link });
    simpleTransfer(c);
    const buf = ng ? writePcapng(c.frames, { link }) : writePcap(c.frames, { link });
    const f = onlyFlow(buf);
    expect(f.tuple).toBe('tcp:[2001:db8::1]:40000-[2001:db8::2]:443');
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 2000, 0]);
  });

  /** 5 segments, the 2nd lost; three dup ACKs; fast retransmit; full ACK. */
  function lossScenario(sack: boolean): TcpConversation {
    const c = conversation({ sack });
    c.handshake(0, 0.1);
    for (let i = 0; i < 5; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.clientAck(0.301, 1000, { sack: sack ? [[2000, 3000]] : undefined });
    c.clientAck(0.302, 1000, { sack: sack ? [[2000, 4000]] : undefined });
    c.clientAck(0.303, 1000, { sack: sack ? [[2000, 5000]] : undefined });
    c.serverData(0.31, 1000, 1000);
    c.clientAck(0.42, 5000);
    return c;
  }

  it.each([
    ['SACK blocks', true],
    ['duplicate ACKs without SACK (one segment each, as Nebby does)', false],
  ])('subtracts data the receiver holds above the ACK: %s', (_n, sack) => {
    const f = onlyFlow(writePcap(lossScenario(sack).frames));
    expect(round(f.series!.t)).toEqual([0.2, 0.201, 0.202, 0.203, 0.204, 0.3, 0.301, 0.302, 0.303, 0.31, 0.42]);
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 5000, 4000, 3000, 2000, 1000, 1000, 0]);
    const s = f.tcp!.server;
    expect(s).toMatchObject({ retransmittedPackets: 1, retransmittedBytes: 1000, spuriousRetransmissions: 0, dupAcks: 3, sackUsed: sack });
    // The series carries the sender's losses for the classifiers: sent includes the retransmission.
    expect(f.series!.loss).toMatchObject({ sentBytes: s.uniqueBytes + 1000, lostBytes: 1000 });
    // The half-second checkpoints never run ahead of the totals.
    for (const [, sent, lost] of f.series!.loss!.checkpoints ?? []) expect(sent <= s.uniqueBytes + 1000 && lost <= 1000).toBe(true);
    expect(s.lossEpisodes).toHaveLength(1);
    expect(s.lossEpisodes[0].start).toBeCloseTo(0.31, 9);
    expect(s.lossEpisodes[0].end).toBeCloseTo(0.42, 9);
    expect(s.lossEpisodes[0].retransmissions).toBe(1);
    const flags = f.sampleFlags!;
    expect(flags[9] & SampleFlag.retransmission).toBeTruthy();
    expect(flags[9] & SampleFlag.recovery).toBeTruthy();
    expect(flags[6] & SampleFlag.dupAck).toBeTruthy();
    // Karn: the ACK covering the retransmission gives no RTT sample (handshake + first ACK only).
    expect(f.rtt.samples).toBe(2);
  });

  it('without SACK, follows the sender\'s Reno sacked_out through a partial ACK (tcp_remove_reno_sacks)', () => {
    // 6 segments; the 2nd and 4th are lost. Three dup ACKs (segments 3, 5, 6 arrived), fast
    // retransmit of the 2nd; its ACK (to 3000) is partial: it acknowledges 2 segments, of which
    // the first filled the hole, so the kernel removes only 2 - 1 = 1 segment of dup-ACK credit.
    const c = conversation({ sack: false });
    c.handshake(0, 0.1);
    for (let i = 0; i < 6; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.clientAck(0.301, 1000);
    c.clientAck(0.302, 1000);
    c.clientAck(0.303, 1000);
    c.serverData(0.31, 1000, 1000);
    c.clientAck(0.42, 3000);
    c.serverData(0.43, 3000, 1000);
    c.clientAck(0.54, 6000);
    const f = onlyFlow(writePcap(c.frames));
    expect(round(f.series!.t)).toEqual([0.2, 0.201, 0.202, 0.203, 0.204, 0.205, 0.3, 0.301, 0.302, 0.303, 0.31, 0.42, 0.43, 0.54]);
    // After the partial ACK: 6000 - 3000 - (3 - 1) x 1000 = 1000 (not 3000 - 3000 + ... = 2000).
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 5000, 4000, 3000, 2000, 2000, 1000, 1000, 0]);
    const flags = f.sampleFlags!;
    expect(flags[11] & SampleFlag.recovery).toBeTruthy();
    expect(flags[13] & SampleFlag.recovery).toBeFalsy();
    expect(f.tcp!.server.lossEpisodes).toHaveLength(1);
    expect(f.tcp!.server.lossEpisodes[0].retransmissions).toBe(2);
  });

  it('without SACK, never credits more duplicate ACKs than packets_out - 1 (tcp_limit_reno_sacked)', () => {
    const c = conversation({ sack: false });
    c.handshake(0, 0.1);
    for (let i = 0; i < 3; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    for (let i = 0; i < 5; i++) c.clientAck(0.3 + i / 1000, 0);
    const f = onlyFlow(writePcap(c.frames));
    // 3 segments outstanding: at most 2 credited, one stays the hole.
    expect(Array.from(f.series!.bif).slice(3)).toEqual([2000, 1000, 1000, 1000, 1000]);
  });

  it('without SACK, clears the dup-ACK credit on an advancing ACK outside recovery (tcp_reset_reno_sack)', () => {
    // Reordering: one dup ACK, then an ACK covering two segments; no retransmission.
    const c = conversation({ sack: false });
    c.handshake(0, 0.1);
    for (let i = 0; i < 4; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.clientAck(0.301, 1000);
    c.clientAck(0.302, 3000);
    const f = onlyFlow(writePcap(c.frames));
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 3000, 2000, 1000]);
  });

  it('without SACK, a retransmission timeout clears the dup-ACK credit and holds it at 0 in Loss (tcp_enter_loss)', () => {
    // 5 segments, the 1st lost; 2 dup ACKs (below the fast-retransmit threshold); the head is
    // resent 0.3 s after the cumulative ACK last advanced: a timeout. Every segment sent before
    // it now counts as lost (lost_out = packets_out), so a further dup ACK earns no credit, and a
    // partial ACK in Loss resets the credit instead of keeping n - 1.
    const c = conversation({ sack: false });
    c.handshake(0, 0.1);
    for (let i = 0; i < 5; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 0);
    c.clientAck(0.301, 0);
    c.serverData(0.6, 0, 1000);
    c.clientAck(0.61, 0);
    c.clientAck(0.7, 3000);
    c.clientAck(0.8, 5000);
    const f = onlyFlow(writePcap(c.frames));
    expect(round(f.series!.t)).toEqual([0.2, 0.201, 0.202, 0.203, 0.204, 0.3, 0.301, 0.6, 0.61, 0.7, 0.8]);
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 4000, 5000, 4000, 3000, 5000, 5000, 2000, 0]);
  });

  it('flags a retransmission as spurious on a D-SACK', () => {
    const c = conversation({ sack: true });
    c.handshake(0, 0.1);
    for (let i = 0; i < 3; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.serverData(0.35, 1000, 1000); // needless: the original was only delayed
    c.clientAck(0.5, 3000, { sack: [[1000, 2000]] }); // D-SACK: below the cumulative ACK
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server).toMatchObject({ retransmittedPackets: 1, spuriousRetransmissions: 1, dsackBlocks: 1 });
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 3000, 2000, 2000, 0]);
  });

  it('flags a retransmission as spurious when its ACK comes faster than the minimum RTT', () => {
    const c = conversation();
    c.handshake(0, 0.1);
    for (let i = 0; i < 3; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.serverData(0.35, 1000, 1000);
    c.clientAck(0.36, 3000); // 10 ms after the retransmission, RTT is 100 ms: the original was acked
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server).toMatchObject({ retransmittedPackets: 1, spuriousRetransmissions: 1, dsackBlocks: 0 });
  });

  it('does not count a segment filling a gap the capture had not seen as a retransmission', () => {
    const c = conversation();
    c.handshake(0, 0.1);
    c.serverData(0.2, 0, 1000);
    c.serverData(0.201, 2000, 1000); // [1000, 2000) arrives later: reordered before the capture point
    c.serverData(0.202, 1000, 1000);
    c.clientAck(0.3, 3000);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server.retransmittedPackets).toBe(0);
    expect(Array.from(f.series!.bif)).toEqual([1000, 3000, 3000, 0]);
  });

  it('tells a gap filled within half an RTT (reordering) from one filled later (lost before the capture point)', () => {
    const c = conversation();
    c.handshake(0, 0.1);
    c.serverData(0.2, 0, 1000);
    c.serverData(0.201, 2000, 1000);
    c.serverData(0.202, 1000, 1000); // 1 ms later: reordered
    c.clientAck(0.3, 3000);
    c.serverData(0.31, 4000, 1000); // [3000, 4000) never reached the capture point
    c.clientAck(0.41, 3000);
    c.clientAck(0.412, 3000);
    c.serverData(0.42, 3000, 1000); // 110 ms after the gap opened: the server's retransmission
    c.clientAck(0.52, 5000);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server).toMatchObject({ retransmittedPackets: 0, reorderedPackets: 1, upstreamLostPackets: 1, upstreamLostBytes: 1000 });
    // The sender lost 1000 of the 6000 bytes it put on the wire (the capture saw 5000 of them).
    expect(f.series!.loss).toMatchObject({ sentBytes: 6000, lostBytes: 1000 });
    // Its resend, which filled the gap, is one the sender made; the reordered segment is none.
    expect(f.series!.conditions!.resentPackets).toBe(1);
  });

  it('counts as lost only the retransmissions the receiver waited for: a go-back-N resend after a timeout is not a loss (SACK off)', () => {
    // 6 segments; the 2nd and 4th are dropped by the bottleneck. The receiver's cumulative ACK
    // stops at 1000. A timeout resends [1000,2000) (waited for); the cumulative ACK jumps to 3000
    // and stops there. Slow start then resends [3000,4000) (waited for) and [4000,5000): the
    // receiver held that one already, its cumulative ACK jumps from 3000 to 6000.
    const c = conversation({ sack: false });
    c.handshake(0, 0.1);
    for (let i = 0; i < 6; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.clientAck(0.302, 1000);
    c.serverData(0.6, 1000, 1000); // timeout
    c.clientAck(0.705, 3000);
    c.serverData(0.71, 3000, 1000);
    c.serverData(0.711, 4000, 1000); // needless: the receiver had it
    c.clientAck(0.815, 6000);
    c.clientAck(0.816, 6000);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server).toMatchObject({ retransmittedPackets: 3, retransmittedBytes: 3000, neededRetransmittedBytes: 2000, needlessRetransmissions: 1 });
    expect(f.series!.loss).toMatchObject({ sentBytes: 9000, lostBytes: 2000 });
  });

  it('does not count a spurious retransmission as a loss', () => {
    const c = conversation();
    c.handshake(0, 0.1);
    for (let i = 0; i < 3; i++) c.serverData(0.2 + i / 1000, i * 1000, 1000);
    c.clientAck(0.3, 1000);
    c.serverData(0.35, 1000, 1000);
    c.clientAck(0.36, 3000);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.tcp!.server).toMatchObject({ spuriousRetransmissions: 1, neededRetransmittedBytes: 0 });
    expect(f.series!.loss!.lostBytes).toBe(0);
  });

  it('measures RTT from TCP timestamps when both sides use them', () => {
    const c = conversation({ timestamps: true });
    c.handshake(0, 0.1);
    c.serverData(0.2, 0, 1000, { tsval: 500 });
    c.serverData(0.25, 1000, 1000, { tsval: 550 });
    c.clientAck(0.33, 1000, { tsecr: 500 });
    c.clientAck(0.4, 2000, { tsecr: 550 });
    const f = onlyFlow(writePcap(c.frames));
    expect(f.rtt.method).toBe('timestamps');
    expect(f.rtt.samples).toBe(3); // handshake 0.1, then 0.13 and 0.15
    expect(f.rtt.medianSeconds).toBeCloseTo(0.13, 9);
    expect(f.rtt.minSeconds).toBeCloseTo(0.1, 9);
  });

  it('marks an idle gap with everything acknowledged as application-limited, but not an RTO stall', () => {
    const c = conversation();
    c.handshake(0, 0.1);
    c.serverData(0.2, 0, 1000);
    c.serverData(0.201, 1000, 1000);
    c.clientAck(0.3, 2000); // all acked: BiF 0
    c.serverData(1.5, 2000, 1000); // resumes after 1.2 s (12 RTTs): the app had nothing to send
    c.serverData(1.501, 3000, 1000);
    c.clientAck(1.6, 3000); // [3000, 4000) is lost
    c.serverData(3.0, 3000, 1000); // RTO retransmission after 1.4 s with 1000 bytes outstanding
    c.serverData(3.001, 4000, 1000);
    const f = onlyFlow(writePcap(c.frames));
    expect(round(f.series!.t)).toEqual([0.2, 0.201, 0.3, 1.5, 1.501, 1.6, 3.0, 3.001]);
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 0, 1000, 2000, 1000, 1000, 2000]);
    expect(Array.from(f.series!.appLimited!)).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
  });

  it('flags samples limited by the receive window (scaled by the handshake wscale)', () => {
    const c = conversation();
    c.handshake(0, 0.1, { wscale: 2 });
    c.serverData(0.2, 0, 1000);
    c.clientAck(0.3, 1000, { window: 500 }); // 500 << 2 = 2000 bytes
    c.serverData(0.31, 1000, 1000);
    c.serverData(0.311, 2000, 1000);
    const f = onlyFlow(writePcap(c.frames));
    expect(Array.from(f.series!.bif)).toEqual([1000, 0, 1000, 2000]);
    const rwnd = Array.from(f.sampleFlags!, (x) => (x & SampleFlag.rwndLimited ? 1 : 0));
    // At 1000 bytes one more 1000-byte segment still fits in 2000; at 2000 none does.
    expect(rwnd).toEqual([0, 0, 0, 1]);
  });
});

describe('client side inference', () => {
  function midFlow(): Uint8Array {
    // The capture starts after the handshake, with a client ACK.
    const c = conversation();
    c.clientAck(1.0, 0);
    c.serverData(1.1, 0, 1000);
    c.serverData(1.101, 1000, 1000);
    c.clientAck(1.2, 2000);
    return writePcap(c.frames);
  }

  it('without a SYN, takes the well-known port as the server', () => {
    const f = onlyFlow(midFlow());
    expect(f.clientBy).toBe('well-known-port');
    expect(f.handshake).toBe(false);
    expect(f.key).toEqual({ protocol: 'tcp', clientIp: '10.0.0.1', clientPort: 40000, serverIp: '10.0.0.2', serverPort: 443 });
    expect(Array.from(f.series!.bif)).toEqual([1000, 2000, 0]);
    expect(round(f.series!.t)).toEqual([0.1, 0.101, 0.2]);
  });

  it('with two ephemeral ports, takes the side that sent fewer bytes as the client', () => {
    const c = new TcpConversation({ client: '10.0.0.1', server: '10.0.0.2', clientPort: 40000, serverPort: 8443 });
    c.serverData(1.1, 0, 1000); // the server's packet comes first
    c.clientAck(1.2, 1000);
    const f = onlyFlow(writePcap(c.frames));
    expect(f.clientBy).toBe('fewer-bytes');
    expect(f.key.serverPort).toBe(8443);
  });

  it('follows the client address option over the SYN', () => {
    const f = onlyFlow(midFlow(), ['10.0.0.2']);
    expect(f.clientBy).toBe('client-ips');
    expect(f.tuple).toBe('tcp:10.0.0.2:443-10.0.0.1:40000');
    expect(f.toServer.payloadBytes).toBe(2000);
  });

  it('numbers flows by first appearance and finds one by id or tuple', () => {
    const a = conversation({ clientPort: 40001 });
    const b = conversation({ clientPort: 40002 });
    simpleTransfer(a);
    b.handshake(0.05, 0.1);
    b.serverData(0.25, 0, 500);
    b.clientAck(0.35, 500);
    const frames = [...a.frames, ...b.frames].sort((x, y) => (x.time as number) - (y.time as number));
    const buf = writePcap(frames);
    const all = traceBuffer(buf, 'two.pcap');
    expect(all.flows.map((f) => [f.id, f.tuple])).toEqual([
      ['tcp-0', 'tcp:10.0.0.1:40001-10.0.0.2:443'],
      ['tcp-1', 'tcp:10.0.0.1:40002-10.0.0.2:443'],
    ]);
    expect(traceBuffer(buf, 'two.pcap', { flowId: 'tcp-1' }).flows.map((f) => f.id)).toEqual(['tcp-1']);
    expect(traceBuffer(buf, 'two.pcap', { flowId: 'tcp:10.0.0.2:443-10.0.0.1:40001' }).flows.map((f) => f.id)).toEqual(['tcp-0']);
    expect(() => traceBuffer(buf, 'two.pcap', { flowId: 'tcp-9' })).toThrow(/no flow "tcp-9"/);
  });
});
