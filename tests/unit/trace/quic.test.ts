import { describe, expect, it } from 'vitest';
import { PacketRecord } from '../../../src/trace/packet.js';
import { quicHeuristicBif } from '../../../src/trace/quic-bif.js';
import { QuicLongHeader, QuicPacketType, parseLongHeader } from '../../../src/trace/quic.js';
import { traceBuffer } from '../../../src/trace/trace.js';
import { udpFrame, writePcap, writePcapng, type Frame } from './pcap-writer.js';

const SERVER_CID = [0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58];
const CLIENT_CID = [0xc1, 0xc2, 0xc3, 0xc4];
const ODCID = [1, 2, 3, 4, 5, 6, 7, 8];

/** Long header: first byte, version, DCID, SCID, then zeros (token, length, PN are encrypted-ish). */
function longHeader(type: number, dcid: number[], scid: number[], version = 1): Uint8Array {
  return Uint8Array.from([0xc0 | (type << 4) | 3, version >>> 24, (version >>> 16) & 255, (version >>> 8) & 255, version & 255, dcid.length, ...dcid, scid.length, ...scid, 0, 0x40, 0]);
}
const shortHeader = (dcid: number[]) => Uint8Array.from([0x43, ...dcid, 0, 0, 0, 1]);

class QuicScript {
  readonly frames: Frame[] = [];
  constructor(
    private readonly client = '10.0.0.1',
    private readonly server = '10.0.0.2',
  ) {}
  send(time: number, fromClient: boolean, clientPort: number, payload: Uint8Array, len: number): void {
    const c = { ip: this.client, port: clientPort };
    const s = { ip: this.server, port: 443 };
    const [a, b] = fromClient ? [c, s] : [s, c];
    this.frames.push({ time, ...udpFrame({ src: a.ip, dst: b.ip, sport: a.port, dport: b.port, payload, payloadLen: len }) });
  }
  /** Handshake + 3 x 1000 bytes + two client ACKs, on client port 50000. */
  basic(): this {
    this.send(0, true, 50000, longHeader(0, ODCID, CLIENT_CID), 1200);
    this.send(0.0001, false, 50000, longHeader(0, CLIENT_CID, SERVER_CID), 1200);
    this.send(0.0002, false, 50000, longHeader(2, CLIENT_CID, SERVER_CID), 1000);
    this.send(0.1, true, 50000, longHeader(2, SERVER_CID, CLIENT_CID), 200);
    this.send(0.2, false, 50000, shortHeader(CLIENT_CID), 1000);
    this.send(0.201, false, 50000, shortHeader(CLIENT_CID), 1000);
    this.send(0.202, false, 50000, shortHeader(CLIENT_CID), 1000);
    this.send(0.3, true, 50000, shortHeader(SERVER_CID), 50);
    this.send(0.301, true, 50000, shortHeader(SERVER_CID), 50);
    return this;
  }
}

const round = (xs: ArrayLike<number>, d = 3) => Array.from(xs, (x) => Number(x.toFixed(d)));

describe('QUIC bytes in flight (Nebby heuristic)', () => {
  it('charges every server datagram as data and credits each later client datagram total/ackCount', () => {
    const r = traceBuffer(writePcap(new QuicScript().basic().frames), 'quic.pcap');
    expect(r.flows).toHaveLength(1);
    const f = r.flows[0];
    expect(f).toMatchObject({ id: 'quic-0', kind: 'quic', tuple: 'udp:10.0.0.1:50000-10.0.0.2:443', clientBy: 'quic-initial' });
    expect(f.bifMethod).toBe('quic-nebby-heuristic');
    expect(f.handshake).toBe(true);
    // 5200 server bytes / 3 client datagrams after the server's first = 1733.333 per ACK.
    expect(f.quic!.bytesPerAck).toBeCloseTo(5200 / 3, 9);
    expect(f.quic).toMatchObject({ serverPackets: 5, clientPackets: 4, ackPackets: 3, versions: ['0x00000001'] });
    expect(round(f.series!.t, 6)).toEqual([0.0001, 0.0002, 0.1, 0.2, 0.201, 0.202, 0.3, 0.301]);
    expect(round(f.series!.bif)).toEqual([1200, 2200, 466.667, 1466.667, 2466.667, 3466.667, 1733.333, 0]);
    expect(f.rtt.method).toBe('quic-handshake');
    expect(f.series!.rttSeconds).toBeCloseTo(0.0999, 9);
    // Idle until the request (> 1 RTT) and the tail after the last server datagram.
    expect(Array.from(f.series!.appLimited!)).toEqual([0, 0, 1, 1, 0, 0, 1, 1]);
  });

  it('the pure estimator matches the formula on a hand-made event list', () => {
    const q = quicHeuristicBif({
      t: Float64Array.from([0, 1, 2, 3, 4]),
      fromServer: Uint8Array.from([0, 1, 1, 0, 0]),
      bytes: Uint32Array.from([100, 600, 600, 40, 40]),
    });
    expect(q.bytesPerAck).toBe(600);
    expect(Array.from(q.t)).toEqual([1, 2, 3, 4]);
    expect(Array.from(q.bif)).toEqual([600, 1200, 600, 0]);
  });

  it('keeps a connection whole when the client migrates to a new port with the same server CID', () => {
    const s = new QuicScript().basic();
    s.send(0.4, true, 50001, shortHeader(SERVER_CID), 50);
    s.send(0.45, false, 50001, shortHeader(CLIENT_CID), 1000);
    s.send(0.55, true, 50001, shortHeader(SERVER_CID), 50);
    const r = traceBuffer(writePcapng(s.frames), 'migrate.pcapng');
    expect(r.flows).toHaveLength(1);
    const f = r.flows[0];
    expect(f.paths).toEqual(['udp:10.0.0.1:50000-10.0.0.2:443', 'udp:10.0.0.1:50001-10.0.0.2:443']);
    expect(f.quic!.joinedBy).toEqual(['handshake', 'cid']);
    expect(f.toClient.payloadBytes).toBe(6200);
    expect(f.quic!.ackPackets).toBe(5);
    expect(f.series!.t.length).toBe(11);
  });

  it('joins a port change with an unseen CID by client address, server endpoint and time', () => {
    const s = new QuicScript().basic();
    const newCid = [9, 9, 9, 9, 9, 9, 9, 9];
    s.send(0.4, true, 50002, shortHeader(newCid), 50);
    s.send(0.45, false, 50002, shortHeader([0xd1, 0xd2, 0xd3, 0xd4]), 1000); // a new client CID too
    s.send(0.55, true, 50002, shortHeader(newCid), 50);
    const f = traceBuffer(writePcap(s.frames), 'm.pcap').flows;
    expect(f.map((x) => x.id)).toEqual(['quic-0']);
    expect(f[0].quic!.joinedBy).toEqual(['handshake', 'timing']);
  });

  it('separates other QUIC connections and plain UDP', () => {
    const s = new QuicScript().basic();
    const other = new QuicScript('10.0.0.1', '10.0.0.3').basic();
    const dns: Frame = { time: 0.05, ...udpFrame({ src: '10.0.0.1', dst: '10.0.0.53', sport: 5353, dport: 53, payload: Uint8Array.from([0x12, 0x34, 1, 0]), payloadLen: 40 }) };
    const frames = [...s.frames, ...other.frames.map((x) => ({ ...x, time: (x.time as number) + 0.01 })), dns].sort(
      (a, b) => (a.time as number) - (b.time as number),
    );
    const r = traceBuffer(writePcap(frames), 'mix.pcap');
    expect(r.flows.map((f) => [f.id, f.tuple])).toEqual([
      ['quic-0', 'udp:10.0.0.1:50000-10.0.0.2:443'],
      ['quic-1', 'udp:10.0.0.1:50000-10.0.0.3:443'],
      ['udp-0', 'udp:10.0.0.1:5353-10.0.0.53:53'],
    ]);
    expect(r.flows[2].series).toBeNull();
    expect(r.flows[2].bifMethod).toBe('none');
    expect(round(r.flows[1].series!.bif)).toEqual([1200, 2200, 466.667, 1466.667, 2466.667, 3466.667, 1733.333, 0]);
  });

  it('uses the client address option to orient a connection', () => {
    const r = traceBuffer(writePcap(new QuicScript().basic().frames), 'q.pcap', { clientIps: ['10.0.0.1'] });
    expect(r.flows[0].clientBy).toBe('client-ips');
  });
});

describe('QUIC header parsing', () => {
  function parse(payload: Uint8Array): QuicLongHeader | undefined {
    const f = udpFrame({ src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 443, payload, payloadLen: 1200 });
    const p = new PacketRecord();
    p.data = f.bytes;
    p.view = new DataView(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    p.payloadOffset = 42;
    p.payloadCapLen = f.bytes.length - 42;
    const h = new QuicLongHeader();
    return parseLongHeader(p, h) ? h : undefined;
  }

  it('reads version, type and both CIDs; maps QUIC v2 packet types', () => {
    const v1 = parse(longHeader(2, ODCID, SERVER_CID));
    expect(v1).toMatchObject({ version: 1, type: QuicPacketType.handshake, dcidLen: 8, scidLen: 8, dcidOffset: 48 });
    // In v2 the Initial type bits are 01.
    expect(parse(longHeader(1, ODCID, [], 0x6b3343cf))).toMatchObject({ type: QuicPacketType.initial, scidLen: 0 });
  });

  it('rejects unknown versions, oversized CIDs and a cleared fixed bit', () => {
    expect(parse(longHeader(0, ODCID, [], 0x12345678))).toBeUndefined();
    expect(parse(longHeader(0, new Array(21).fill(1), []))).toBeUndefined();
    const noFixed = longHeader(0, ODCID, []);
    noFixed[0] &= ~0x40;
    expect(parse(noFixed)).toBeUndefined();
  });
});
