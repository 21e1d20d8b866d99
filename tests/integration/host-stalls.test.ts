/**
 * The host-stall sampler (ccb-udpprobe stalls) on this machine: one sampler per CPU, and a
 * stall we cause ourselves (SIGSTOP of the sampler for 40 ms) must show as one wake-up ~40 ms
 * late on each.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ensureNativeBuilt } from '../../bench/delayline.js';
import { describeHostStalls, measureHostStalls, startHostStallMonitor } from '../../src/shaper/host-stalls.js';
import { sleep } from '../../src/util/exec.js';

describe('host stall sampler', () => {
  it('counts every millisecond it was asked for and reports how late it woke', async () => {
    await ensureNativeBuilt();
    const s = await measureHostStalls(500);
    console.info(`host now: ${describeHostStalls(s)}`);
    expect(s.cpus).toBe(availableParallelism());
    expect(s.wakeups).toBe(500 * s.cpus);
    expect(s.lateOver3ms).toBeLessThanOrEqual(s.lateOver1ms);
    expect(s.lateOver1ms).toBeLessThan(s.wakeups);
  });

  it('sees a 40 ms stop as a wake-up ~40 ms late, and stops on request with its figures', async () => {
    await ensureNativeBuilt();
    const monitor = startHostStallMonitor(60_000);
    await sleep(300);
    process.kill(monitor.pid, 'SIGSTOP');
    await sleep(40);
    process.kill(monitor.pid, 'SIGCONT');
    await sleep(200);
    const s = await monitor.stop();
    console.info(`after a 40 ms stop: ${describeHostStalls(s)}`);
    expect(s.wakeups).toBeGreaterThan(400 * s.cpus);
    expect(s.wakeups).toBeLessThan(5000 * s.cpus);
    expect(s.maxLateUs / 1000).toBeGreaterThan(30);
    expect(s.maxLateUs / 1000).toBeLessThan(500);
    // The stop held every CPU's sampler: one late wake-up each, ~40 ms late in all.
    expect(s.lateOver3ms).toBeGreaterThanOrEqual(s.cpus);
    expect(s.lateOver1msTotalMs).toBeGreaterThan(30 * s.cpus);
  });
});
