import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../../../src/util/errors.js';
import { formatIp } from '../../../src/trace/ip.js';
import { PacketKind, TcpFlag, TcpOpt, type PacketRecord } from '../../../src/trace/packet.js';
import { readCapture, readCaptureBuffer } from '../../../src/trace/pcap.js';
import { LINKTYPE, tcpFrame, udpFrame, writePcap, writePcapng, type Frame, type Link } from './pcap-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'ccbtr-pcap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Copies what tests look at out of the reused record. */
function snapshot(p: PacketRecord) {
  return {
    index: p.index,
    fileOffset: p.fileOffset,
    kind: p.kind,
    reason: p.malformedReason,
    linkType: p.linkType,
    sec: p.tsSec,
    nsec: p.tsNsec,
    capLen: p.capLen,
    origLen: p.origLen,
    ipVersion: p.ipVersion,
    src: p.ipVersion ? formatIp(p.ipVersion, p.src) : '',
    dst: p.ipVersion ? formatIp(p.ipVersion, p.dst) : '',
    sport: p.srcPort,
    dport: p.dstPort,
    payloadLen: p.payloadLen,
    seq: p.seq,
    ack: p.ack,
    flags: p.tcpFlags,
    window: p.window,
    options: p.tcpOptions,
    mss: p.mss,
    wscale: p.wscale,
    tsVal: p.tsVal,
    tsEcr: p.tsEcr,
    sack: Array.from(p.sack.subarray(0, 2 * p.sackCount)),
  };
}
type Snap = ReturnType<typeof snapshot>;

function readAll(buf: Uint8Array): { packets: Snap[]; info: ReturnType<typeof readCaptureBuffer> } {
  const packets: Snap[] = [];
  const info = readCaptureBuffer(buf, 'test.pcap', (p) => packets.push(snapshot(p)));
  return { packets, info };
}

const dataSeg = (link: Link = 'ethernet', snaplen = 128) =>
  tcpFrame(
    {
      src: '10.0.0.2',
      dst: '10.0.0.1',
      sport: 443,
      dport: 40000,
      seq: 4294967000,
      ack: 77,
      flags: 'PA',
      window: 501,
      payloadLen: 1448,
      options: { ts: [123456, 654321], sack: [[100, 200], [300, 400]] },
    },
    { link, snaplen },
  );

describe('pcap reader: decoding', () => {
  it('reads a little-endian microsecond Ethernet capture, payload length from the IP header despite snaplen 128', () => {
    const f = dataSeg();
    expect(f.bytes.length).toBe(128);
    const { packets, info } = readAll(writePcap([{ time: [1700000000, 123456000], ...f }], { snaplen: 128 }));
    expect(info.format).toBe('pcap');
    expect(info.packets).toBe(1);
    expect(info.warnings).toEqual([]);
    const p = packets[0];
    expect(p).toMatchObject({
      kind: PacketKind.tcp,
      linkType: 1,
      sec: 1700000000,
      nsec: 123456000,
      capLen: 128,
      origLen: 14 + 20 + 52 + 1448,
      ipVersion: 4,
      src: '10.0.0.2',
      dst: '10.0.0.1',
      sport: 443,
      dport: 40000,
      payloadLen: 1448,
      seq: 4294967000,
      ack: 77,
      flags: TcpFlag.psh | TcpFlag.ack,
      window: 501,
      tsVal: 123456,
      tsEcr: 654321,
      sack: [100, 200, 300, 400],
    });
    expect(p.options).toBe(TcpOpt.timestamps | TcpOpt.sack);
  });

  it('reads big-endian nanosecond pcap with exact nanoseconds', () => {
    const f = dataSeg();
    const { packets } = readAll(writePcap([{ time: [1700000001, 999999999], ...f }], { nanos: true, bigEndian: true }));
    expect(packets[0]).toMatchObject({ sec: 1700000001, nsec: 999999999, seq: 4294967000, payloadLen: 1448 });
  });

  it.each<[Link]>([['sll'], ['sll2'], ['raw'], ['raw4'], ['null']])('decodes link type %s', (link) => {
    const { packets } = readAll(writePcap([{ time: 1, ...dataSeg(link) }], { link }));
    expect(packets[0]).toMatchObject({ kind: PacketKind.tcp, linkType: LINKTYPE[link], payloadLen: 1448, sport: 443 });
  });

  it('decodes IPv6 TCP with SYN options, and IPv6 behind a hop-by-hop extension header', () => {
    const syn = tcpFrame({
      src: '2001:db8::1',
      dst: '2001:db8:0:0:1::2',
      sport: 50000,
      dport: 443,
      seq: 1,
      flags: 'S',
      options: { mss: 1440, wscale: 7, sackPermitted: true },
    });
    // Insert an 8-byte hop-by-hop header after the fixed IPv6 header.
    const withExt = new Uint8Array(syn.bytes.length + 8);
    withExt.set(syn.bytes.subarray(0, 14 + 40));
    withExt.set([6, 0, 1, 4, 0, 0, 0, 0], 54); // next=TCP, len=0 (8 bytes), PadN
    withExt.set(syn.bytes.subarray(54), 62);
    withExt[14 + 6] = 0; // IPv6 next header: hop-by-hop
    const plen = (withExt[18] << 8) | withExt[19];
    withExt[18] = (plen + 8) >> 8;
    withExt[19] = (plen + 8) & 255;
    const { packets } = readAll(
      writePcap([
        { time: 1, ...syn },
        { time: 2, bytes: withExt, origLen: syn.origLen + 8 },
      ]),
    );
    for (const p of packets) {
      expect(p).toMatchObject({
        kind: PacketKind.tcp,
        ipVersion: 6,
        src: '2001:db8::1',
        dst: '2001:db8::1:0:0:2', // RFC 5952: first of two equal zero runs is compressed
        sport: 50000,
        dport: 443,
        flags: TcpFlag.syn,
        mss: 1440,
        wscale: 7,
        payloadLen: 0,
      });
      expect(p.options).toBe(TcpOpt.mss | TcpOpt.wscale | TcpOpt.sackPermitted);
    }
  });

  it('decodes UDP and skips VLAN tags', () => {
    const u = udpFrame({ src: '192.168.1.5', dst: '8.8.8.8', sport: 5353, dport: 443, payloadLen: 1200 }, { snaplen: 128 });
    const tagged = new Uint8Array(u.bytes.length + 4);
    tagged.set(u.bytes.subarray(0, 12));
    tagged.set([0x81, 0x00, 0x00, 0x2a], 12);
    tagged.set(u.bytes.subarray(12), 16);
    const { packets } = readAll(writePcap([{ time: 1, bytes: tagged, origLen: u.origLen + 4 }]));
    expect(packets[0]).toMatchObject({ kind: PacketKind.udp, src: '192.168.1.5', sport: 5353, dport: 443, payloadLen: 1200 });
  });

  it('takes the length from the wire when the IP length field is 0 (TSO capture)', () => {
    const f = tcpFrame(
      { src: '10.0.0.2', dst: '10.0.0.1', sport: 1, dport: 2, seq: 0, ack: 0, flags: 'A', payloadLen: 30000 },
      { snaplen: 128, ipLenField: 0 },
    );
    const { packets } = readAll(writePcap([{ time: 1, ...f }]));
    expect(packets[0]).toMatchObject({ kind: PacketKind.tcp, payloadLen: 30000 });
  });

  it('marks inconsistent headers malformed instead of throwing, and keeps reading', () => {
    const good = dataSeg();
    const bad = new Uint8Array(good.bytes);
    bad[14 + 2] = 0xff; // IPv4 total length 65535 > frame
    const arp = new Uint8Array(60);
    arp[12] = 0x08;
    arp[13] = 0x06;
    const short = good.bytes.subarray(0, 14 + 20 + 10); // TCP header cut by the snaplen
    const { packets } = readAll(
      writePcap([
        { time: 1, bytes: bad, origLen: good.origLen },
        { time: 2, bytes: arp, origLen: 60 },
        { time: 3, bytes: short, origLen: good.origLen },
        { time: 4, ...good },
      ]),
    );
    expect(packets.map((p) => p.kind)).toEqual([PacketKind.malformed, PacketKind.notIp, PacketKind.malformed, PacketKind.tcp]);
    expect(packets[0].reason).toMatch(/total length/);
    expect(packets[2].reason).toMatch(/TCP header cut short/);
  });
});

describe('pcapng reader', () => {
  const frames: Frame[] = [
    { time: [1700000000, 1000], ...dataSeg() },
    { time: [1700000000, 500000000], ...dataSeg('raw'), iface: 1 },
  ];

  it.each([
    ['little-endian, us and ns interfaces', false],
    ['big-endian', true],
  ])('%s', (_name, bigEndian) => {
    const buf = writePcapng(frames, {
      bigEndian,
      extraBlocks: true,
      interfaces: [
        { linkType: 1, tsresol: 6 },
        { linkType: 101, tsresol: 9 },
      ],
    });
    const { packets, info } = readAll(buf);
    expect(info.format).toBe('pcapng');
    expect(info.linkTypes.sort()).toEqual([1, 101]);
    expect(packets.map((p) => [p.linkType, p.sec, p.nsec, p.payloadLen, p.seq])).toEqual([
      [1, 1700000000, 1000, 1448, 4294967000],
      [101, 1700000000, 500000000, 1448, 4294967000],
    ]);
  });

  it('converts binary (2^-n) timestamp resolutions', () => {
    const buf = writePcapng([{ time: [1700000000, 500000000], ...dataSeg() }], { interfaces: [{ linkType: 1, tsresol: 0x80 | 20 }] });
    const { packets } = readAll(buf);
    expect(packets[0].sec).toBe(1700000000);
    expect(Math.abs(packets[0].nsec - 500000000)).toBeLessThan(1000);
  });

  it('rejects a packet on an unsupported link type, naming the byte offset', () => {
    const buf = writePcapng([{ time: 1, ...dataSeg() }], { interfaces: [{ linkType: 127 }] });
    expect(() => readAll(buf)).toThrow(/unsupported link type 127 \(802\.11 radiotap\) at byte 60/);
  });

  it('rejects a block whose trailing length does not match', () => {
    const buf = writePcapng([{ time: 1, ...dataSeg() }]);
    buf[buf.length - 1] ^= 0x10; // corrupt the last block's trailer
    expect(() => readAll(buf)).toThrow(BadInputError);
  });
});

describe('pcap reader: bad input', () => {
  const two = writePcap([
    { time: 1, ...dataSeg() },
    { time: 2, ...dataSeg() },
  ]);

  it('rejects an empty file and unknown magic with BadInputError', () => {
    expect(() => readAll(new Uint8Array(0))).toThrow(/test.pcap: the file is empty/);
    expect(() => readAll(Buffer.from('GET / HTTP/1.1\r\n\r\n...........'))).toThrow(/unknown file magic 0x47455420 at byte 0/);
    expect(() => readAll(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]))).toThrow(/gzip/);
  });

  it('rejects an unsupported pcap link type at the header offset', () => {
    const buf = writePcap([{ time: 1, ...dataSeg() }], { linkType: 105 });
    expect(() => readAll(buf)).toThrow(/unsupported link type 105 \(802\.11\) at byte 20/);
  });

  it('stops with a warning on a truncated last record', () => {
    const { packets, info } = readAll(two.subarray(0, two.length - 10));
    expect(packets).toHaveLength(1);
    expect(info.truncated).toBe(true);
    expect(info.warnings[0]).toMatch(/last record at byte 168 is truncated \(134 of 144 bytes\)/);
  });

  it('rejects an impossible record length with the record offset', () => {
    const buf = Buffer.from(two);
    buf.writeUInt32LE(5_000_000, 168 + 8);
    expect(() => readAll(buf)).toThrow(/record length 5000000 exceeds 262144 at byte 168/);
  });

  it('reads identically across chunk boundaries of the file reader', async () => {
    const frames: Frame[] = [];
    for (let i = 0; i < 300; i++) frames.push({ time: 1 + i / 1000, ...dataSeg(i % 2 ? 'ethernet' : 'ethernet', 60 + (i % 70)) });
    for (const [name, buf] of [
      ['a.pcap', writePcap(frames)],
      ['a.pcapng', writePcapng(frames)],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, buf);
      const whole = readAll(buf).packets;
      for (const chunkSize of [256, 1000, 4096]) {
        const got: Snap[] = [];
        const info = await readCapture(path, (p) => got.push(snapshot(p)), { chunkSize });
        expect(info.packets).toBe(300);
        expect(got.map((p) => ({ ...p, fileOffset: 0 }))).toEqual(whole.map((p) => ({ ...p, fileOffset: 0 })));
        expect(got.map((p) => p.fileOffset)).toEqual(whole.map((p) => p.fileOffset));
      }
    }
  });

  it('reports a missing file as BadInputError', async () => {
    await expect(readCapture(join(dir, 'nope.pcap'), () => {})).rejects.toThrow(/cannot open the capture \(ENOENT\)/);
  });
});
