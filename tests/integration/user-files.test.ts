/**
 * One loader for user files: a scenario written outside the repository, importing from
 * 'ccbrowse' as a user's would, loads and passes `run --dry-run` (type-checked too), as
 * CommonJS (no package.json above it) and as ESM ("type": "module"); a profile and a lab
 * configuration load through the same rule; mistakes are named with the file and line.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { loadScenario } from '../../src/scenario/load.js';
import { loadProfile } from '../../src/shaper/profile.js';
import { loadLabConfig } from '../../src/lab/config.js';

function ccb(args: string[], cwd: string) {
  const [node, ...pre] = nodeModuleCommand('cli/main.ts');
  const r = spawnSync(node, [...pre, ...args], { encoding: 'utf8', timeout: 180_000, cwd });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const SCENARIO = `import { defineScenario, scrollThrough } from 'ccbrowse';

export default defineScenario({
  name: 'outside',
  kind: 'static',
  startUrl: 'https://example.org/',
  activitySeconds: 5,
  steps: async ({ page, signal }) => {
    await scrollThrough(page, { steps: 2, signal });
  },
});
`;

function userDir(esm: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), `ccb-user-${esm ? 'esm' : 'cjs'}-`));
  if (esm) writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  return dir;
}

describe('user files outside the repository', () => {
  for (const esm of [false, true]) {
    it(`a scenario importing from 'ccbrowse' runs --dry-run (${esm ? 'ESM' : 'CommonJS'} folder)`, async () => {
      const dir = userDir(esm);
      writeFileSync(join(dir, 'my-scenario.ts'), SCENARIO);
      const r = ccb(['run', 'my-scenario.ts', '--dry-run', '--json'], dir);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ ok: true, scenario: 'outside', kind: 'static' });
      expect((await loadScenario(join(dir, 'my-scenario.ts'))).activitySeconds).toBe(5);
    }, 180_000);
  }

  it('a type error in such a scenario is reported with its line (exit 2)', () => {
    const dir = userDir(false);
    writeFileSync(join(dir, 'typo.ts'), SCENARIO.replace("kind: 'static'", "kind: 'static' as const,\n  activitySeconds: 'five'").replace('  activitySeconds: 5,\n', ''));
    const r = ccb(['run', 'typo.ts', '--dry-run'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/typo\.ts:\d+: activitySeconds/);
  });

  it('one default-export rule with file and line for every kind of user file', async () => {
    const dir = userDir(false);
    mkdirSync(join(dir, 'x'));
    writeFileSync(join(dir, 'x', 'p.ts'), "import { defineProfile } from 'ccbrowse';\nexport default defineProfile({ name: 'p', rateKbit: 300, delayMs: 20, buffer: { bdp: 2 } });\n");
    expect((await loadProfile(join(dir, 'x', 'p.ts'))).rateKbit).toBe(300);
    writeFileSync(join(dir, 'lab.ts'), "import { defineLab } from 'ccbrowse';\nexport default defineLab({\n  name: 'u',\n  origins: [{ name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' }],\n  regions: [{ name: 'local', rttMs: 0 }],\n});\n");
    expect((await loadLabConfig(join(dir, 'lab.ts'))).name).toBe('u');
    writeFileSync(join(dir, 'named.ts'), "import { defineLab } from 'ccbrowse';\nexport const lab = defineLab({ name: 'u', origins: [], regions: [] });\n");
    await expect(loadLabConfig(join(dir, 'named.ts'))).rejects.toThrow(/lab configuration .*named\.ts has no default export/);
    writeFileSync(join(dir, 'broken.ts'), "import { defineProfile } from 'ccbrowse';\n\nexport default defineProfile({ name: 'b', rateKbit: , delayMs: 1, buffer: { bdp: 1 } });\n");
    await expect(loadProfile(join(dir, 'broken.ts'))).rejects.toThrow(/could not load network profile .*broken\.ts:3/);
    writeFileSync(join(dir, 'bad.ts'), "import { defineLab } from 'ccbrowse';\nexport default defineLab({\n  name: 'u',\n  origins: [{ name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' }],\n  regions: [{ name: 'local', rttMz: 0 }],\n});\n");
    await expect(loadLabConfig(join(dir, 'bad.ts'))).rejects.toThrow(/bad\.ts:5: regions\.0\.rttMz: unknown field/);
  }, 120_000);
});
