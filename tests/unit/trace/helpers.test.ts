import { describe, expect, it } from 'vitest';
import { markAppLimited } from '../../../src/trace/app-limited.js';
import { TupleQueue, median } from '../../../src/trace/buffers.js';
import { toCsv, toFlowsCsv, toJson } from '../../../src/trace/format.js';
import { formatIpv6, parseIp } from '../../../src/trace/ip.js';
import { addRange, coveredBytes, removeRange, trimBelow } from '../../../src/trace/ranges.js';
import { SampleFlag } from '../../../src/trace/tcp-bif.js';
import { traceBuffer } from '../../../src/trace/trace.js';
import { TcpConversation, writePcap } from './pcap-writer.js';

describe('range sets', () => {
  it('merges, reports new bytes, removes and trims', () => {
    const s: number[] = [];
    expect(addRange(s, 10, 20)).toBe(10);
    expect(addRange(s, 30, 40)).toBe(10);
    expect(addRange(s, 15, 35)).toBe(10); // only 20..30 is new
    expect(s).toEqual([10, 40]);
    expect(addRange(s, 40, 50)).toBe(10); // touching ranges merge
    expect(s).toEqual([10, 50]);
    expect(removeRange(s, 20, 25)).toBe(5);
    expect(s).toEqual([10, 20, 25, 50]);
    trimBelow(s, 30);
    expect(s).toEqual([30, 50]);
    expect(coveredBytes(s)).toBe(20);
  });
});

describe('small helpers', () => {
  it('TupleQueue keeps FIFO order across growth and wrap', () => {
    const q = new TupleQueue(2, 2);
    for (let i = 0; i < 5; i++) q.push(i, i * 10);
    q.shift();
    q.shift();
    for (let i = 5; i < 9; i++) q.push(i, i * 10);
    expect(Array.from({ length: q.size }, (_, i) => [q.get(i, 0), q.get(i, 1)])).toEqual(
      [2, 3, 4, 5, 6, 7, 8].map((i) => [i, i * 10]),
    );
  });

  it('median of odd, even and empty inputs', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('parses and prints IP addresses', () => {
    expect(parseIp('192.168.0.1')?.words[0]).toBe(0xc0a80001);
    expect(parseIp('256.0.0.1')).toBeUndefined();
    expect(formatIpv6(parseIp('2001:DB8:0:0:0:0:0:1')!.words)).toBe('2001:db8::1');
    expect(formatIpv6(parseIp('::ffff:10.0.0.1')!.words)).toBe('::ffff:a00:1');
    expect(formatIpv6(parseIp('::')!.words)).toBe('::');
    expect(parseIp('1::2::3')).toBeUndefined();
  });
});

describe('application-limited marking', () => {
  const D = SampleFlag.dataSend;
  it('marks the drain and restart around an idle gap, and the tail', () => {
    const t = Float64Array.from([0, 0.01, 0.1, 0.5, 0.51, 0.6]);
    const bif = Float64Array.from([1000, 2000, 0, 1000, 2000, 0]);
    const flags = Uint8Array.from([D, D, 0, D, D, 0]);
    expect(markAppLimited(t, bif, flags, { rttSeconds: 0.1, drainedBytes: 500 })).toBe(3);
    expect(Array.from(flags, (f) => f & SampleFlag.appLimited)).toEqual([0, 0, 1, 1, 0, 1]);
  });

  it('honours idleRtts and leaves gaps shorter than that alone', () => {
    const t = Float64Array.from([0, 0.1, 0.25]);
    const bif = Float64Array.from([1000, 0, 1000]);
    const flags = Uint8Array.from([D, 0, D]);
    markAppLimited(t, bif, flags, { rttSeconds: 0.1, drainedBytes: 500, idleRtts: 3 });
    expect(Array.from(flags, (f) => f & SampleFlag.appLimited)).toEqual([0, 0, 0]);
  });
});

describe('output formats', () => {
  const c = new TcpConversation({ client: '10.0.0.1', server: '10.0.0.2', clientPort: 40000, serverPort: 443 });
  c.handshake(0, 0.1);
  c.serverData(0.2, 0, 1000);
  c.clientAck(0.3, 1000);
  const r = traceBuffer(writePcap(c.frames), 'f.pcap');

  it('CSV has one row per sample', () => {
    expect(toCsv(r)).toBe('flow_id,t_s,bif_bytes,app_limited,flags\ntcp-0,0.2,1000,0,16\ntcp-0,0.3,0,1,1\n');
  });

  it('flow CSV has one row per flow', () => {
    const lines = toFlowsCsv(r).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^tcp-0,tcp,tcp:10\.0\.0\.1:40000-10\.0\.0\.2:443,syn,0,0\.3,1,tcp-seq-ack,2,/);
  });

  it('JSON turns typed arrays into arrays and can leave the series out', () => {
    const j = JSON.parse(toJson(r));
    expect(j.schemaVersion).toBe(1);
    expect(j.flows[0].series.bif).toEqual([1000, 0]);
    expect(j.flows[0].series.rttSeconds).toBeCloseTo(0.1, 9);
    expect(JSON.parse(toJson(r, { series: false })).flows[0].series).toBeUndefined();
  });
});
