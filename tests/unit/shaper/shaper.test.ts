import { describe, expect, it } from 'vitest';
import { htbBatch, htbBurstBytes } from '../../../src/shaper/shaper.js';
import { parseProfile } from '../../../src/shaper/profile.js';
import { parseTcpdumpStats } from '../../../src/capture/tcpdump.js';
import { expectedTcpGoodputKbit, goodputKbit } from '../../../src/shaper/check.js';

const profile = parseProfile({ name: 't', rateKbit: 200, delayMs: 50, buffer: { bdp: 2 } }, 't');

describe('HTB set-up script', () => {
  it('has a valid default class, a shared class and one class + byte FIFO per flow slot', () => {
    const script = htbBatch('eth9', profile, 4, 5000, 1500);
    expect(script).toMatch(/^qdisc add dev eth9 root handle 1: htb default 2$/m);
    const classes = script.match(/^class add .*$/gm)!;
    expect(classes).toHaveLength(2 + 4);
    expect(script).toContain('classid 1:100 htb rate 200kbit ceil 200kbit');
    expect(script).toContain('classid 1:103 ');
    expect(script).not.toContain('classid 1:104 ');
    expect(script.match(/bfifo limit 5000/g)).toHaveLength(6);
  });

  it('keeps HTB bursts to about one frame at low rates, 1 ms of data at high rates', () => {
    expect(htbBurstBytes(200, 1500)).toBe(1614);
    expect(htbBurstBytes(100_000, 1500)).toBe(12_500);
  });
});

describe('measurement arithmetic', () => {
  it('parses tcpdump closing statistics', () => {
    const s = parseTcpdumpStats('tcpdump: listening on x\n1234 packets captured\n1240 packets received by filter\n6 packets dropped by kernel\n');
    expect(s).toEqual({ captured: 1234, receivedByFilter: 1240, droppedByKernel: 6 });
  });

  it('computes goodput after the warm-up and the TCP goodput a wire rate allows', () => {
    const samples: [number, number][] = [[0, 0], [1, 100], [2, 25_100], [3, 50_100]];
    expect(goodputKbit(samples, 1.5)).toBeCloseTo(200, 5);
    // 1448 payload bytes in a 1514-byte frame.
    expect(expectedTcpGoodputKbit(200, 1448)).toBeCloseTo((200 * 1448) / 1514, 6);
  });
});
