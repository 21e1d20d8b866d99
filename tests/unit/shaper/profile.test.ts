import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bdpBytes, bufferBytes, loadProfile, parseProfile } from '../../../src/shaper/profile.js';
import { BadInputError } from '../../../src/util/errors.js';

describe('network profiles', () => {
  it('loads the shipped nebby profiles with Nebby\'s figures', async () => {
    const p50 = await loadProfile('nebby-50');
    expect(p50).toMatchObject({ rateKbit: 200, delayMs: 50, queue: 'per-flow', clientMtu: 1500 });
    // 2 BDP at 200 kbit/s and 100 ms RTT = 2 x 2500 bytes.
    expect(bdpBytes(p50)).toBe(2500);
    expect(bufferBytes(p50)).toBe(5000);
    const p100 = await loadProfile('nebby-100');
    expect(bufferBytes(p100)).toBe(10000);
    for (const name of ['video', 'geo-satellite', 'fast-20m']) {
      expect((await loadProfile(name)).name).toBe(name);
    }
  });

  it('never makes a buffer smaller than one frame', () => {
    const p = parseProfile({ name: 'tiny', rateKbit: 100, delayMs: 1, buffer: { bdp: 0.1 } }, 'tiny');
    expect(bufferBytes(p)).toBe(1514);
  });

  it('names the file and field of a bad profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccb-prof-'));
    const file = join(dir, 'bad.ts');
    writeFileSync(file, "export default { name: 'Bad Name', rateKbit: -5, delayMs: 10, buffer: { bdp: 2 } };\n");
    const err = await loadProfile(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as Error).message).toContain('bad.ts');
    expect((err as Error).message).toContain('rateKbit');
    expect((err as Error).message).toContain('name');
  });

  it('rejects unknown fields (typos) and missing buffers', () => {
    expect(() => parseProfile({ name: 'x', rateKbit: 100, delayMs: 10, buffer: { bdp: 1 }, dealyMs: 3 }, 'x.ts')).toThrow(/dealyMs/);
    expect(() => parseProfile({ name: 'x', rateKbit: 100, delayMs: 10 }, 'x.ts')).toThrow(/buffer/);
  });

  it('reports a missing file and a syntax error clearly', async () => {
    await expect(loadProfile('no-such-profile')).rejects.toThrow(/not found/);
    const dir = mkdtempSync(join(tmpdir(), 'ccb-prof-'));
    const file = join(dir, 'broken.ts');
    writeFileSync(file, 'export default {{{ ;\n');
    await expect(loadProfile(file)).rejects.toThrow(/could not load network profile/);
    const noDefault = join(dir, 'nodefault.ts');
    writeFileSync(noDefault, 'export const x = 1;\n');
    await expect(loadProfile(noDefault)).rejects.toThrow(/no default export/);
  });
});
