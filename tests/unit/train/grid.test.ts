import { describe, expect, it } from 'vitest';
import { parseGrid, resolveCondition, loadGrid } from '../../../src/train/grid.js';
import { bytesForSeconds, entryConditions } from '../../../src/train/grid-run.js';
import { parseProfile, withOverrides } from '../../../src/shaper/profile.js';

const nebby50 = parseProfile({ name: 'nebby-50', rateKbit: 200, delayMs: 50, buffer: { bdp: 2 }, tcpMss: 100 }, 'test');

describe('the conditions grid', () => {
  it('the shipped grids load, and every condition id names a lab region', async () => {
    for (const f of ['labs/grid.ts', 'labs/grid-heldout.ts']) {
      const g = await loadGrid(f);
      expect(g.conditions.length).toBeGreaterThan(10);
      for (const c of g.conditions) expect(c.id).toMatch(/^[a-z0-9][a-z0-9-]{0,15}$/);
    }
  });

  it('refuses duplicate conditions and unknown fields, with the path of the problem', () => {
    const base = { name: 'g', origins: ['tcp-cubic'], base: {}, conditions: [{ id: 'a', axis: 'x', value: 'y' }, { id: 'a', axis: 'x', value: 'z' }] };
    expect(() => parseGrid(base, 't')).toThrow(/conditions\.1\.id: duplicate condition a/);
    expect(() => parseGrid({ ...base, conditions: [{ id: 'a', axis: 'x', value: 'y', bogus: 1 }] }, 't')).toThrow(/invalid conditions grid/);
  });

  it('a condition takes the base for what it does not change', () => {
    const g = parseGrid({ name: 'g', origins: ['tcp-cubic'], base: { path: { rttMs: 10 }, host: { concurrency: 3 } }, conditions: [{ id: 'j', axis: 'jitter', value: '3 ms', path: { jitterMs: 3 }, host: { cpuLoad: 2 } }] }, 't');
    const c = resolveCondition(g, g.conditions[0]);
    expect(c.region).toMatchObject({ name: 'j', rttMs: 10, jitterMs: 3 });
    expect(c.concurrency).toBe(3);
    expect(c.cpuLoad).toBe(2);
    expect(c.profiles).toEqual(['nebby-50', 'nebby-100']);
  });

  it('sizes transfers by time at the profile rate, counting each transport framing', () => {
    // 200 kbit/s, 88-byte payloads in 154-byte frames: ~14.3 kB/s of TCP payload.
    expect(bytesForSeconds(nebby50, 'tcp', 30)).toBe(429_000);
    expect(bytesForSeconds(withOverrides(nebby50, { tcpMss: null }), 'tcp', 30)).toBe(717_000);
    expect(bytesForSeconds(nebby50, 'quic', 30)).toBe(675_000);
  });

  it('records the bottleneck as applied, overrides included', () => {
    const g = parseGrid({ name: 'g', origins: ['tcp-cubic'], base: {}, conditions: [{ id: 'b', axis: 'buffer', value: '4 BDP', profile: { buffer: { bdp: 4 }, sack: false } }] }, 't');
    const c = resolveCondition(g, g.conditions[0]);
    const p = withOverrides(nebby50, c.profile);
    expect(entryConditions(c, p)).toMatchObject({ id: 'b', axis: 'buffer', bottleneck: { profile: 'nebby-50', bufferBdp: 4, sack: false, tcpMss: 100 }, path: { rttMs: 0, loss: null } });
  });
});
