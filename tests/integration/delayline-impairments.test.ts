/**
 * The delay line's path impairments on real namespaces, A <-> M (NFQUEUE) <-> B: loss
 * (independent and bursty), reordering (a chosen packet's extra delay, or jitter that may
 * reorder), aggregated releases, and fail closed with all of them on.
 *
 * Each case starts its own delay line, so the only packets it decides on are the case's own
 * numbered stream: with a fixed seed its random decisions are the same on every run. The
 * statistical bounds are 4 standard deviations of the model around its target: they catch a
 * wrong model (rate, burst length, extra delay), not bad luck. The receiver logs every packet
 * (ccb-udpprobe recv --log): losses, loss runs, reordering and arrival times come from it.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addNfqueueRules,
  buildDelayLab,
  ensureNativeBuilt,
  randomTag,
  readArrivalLog,
  runOneWay,
  warmUp,
  type ArrivalRecord,
  type DelayLab,
  type OneWayResult,
  type ProbeOptions,
} from '../../bench/delayline.js';
import { CleanupStack } from '../../src/net/cleanup.js';
import { startDelayLine, type DelayLineOptions, type DelayLineStats } from '../../src/shaper/delayline.js';
import { median } from '../../src/util/stats.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.warn('SKIPPED tests/integration/delayline-impairments.test.ts: needs root (network namespaces, iptables, NFQUEUE); run as root');
}

const QUEUE = 13;
const DELAY_MS = 5;

/** Lengths of the runs of consecutive sequence numbers in 0..count-1 that never arrived. */
function lossRuns(log: ArrivalRecord[], count: number): number[] {
  const seen = new Uint8Array(count);
  for (const r of log) seen[r.seq] = 1;
  const runs: number[] = [];
  let run = 0;
  for (let seq = 0; seq < count; seq++) {
    if (!seen[seq]) run++;
    else if (run > 0) runs.push(run), (run = 0);
  }
  if (run > 0) runs.push(run);
  return runs;
}

/** Packets that arrived after a higher-numbered one (what the receiver counts as reordered). */
function lateArrivals(log: ArrivalRecord[]): ArrivalRecord[] {
  let highest = -1;
  return log.filter((r) => {
    const late = r.seq < highest;
    highest = Math.max(highest, r.seq);
    return late;
  });
}

// One retry: each test measures a fresh stream, and a host stall can move one stream's timing
// (stop 33's CI: releases on the tick 85% against the 90% then asked); a wrong impairment fails both.
describe.skipIf(!isRoot)('ccb-delayline impairments on real namespaces', { retry: 1 }, () => {
  const tag = randomTag();
  let stack: CleanupStack;
  let lab: DelayLab;
  let logDir: string;
  let runs = 0;

  /** Runs a numbered stream through a fresh delay line with `impair`; returns what B saw and the line's counters. */
  async function streamThrough(
    impair: Partial<DelayLineOptions>,
    probe: ProbeOptions,
  ): Promise<{ r: OneWayResult; log: ArrivalRecord[]; stats: DelayLineStats }> {
    const dl = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: DELAY_MS, stack, ...impair });
    try {
      const logPath = join(logDir, `run${++runs}.csv`);
      const r = await runOneWay(stack, lab, { firstTimeoutMs: 3000, ...probe, logPath });
      return { r, log: readArrivalLog(logPath), stats: await dl.stop() };
    } finally {
      if (dl.isAlive()) await dl.stop().catch(() => undefined);
    }
  }

  beforeAll(async () => {
    await ensureNativeBuilt();
    stack = new CleanupStack(`ccbdl-impair-test-${tag}`);
    logDir = join(tmpdir(), `ccbdl-impair-${tag}`); // the receiver's packet logs
    stack.push({ kind: 'file', path: logDir });
    mkdirSync(logDir);
    lab = await buildDelayLab(stack, tag);
    await addNfqueueRules(stack, lab, QUEUE);
    // ARP on every hop, through a plain delay line, so no case's first packets wait for it.
    const warm = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: 1, stack });
    await warmUp(stack, lab);
    await warm.stop();
  });

  afterAll(async () => {
    await stack?.unwind();
  });

  it('drops 5% of packets independently (Bernoulli), each loss counted as droppedLoss', async () => {
    const count = 10_000;
    const { r, log, stats } = await streamThrough({ loss: { percent: 5 }, seed: 11 }, { ratePps: 5000, count });
    const lost = count - r.received;
    const runs = lossRuns(log, count);
    const meanRun = lost / runs.length;
    // Binomial(10,000, 0.05): sd = sqrt(n p (1-p)) = 21.8 packets; 4 sd = 0.87 percentage points.
    const sd = Math.sqrt(count * 0.05 * 0.95);
    console.info(`loss 5%: ${lost}/${count} lost (${((lost / count) * 100).toFixed(2)}%, bound 5 +- ${((4 * sd) / count * 100).toFixed(2)}), droppedLoss ${stats.droppedLoss}, ${runs.length} runs, mean run ${meanRun.toFixed(2)}`);
    expect(stats.droppedLoss, 'every packet B missed was dropped by the loss model, and only those').toBe(lost);
    expect(stats.packets).toBe(count);
    expect(Math.abs(lost - count * 0.05)).toBeLessThanOrEqual(4 * sd);
    // Independent losses rarely touch: runs of 1/(1-p) = 1.05 packets on average.
    expect(meanRun).toBeLessThan(1.3);
    expect(r.reordered).toBe(0);
    expect(r.minUs / 1000).toBeGreaterThanOrEqual(DELAY_MS);
  });

  it('drops 5% in bursts of mean length 4 (Gilbert-Elliott)', async () => {
    const count = 10_000;
    const { r, log, stats } = await streamThrough({ loss: { percent: 5, burstLen: 4 }, seed: 11 }, { ratePps: 5000, count });
    const lost = count - r.received;
    const runs = lossRuns(log, count);
    const meanRun = lost / runs.length;
    // Count of a two-state chain's Bad visits: variance n P(1-P)(1+l)/(1-l), l = 1 - p - r the
    // chain's second eigenvalue (r = 1/4, p = (P/(1-P))/4): sd = 56 packets, 4 sd = 2.2 points.
    const P = 0.05;
    const rGood = 1 / 4;
    const pBad = P / (1 - P) / 4;
    const l = 1 - pBad - rGood;
    const sd = Math.sqrt((count * P * (1 - P) * (1 + l)) / (1 - l));
    console.info(`loss 5% in bursts of 4: ${lost}/${count} lost (${((lost / count) * 100).toFixed(2)}%, bound 5 +- ${((4 * sd) / count * 100).toFixed(2)}), droppedLoss ${stats.droppedLoss}, ${runs.length} runs, mean run ${meanRun.toFixed(2)}, longest ${Math.max(...runs)}`);
    expect(stats.droppedLoss).toBe(lost);
    expect(Math.abs(lost - count * P)).toBeLessThanOrEqual(4 * sd);
    // ~125 runs of geometric length (mean 4, sd 3.5): the mean run's sd is 0.31, so 3..5 is over 3 sd.
    expect(meanRun).toBeGreaterThanOrEqual(3);
    expect(meanRun).toBeLessThanOrEqual(5);
    expect(r.reordered).toBe(0);
  });

  it('reorders 10% of packets by delaying each chosen one 5 ms more (1,000 packets/s)', async () => {
    const count = 3000;
    const { r, log, stats } = await streamThrough({ reorder: { percent: 10, extraMs: 5 }, seed: 11 }, { ratePps: 1000, count });
    const late = lateArrivals(log);
    const extraMs = (median(late.map((x) => x.delayUs)) - median(log.map((x) => x.delayUs))) / 1000;
    // Binomial(3,000, 0.1): sd 16.4 packets, 4 sd = 2.2 points. A chosen packet is overtaken
    // unless the next ~5 are chosen too (1 in 10^5): B's count is the chosen count.
    const sd = Math.sqrt(count * 0.1 * 0.9);
    console.info(`reorder 10%/5 ms: B saw ${r.reordered}/${count} out of order (${((r.reordered / count) * 100).toFixed(2)}%, bound 10 +- ${((4 * sd) / count * 100).toFixed(2)}), each ${extraMs.toFixed(2)} ms later than the median; delay line: reordered ${stats.reordered}, overtaken ${stats.overtaken}, late>1ms ${stats.lateReleasesOver1ms}`);
    expect(r.received).toBe(count);
    expect(Math.abs(r.reordered - count * 0.1)).toBeLessThanOrEqual(4 * sd);
    expect(late.length).toBe(r.reordered);
    expect(extraMs).toBeGreaterThan(4.5);
    expect(extraMs).toBeLessThan(5.5);
    // The delay line's own view agrees with B's (nothing else on this path reorders).
    expect(Math.abs((stats.overtaken ?? -1) - r.reordered)).toBeLessThanOrEqual(2);
    // Each held-back packet is overtaken by the ~4-5 sent in its extra 5 ms.
    expect(stats.reordered).toBeGreaterThan(3 * r.reordered);
    expect(r.minUs / 1000).toBeGreaterThanOrEqual(DELAY_MS);
  });

  it('reorders with jitterReorders, and plain jitter still never does (same seed, 1,000 packets/s, jitter 4 ms)', async () => {
    const count = 1000;
    const plain = await streamThrough({ jitterMs: 4, seed: 7 }, { ratePps: 1000, count });
    const free = await streamThrough({ jitterMs: 4, jitterReorders: true, seed: 7 }, { ratePps: 1000, count });
    console.info(`jitter 4 ms at 1 ms spacing: plain ${plain.r.reordered} reordered; jitterReorders ${free.r.reordered} reordered (overtaken ${free.stats.overtaken}), delays ${(free.r.minUs / 1000).toFixed(2)}..${(free.r.maxUs / 1000).toFixed(2)} ms`);
    expect(plain.r.received).toBe(count);
    expect(plain.r.reordered).toBe(0);
    expect(plain.stats.reordered).toBe(0);
    expect(free.r.received).toBe(count);
    // Two packets 1 ms apart with independent U(0, 4 ms) delays swap 28% of the time.
    expect(free.r.reordered).toBeGreaterThan(0.1 * count);
    expect(Math.abs((free.stats.overtaken ?? -1) - free.r.reordered)).toBeLessThanOrEqual(2);
    expect(free.r.minUs / 1000).toBeGreaterThanOrEqual(DELAY_MS);
    expect(median(free.log.map((x) => x.delayUs)) / 1000).toBeGreaterThan(DELAY_MS + 1);
  });

  it('releases in batches on multiples of 10 ms (aggregateMs), median delay up by ~5 ms', async () => {
    const count = 2000;
    const A = 10;
    const { r, log } = await streamThrough({ aggregateMs: A }, { ratePps: 1000, count });
    const gaps = log.slice(1).map((x, i) => (x.arrivalUs - log[i].arrivalUs) / 1000);
    const batched = gaps.filter((g) => g < 0.5 || Math.abs(g - A) <= 1.5).length / gaps.length;
    // Releases are on multiples of A of the monotonic clock, B's arrival stamps too: arrivals sit just after them.
    const onTick = log.filter((x) => (x.arrivalUs / 1000) % A < 1).length / log.length;
    const grewMs = median(log.map((x) => x.delayUs)) / 1000 - DELAY_MS;
    console.info(`aggregate 10 ms: ${(batched * 100).toFixed(1)}% of gaps < 0.5 ms or 10 +- 1.5 ms, ${(onTick * 100).toFixed(1)}% of arrivals within 1 ms after a 10 ms tick, median delay +${grewMs.toFixed(2)} ms`);
    expect(r.received).toBe(count);
    expect(r.reordered).toBe(0);
    expect(batched).toBeGreaterThanOrEqual(0.9);
    // Unbatched releases at 1 ms spacing would put ~10% there. The receiver stamps arrivals when
    // it reads them, so a host stall moves stamps off the tick: 99.9% on a quiet host, 85% seen
    // on a loaded one. The precision is a benchmark's business; this checks that releases batch.
    expect(onTick).toBeGreaterThanOrEqual(0.6);
    expect(grewMs).toBeGreaterThan(A / 2 - 1);
    expect(grewMs).toBeLessThan(A / 2 + 1.5);
  });

  it('logs a late release as [due, released] in reordering mode too, and a stall reorders nothing by itself (here: stopped for 40 ms)', async () => {
    // Heap mode with (almost) nothing to reorder: 1 packet in 100,000 chosen; this seed chooses none of these.
    const dl = await startDelayLine({ netns: lab.nsM, queueNum: QUEUE, delayMs: DELAY_MS, stack, reorder: { percent: 0.001, extraMs: 5 }, seed: 3 });
    try {
      const fromUs = Date.now() * 1000;
      const stream = runOneWay(stack, lab, { ratePps: 1000, count: 1500 });
      for (let i = 0; i < 100 && (await dl.stats()).packets < 200; i++) await new Promise((res) => setTimeout(res, 20));
      process.kill(dl.pid, 'SIGSTOP');
      await new Promise((res) => setTimeout(res, 40));
      process.kill(dl.pid, 'SIGCONT');
      const r = await stream;
      const stats = await dl.stats();
      const windows = (stats.lateWindowsUs ?? []).filter(([due]) => due >= fromUs);
      const longest = windows.reduce((best, w) => (w[1] - w[0] > best[1] - best[0] ? w : best), [0, 0]);
      console.info(`reordering mode, late windows after a 40 ms stop: ${windows.length}, longest ${((longest[1] - longest[0]) / 1000).toFixed(1)} ms; ${r.reordered} reordered`);
      expect(r.received).toBe(1500);
      expect((longest[1] - longest[0]) / 1000).toBeGreaterThan(30);
      expect((longest[1] - longest[0]) / 1000).toBeLessThan(200);
      expect(longest[0]).toBeGreaterThan(fromUs);
      expect(longest[1]).toBeLessThan(Date.now() * 1000);
      // Packets read after the stall (timed from that read) are not overtaken by the ones behind them.
      expect(r.reordered).toBe(0);
      expect(stats.reordered).toBe(0);
    } finally {
      await dl.stop();
    }
  });

  it('fails closed with every impairment on (heap mode): once the delay line dies, nothing passes', async () => {
    const count = 2000;
    const dl = await startDelayLine({
      netns: lab.nsM, queueNum: QUEUE, delayMs: DELAY_MS, stack, seed: 5,
      loss: { percent: 5, burstLen: 2 }, reorder: { percent: 10, extraMs: 5 }, jitterMs: 2, jitterReorders: true, aggregateMs: 10,
    });
    const logPath = join(logDir, 'fail-closed.csv');
    const stream = runOneWay(stack, lab, { ratePps: 1000, count, logPath, firstTimeoutMs: 3000 });
    // Kill it halfway through the 2 s stream, once it has shaped ~1,000 packets.
    for (let i = 0; i < 200 && (await dl.stats()).packets < count / 2; i++) await new Promise((res) => setTimeout(res, 10));
    const shaped = await dl.stats();
    process.kill(dl.pid, 'SIGKILL');
    await dl.exited;
    // CLOCK_MONOTONIC, the clock of the probes' send stamps; read once the process is gone.
    const deadAtUs = Number(process.hrtime.bigint() / 1000n);
    const r = await stream;
    const log = readArrivalLog(logPath);
    const sentUs = (x: ArrivalRecord) => x.arrivalUs - x.delayUs;
    const passedAfterDeath = log.filter((x) => sentUs(x) > deadAtUs);
    // The sender keeps its 1 ms schedule: how many packets it sent after the delay line died.
    const sentAfterDeath = count - 1 - (log[0].seq + Math.ceil((deadAtUs - sentUs(log[0])) / 1000));
    // Aggregation holds with reordering too: releases still on the 10 ms ticks.
    const onTick = log.filter((x) => (x.arrivalUs / 1000) % 10 < 1).length / log.length;
    console.info(`fail closed: ${r.received}/${count} arrived (${shaped.droppedLoss} dropped by loss, ${shaped.reordered} reordered before the kill, ${(onTick * 100).toFixed(1)}% within 1 ms after a 10 ms tick); ~${sentAfterDeath} sent after the delay line died, ${passedAfterDeath.length} of them arrived`);
    expect(onTick).toBeGreaterThanOrEqual(0.6); // ~10% unbatched; see the aggregation test for why not 0.9
    expect(shaped.droppedLoss).toBeGreaterThan(0);
    expect(shaped.reordered).toBeGreaterThan(0);
    expect(r.received).toBeGreaterThan(0);
    expect(passedAfterDeath, 'packets sent after the delay line died passed: the queue failed open').toEqual([]);
    expect(sentAfterDeath).toBeGreaterThan(300);
    // And a fresh stream with no delay line bound gets nothing through.
    const none = await runOneWay(stack, lab, { ratePps: 1000, count: 300, firstTimeoutMs: 1500 });
    expect(none.received).toBe(0);
  });
});
