/**
 * How many jobs a worker runs at once: one fewer when over half of a window's probes were
 * disturbed, one more after a run of clean ones, never above the ceiling or below one; after
 * one fewer, only probes begun once the running jobs are down to it count.
 */
import { describe, expect, it } from 'vitest';
import { JobsAtOnce } from '../../../src/crawl/jobs-at-once.js';

const clean = (startedAt: number) => ({ disturbed: false, startedAt });
const bad = (startedAt: number) => ({ disturbed: true, startedAt });

/** Probes seen one after another at t, t+1, ..., each begun at its own time. */
function feed(j: JobsAtOnce, from: number, kinds: string): number {
  let t = from;
  for (const k of kinds) { j.running(j.limit(), t); j.observe(k === 'x' ? bad(t) : clean(t), t); t++; }
  return t;
}

describe('JobsAtOnce', () => {
  it('starts at the ceiling and stays there while probes are clean', () => {
    const j = new JobsAtOnce({ ceiling: 5 });
    for (let t = 0; t < 30; t++) expect(j.observe(clean(t), t)).toBeNull();
    expect(j.limit()).toBe(5);
  });

  it('a host that disturbs half of the probes or fewer keeps the number; six of ten take one job away', () => {
    const j = new JobsAtOnce({ ceiling: 5 });
    feed(j, 0, 'x.x.x.x.x.x.x.x.x.x.x.'); // 1 in 2: never six of a window of ten
    expect(j.limit()).toBe(5);
    const k = new JobsAtOnce({ ceiling: 5 });
    for (const [i, p] of ['x', '.', 'x', 'x', '.', 'x', 'x'].entries()) expect(k.observe(p === 'x' ? bad(i) : clean(i), i)).toBeNull();
    const c = k.observe(bad(7), 7);
    expect(c).toMatchObject({ from: 5, to: 4 });
    expect(c!.why).toMatch(/^6 of the last 8 traces/);
  });

  it('after one fewer, probes count only once the jobs running are down to it, and only those begun since', () => {
    const j = new JobsAtOnce({ ceiling: 5 });
    for (let t = 0; t < 6; t++) j.observe(bad(t), t);
    expect(j.limit()).toBe(4);
    // Five jobs still run: nothing counts, whenever it began.
    for (let t = 6; t < 20; t++) expect(j.observe(bad(t), t)).toBeNull();
    j.running(5, 20);
    expect(j.observe(bad(21), 21)).toBeNull();
    j.running(4, 30); // down to four at t = 30
    for (let t = 31; t < 40; t++) j.observe(bad(10), t); // begun before: not counted
    expect(j.limit()).toBe(4);
    feed(j, 40, 'xxxxxx');
    expect(j.limit()).toBe(3);
  });

  it('the window slides: six disturbed among the last ten, across any boundary, take one job away', () => {
    const j = new JobsAtOnce({ ceiling: 5 });
    const t = feed(j, 0, '.....xxxxx');
    expect(j.limit()).toBe(5);
    expect(j.observe(bad(t), t)).toMatchObject({ from: 5, to: 4, why: '6 of the last 10 traces went through a bottleneck the host disturbed' });
  });

  it('no job is given back while the jobs running are still over a lowered limit', () => {
    const j = new JobsAtOnce({ ceiling: 3 });
    let t = feed(j, 0, 'xxxxxx');
    expect(j.limit()).toBe(2);
    for (let i = 0; i < 20; i++, t++) expect(j.observe(clean(t), t)).toBeNull();
    expect(j.limit()).toBe(2);
  });

  it('a long while with no probe (browser jobs, another crawl) brings the ceiling back', () => {
    const j = new JobsAtOnce({ ceiling: 4, idleResetMs: 60_000 });
    const t = feed(j, 0, 'xxxxxx');
    expect(j.limit()).toBe(3);
    expect(j.running(3, t + 59_000)).toBeNull();
    expect(j.running(3, t + 60_000)).toMatchObject({ from: 3, to: 4, why: 'no trace for 1 min' });
    expect(j.running(4, t + 200_000)).toBeNull();
  });

  it('never below one job, never above the ceiling', () => {
    const j = new JobsAtOnce({ ceiling: 2 });
    const t = feed(j, 0, 'x'.repeat(40));
    expect(j.limit()).toBe(1);
    feed(j, t, '.'.repeat(40));
    expect(j.limit()).toBe(2);
  });

  it('twelve clean probes in a row give a job back; a disturbed one starts the count again', () => {
    const j = new JobsAtOnce({ ceiling: 4 });
    let t = feed(j, 0, 'xxxxxx');
    expect(j.limit()).toBe(3);
    t = feed(j, t, '...........');
    expect(j.limit()).toBe(3);
    j.running(3, t);
    expect(j.observe(clean(t), t)).toMatchObject({ from: 3, to: 4, why: '12 clean traces in a row' });
    const k = new JobsAtOnce({ ceiling: 4 });
    feed(k, feed(k, 0, 'xxxxxx'), '........x...........');
    expect(k.limit()).toBe(3);
  });
});
