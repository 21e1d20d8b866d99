/**
 * The userspace NFQUEUE delay line on real namespaces: A <-> M (NFQUEUE) <-> B.
 * Timing assertions use the tolerances the classifier needs (median within 1 ms, p99
 * within 3 ms). The RTT check gets up to three attempts: on a shared 2-core VM whose
 * kernel runs without preemption ("Dynamic Preempt: none"), other tasks' kernel work
 * can hold off even a real-time process for a few ms, while a wrong delay fails every
 * attempt. An attempt during which the delay line itself logged a late release that
 * explains the p99's excess over its 3 ms (CI: 8.4 ms late, p99 9.4 ms over), while an
 * independent sampler saw the host stall by more than 3 ms,
 * does not count against those three (6 attempts at most).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addNfqueueRules,
  buildDelayLab,
  cpuTimesSample,
  ensureNativeBuilt,
  randomTag,
  runOneWay,
  runRtt,
  stealPercent,
  warmUp,
  type DelayLab,
  type OneWayResult,
  type RttResult,
} from '../../bench/delayline.js';
import { CleanupStack, ownersDir } from '../../src/net/cleanup.js';
import { isSameProcess, processStartTime } from '../../src/net/resources.js';
import { delayLineBinaryPath, startDelayLine, type DelayLine, type DelayLineExit } from '../../src/shaper/delayline.js';
import { startHostStallMonitor } from '../../src/shaper/host-stalls.js';
import { BadInputError } from '../../src/util/errors.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.warn('SKIPPED tests/integration/delayline.test.ts: needs root (network namespaces, iptables, NFQUEUE); run as root');
}

const QUEUE = 11;
const ONE_WAY_MS = 50;

describe.skipIf(!isRoot)('ccb-delayline on real namespaces', () => {
  const tag = randomTag();
  let stack: CleanupStack;
  let lab: DelayLab;
  let dl: DelayLine;

  beforeAll(async () => {
    await ensureNativeBuilt();
    stack = new CleanupStack(`ccbdl-test-${tag}`);
    lab = await buildDelayLab(stack, tag);
    dl = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: ONE_WAY_MS, stack });
    await addNfqueueRules(stack, lab, QUEUE);
    await warmUp(stack, lab);
  });

  afterAll(async () => {
    await stack?.unwind();
  });

  it('resolves the built binary under build/native', () => {
    expect(delayLineBinaryPath()).toMatch(/build\/native\/ccb-delayline$/);
  });

  it('rejects bad options before starting anything', async () => {
    await expect(startDelayLine({ netns: lab.nsM, queueNum: 70_000, delayMs: 1, stack })).rejects.toBeInstanceOf(BadInputError);
    await expect(startDelayLine({ netns: lab.nsM, queueNum: 1, delayMs: -5, stack })).rejects.toBeInstanceOf(BadInputError);
  });

  it('delays both directions by 50 ms: RTT median within 1 ms of 100 ms, p99 within 3 ms', async () => {
    const attempts: Array<RttResult & { stealPercent: number; hostStallMs: number }> = [];
    let counted = 0;
    while (counted < 3 && attempts.length < 6) {
      const t0 = cpuTimesSample();
      const fromUs = Date.now() * 1000;
      const monitor = startHostStallMonitor(60_000);
      const r = await runRtt(stack, lab, { ratePps: 50, count: 200 });
      const host = await monitor.stop();
      const windows = (await dl.stats()).lateWindowsUs ?? [];
      const hostStallMs = Math.max(0, ...windows.filter(([due]) => due >= fromUs).map(([due, released]) => (released - due) / 1000));
      attempts.push({ ...r, stealPercent: stealPercent(t0, cpuTimesSample()), hostStallMs });
      const ok = r.received === r.sent && Math.abs(r.p50Us / 1000 - 2 * ONE_WAY_MS) <= 1 && r.p99Us / 1000 - 2 * ONE_WAY_MS <= 3;
      if (ok) break;
      // The host held the delay line back by as much as the p99 is over, and an independent
      // sampler saw the host stall too: not the delay line's error.
      const stalled = r.received === r.sent && hostStallMs >= r.p99Us / 1000 - 2 * ONE_WAY_MS - 3 && host.lateOver3ms > 0;
      if (!stalled) counted++;
    }
    const best = attempts[attempts.length - 1];
    const detail = JSON.stringify(attempts);
    console.info(`delay line RTT (50+50 ms): ${attempts.map((a) => `median ${(a.p50Us / 1000).toFixed(3)} ms, p99 ${(a.p99Us / 1000).toFixed(3)} ms, steal ${a.stealPercent.toFixed(1)}%, longest late release ${a.hostStallMs.toFixed(1)} ms`).join('; retry: ')}`);
    expect(best.received, detail).toBe(best.sent);
    expect(Math.abs(best.p50Us / 1000 - 100), `median RTT off by more than 1 ms: ${detail}`).toBeLessThanOrEqual(1);
    expect(best.p99Us / 1000 - 100, `p99 RTT more than 3 ms over: ${detail}`).toBeLessThanOrEqual(3);
    // Never faster than configured: a packet released early would mean a broken clock or FIFO.
    expect(best.minUs / 1000, detail).toBeGreaterThanOrEqual(100);
  });

  it('keeps a numbered 5,000 packets/s stream in order, without loss, at 50 ms one-way', async () => {
    const r = await runOneWay(stack, lab, { ratePps: 5000, count: 10_000 });
    console.info(`delay line one-way (50 ms, 5000/s): median ${(r.p50Us / 1000).toFixed(3)} ms, p99 ${(r.p99Us / 1000).toFixed(3)} ms, ${r.received}/10000 received, ${r.reordered} reordered`);
    expect(r.reordered, JSON.stringify(r)).toBe(0);
    expect(r.duplicates).toBe(0);
    expect(r.received, JSON.stringify(r)).toBe(10_000);
    expect(r.minUs / 1000).toBeGreaterThanOrEqual(ONE_WAY_MS);
    expect(Math.abs(r.p50Us / 1000 - ONE_WAY_MS), JSON.stringify(r)).toBeLessThanOrEqual(1);
  });

  it('reports its counters on SIGUSR1 without stopping', async () => {
    const s = await dl.stats();
    // Everything so far went through it: RTT probes both ways plus the 10,000-packet stream.
    expect(s.packets).toBeGreaterThanOrEqual(2 * 200 + 10_000);
    expect(s.maxHeld).toBeGreaterThanOrEqual(200); // 5,000/s x 50 ms = 250 in flight
    expect(s.maxHeld).toBeLessThan(10_000);
    expect(s.enobufs).toBe(0);
    expect(s.kernelQueueDropped).toBe(0);
    // Timed from the kernel's receive stamps (the default), not from when it read them.
    expect(s.kernelStamped).toBe(s.packets);
    expect(dl.isAlive()).toBe(true);
  });

  it('logs a late release as [due, released] in capture time when it is held back (here: stopped for 40 ms)', async () => {
    const fromUs = Date.now() * 1000;
    const before = (await dl.stats()).packets;
    const stream = runOneWay(stack, lab, { ratePps: 1000, count: 1500 }); // 1.5 s of packets due every ms
    // Stop it once the stream is flowing and packets have been held for a full delay.
    for (let i = 0; i < 100 && (await dl.stats()).packets < before + 200; i++) await new Promise((r) => setTimeout(r, 20));
    process.kill(dl.pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, 40));
    process.kill(dl.pid, 'SIGCONT');
    const r = await stream;
    expect(r.received).toBe(1500);
    const windows = ((await dl.stats()).lateWindowsUs ?? []).filter(([due]) => due >= fromUs);
    const longest = windows.reduce((best, w) => (w[1] - w[0] > best[1] - best[0] ? w : best), [0, 0]);
    console.info(`late windows after a 40 ms stop: ${windows.length}, longest ${((longest[1] - longest[0]) / 1000).toFixed(1)} ms`);
    // The packets due while it was stopped left when it resumed, ~40 ms late, within the stream.
    expect((longest[1] - longest[0]) / 1000).toBeGreaterThan(30);
    expect((longest[1] - longest[0]) / 1000).toBeLessThan(200);
    expect(longest[0]).toBeGreaterThan(fromUs);
    expect(longest[1]).toBeLessThan(Date.now() * 1000);
  });

  it('forgets the late windows logged so far on SIGUSR2 (a delay line kept across measurements), after reporting them', async () => {
    const logged = (await dl.stats()).lateWindowsUs ?? [];
    expect(logged.length, 'the 40 ms stop above was logged').toBeGreaterThan(0);
    const taken = await dl.takeStats();
    expect((taken.lateWindowsUs ?? []).length).toBeGreaterThanOrEqual(logged.length);
    const takenAtUs = Date.now() * 1000;
    // Windows logged since (a busy host) all end after the take; none of the earlier ones is left.
    const after = (await dl.stats()).lateWindowsUs ?? [];
    for (const w of logged) expect(after).not.toContainEqual(w);
    for (const [, released] of after) expect(released).toBeGreaterThan(takenAtUs - 50_000);
    expect(dl.isAlive()).toBe(true);
  });

  it('refuses a queue another process owns, with a clear error and nothing left behind', async () => {
    const before = stack.size;
    await expect(startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: 10, stack })).rejects.toThrow(
      /could not set up NFQUEUE 11.*cannot bind NFQUEUE 11/s,
    );
    expect(stack.size).toBe(before);
    expect(dl.isAlive()).toBe(true);
  });

  it('drops all traffic once the delay line dies (fail closed) and tells the caller', async () => {
    const exits: DelayLineExit[] = [];
    dl.on('exit', (e) => exits.push(e));
    process.kill(dl.pid, 'SIGKILL');
    const exit = await dl.exited;
    expect(exit.expected).toBe(false);
    expect(exit.signal).toBe('SIGKILL');
    expect(exits).toHaveLength(1);
    expect(dl.isAlive()).toBe(false);
    await expect(dl.stats()).rejects.toThrow(/not running/);

    const r = await runOneWay(stack, lab, { ratePps: 1000, count: 500, firstTimeoutMs: 1500 });
    expect(r.received, 'packets passed with no delay line bound: the queue failed open').toBe(0);
  });

  it('can bind the queue again after a death (here timing from its own reads), and stop() returns final counters', async () => {
    const before = stack.size;
    const again = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: 5, stack, kernelTimestamps: false });
    expect(stack.size).toBe(before + 1);
    const r = await runOneWay(stack, lab, { ratePps: 1000, count: 300 });
    expect(r.received).toBe(300);
    expect(r.p50Us / 1000).toBeGreaterThanOrEqual(5);
    expect(r.p50Us / 1000).toBeLessThan(6);
    const final = await again.stop();
    expect(final.packets).toBeGreaterThanOrEqual(300);
    expect(final.held).toBe(0);
    expect(final.kernelStamped).toBe(0);
    expect(again.isAlive()).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(stack.size).toBe(before);
  });

  it('adds jitter within [delay, delay + jitter] without reordering (lab regions)', async () => {
    // As the 50 ms test above: an attempt the host held back (the delay line logged a late release
    // as long as the p99 is over, and an independent sampler saw the host stall) is retried, not counted.
    const P99_BOUND_MS = 12;
    const attempts: Array<OneWayResult & { hostStallMs: number }> = [];
    let counted = 0;
    while (counted < 3 && attempts.length < 6) {
      const again = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: 5, jitterMs: 4, seed: 7, stack });
      const fromUs = Date.now() * 1000;
      const monitor = startHostStallMonitor(60_000);
      const r = await runOneWay(stack, lab, { ratePps: 200, count: 600 });
      const host = await monitor.stop();
      const windows = (await again.stats()).lateWindowsUs ?? [];
      await again.stop();
      const hostStallMs = Math.max(0, ...windows.filter(([due]) => due >= fromUs).map(([due, released]) => (released - due) / 1000));
      attempts.push({ ...r, hostStallMs });
      if (r.received === 600 && r.p99Us / 1000 < P99_BOUND_MS) break;
      const stalled = r.received === 600 && hostStallMs >= r.p99Us / 1000 - P99_BOUND_MS && host.lateOver3ms > 0;
      if (!stalled) counted++;
    }
    const r = attempts[attempts.length - 1];
    const detail = JSON.stringify(attempts);
    console.info(`jitter 5+U(0,4) ms: ${attempts.map((a) => `min ${(a.minUs / 1000).toFixed(2)} median ${(a.p50Us / 1000).toFixed(2)} p99 ${(a.p99Us / 1000).toFixed(2)} ms, longest late release ${a.hostStallMs.toFixed(1)} ms`).join('; retry: ')}`);
    expect(r.received, detail).toBe(600);
    expect(r.reordered, detail).toBe(0);
    expect(r.minUs / 1000, detail).toBeGreaterThanOrEqual(5);
    // Spread: the median sits inside the jitter range, not at either end.
    expect(r.p50Us / 1000, detail).toBeGreaterThan(5.8);
    expect(r.p50Us / 1000, detail).toBeLessThan(8.5);
    expect(r.p99Us / 1000, detail).toBeLessThan(P99_BOUND_MS);
  });

  it('unwinds every namespace and process it created', async () => {
    const probe = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE + 1, delayMs: 1, stack });
    const startTime = processStartTime(probe.pid) ?? '';
    const failures = await stack.unwind();
    expect(failures).toEqual([]);
    expect(isSameProcess(probe.pid, startTime)).toBe(false);
    const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    expect(namespaces).not.toContain(`ccbdl-${tag}`);
    expect(existsSync(join(ownersDir(), `ccbdl-test-${tag}.json`))).toBe(false);
  });
});
