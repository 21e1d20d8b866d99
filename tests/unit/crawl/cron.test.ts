import { describe, expect, it } from 'vitest';
import { cronError, nextFire, parseCron } from '../../../src/crawl/cron.js';

const at = (iso: string) => new Date(iso);

describe('crawl schedules (cron, UTC)', () => {
  it('fires at the next matching minute', () => {
    expect(nextFire(parseCron('0 3 * * *'), at('2026-01-01T02:59:30Z')).toISOString()).toBe('2026-01-01T03:00:00.000Z');
    expect(nextFire(parseCron('0 3 * * *'), at('2026-01-01T03:00:00Z')).toISOString()).toBe('2026-01-02T03:00:00.000Z');
    expect(nextFire(parseCron('*/15 * * * *'), at('2026-01-01T10:07:00Z')).toISOString()).toBe('2026-01-01T10:15:00.000Z');
    expect(nextFire(parseCron('30 8 * * 1-5'), at('2026-01-02T09:00:00Z')).toISOString()).toBe('2026-01-05T08:30:00.000Z'); // Fri -> Mon
    expect(nextFire(parseCron('@weekly'), at('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-04T00:00:00.000Z'); // a Sunday
    expect(nextFire(parseCron('0 0 29 2 *'), at('2026-03-01T00:00:00Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('day of month and day of week both given: either matches (classic cron)', () => {
    // 2026-01-13 is a Tuesday (dow 2) before the 15th.
    expect(nextFire(parseCron('0 0 15 * 2'), at('2026-01-12T12:00:00Z')).toISOString()).toBe('2026-01-13T00:00:00.000Z');
  });

  it('refuses bad schedules and says which field', () => {
    expect(cronError('0 3 * * *')).toBeUndefined();
    expect(cronError('0 3 * *')).toMatch(/5 fields/);
    expect(cronError('61 * * * *')).toMatch(/minute/);
    expect(cronError('* 24 * * *')).toMatch(/hour/);
    expect(cronError('* * * 13 *')).toMatch(/month/);
    expect(cronError('*/0 * * * *')).toMatch(/step/);
    expect(cronError('a * * * *')).toMatch(/minute/);
    expect(() => nextFire(parseCron('0 0 31 2 *'), at('2026-01-01T00:00:00Z'))).toThrow(/never fires/);
  });
});
