import { describe, expect, it } from 'vitest';
import { formatBytes, formatProgress, parseNetDev, ProgressMeter, readIfaceCounters, type ProgressSample } from '../../../src/session/progress.js';

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1200      12    0    0    0     0          0         0     1200      12    0    0    0     0       0          0
ccb0a1b2ss: 1440309    8103    0    0    0     0          0         0   365729     4810    0    0    0     0       0          0
`;

describe('progress', () => {
  it("reads an interface's counters from /proc/net/dev text", () => {
    expect(parseNetDev(NET_DEV, 'ccb0a1b2ss')).toEqual({ rxBytes: 1440309, rxPackets: 8103, txBytes: 365729, txPackets: 4810 });
    expect(parseNetDev(NET_DEV, 'ccb0a1b2s')).toBeNull();
    expect(parseNetDev('garbage', 'lo')).toBeNull();
  });

  it("reads a real process's namespace (this one: lo), and null for a process that does not exist", () => {
    expect(readIfaceCounters(process.pid, 'lo')).toMatchObject({ rxBytes: expect.any(Number) });
    expect(readIfaceCounters(2 ** 22 + 7, 'lo')).toBeNull();
  });

  it('formats bytes and a progress line with phase, elapsed, flows and bytes', () => {
    expect([formatBytes(999), formatBytes(1500), formatBytes(312_400), formatBytes(1_440_309), formatBytes(25e6)]).toEqual(['999 B', '1.5 kB', '312 kB', '1.44 MB', '25.0 MB']);
    const s: ProgressSample = { profile: 'nebby-50', phase: 'activity', elapsedSeconds: 12.4, flows: 3, bytesDown: 312_400, bytesUp: 18_000, packetsDown: 2000, packetsUp: 1000 };
    expect(formatProgress(s)).toBe('[nebby-50] activity 12 s, 3 flows, 312 kB down / 18 kB up captured (3000 packets)');
  });

  it('counts from its start, and skips a tick while the previous one is still running', async () => {
    const emitted: ProgressSample[] = [];
    let release: (n: number) => void = () => {};
    const meter = new ProgressMeter({
      profile: 'p', capturePid: process.pid, dev: 'lo', startedAt: Date.now(),
      flowsSeen: () => new Promise<number>((r) => { release = r; }), emit: (s) => emitted.push(s),
    });
    const first = meter.tick();
    expect(await meter.tick()).toBeNull(); // overlapping: skipped
    release(4);
    const s = await first;
    expect(s).toMatchObject({ profile: 'p', phase: 'page', flows: 4 });
    expect(s!.bytesDown).toBeGreaterThanOrEqual(0);
    expect(emitted).toHaveLength(1);
  });
});
