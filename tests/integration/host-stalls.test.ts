/**
 * The host-stall sampler (ccb-udpprobe stalls) on this machine: a stall we cause ourselves
 * (SIGSTOP of the sampler for 40 ms) must show as one wake-up ~40 ms late.
 */
import { describe, expect, it } from 'vitest';
import { ensureNativeBuilt } from '../../bench/delayline.js';
import { describeHostStalls, measureHostStalls, startHostStallMonitor } from '../../src/shaper/host-stalls.js';
import { sleep } from '../../src/util/exec.js';

describe('host stall sampler', () => {
  it('counts every millisecond it was asked for and reports how late it woke', async () => {
    await ensureNativeBuilt();
    const s = await measureHostStalls(500);
    console.info(`host now: ${describeHostStalls(s)}`);
    expect(s.wakeups).toBe(500);
    expect(s.lateOver3ms).toBeLessThanOrEqual(s.lateOver1ms);
    expect(s.lateOver1ms).toBeLessThan(500);
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
    expect(s.wakeups).toBeGreaterThan(400);
    expect(s.wakeups).toBeLessThan(5000);
    expect(s.maxLateUs / 1000).toBeGreaterThan(30);
    expect(s.maxLateUs / 1000).toBeLessThan(500);
    expect(s.lateOver3ms).toBeGreaterThanOrEqual(1);
  });
});
