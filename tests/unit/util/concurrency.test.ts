import { describe, expect, it } from 'vitest';
import { inBatches, profilesAtOnce } from '../../../src/util/concurrency.js';

describe('profilesAtOnce', () => {
  it('is one per core but one, never more than the profiles, at least one', () => {
    expect(profilesAtOnce(2, 2)).toBe(1);
    expect(profilesAtOnce(2, 3)).toBe(2);
    expect(profilesAtOnce(3, 8)).toBe(3);
    expect(profilesAtOnce(1, 8)).toBe(1);
    expect(profilesAtOnce(0, 2)).toBe(1);
    expect(profilesAtOnce(2, 1)).toBe(1);
  });
});

describe('inBatches', () => {
  it('runs every item once, never more than n at a time, starting them in list order', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await inBatches([0, 1, 2, 3, 4], 2, async (x) => {
      started.push(x);
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, x % 2 ? 5 : 1));
      running--;
    });
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });
  it('with n = 1 runs one after another', async () => {
    const order: string[] = [];
    await inBatches(['a', 'b'], 1, async (x) => { order.push(`${x}+`); await new Promise((r) => setTimeout(r, 2)); order.push(`${x}-`); });
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-']);
  });
  it('does nothing for no items', async () => {
    let called = false;
    await inBatches([], 4, async () => { called = true; });
    expect(called).toBe(false);
  });
});
