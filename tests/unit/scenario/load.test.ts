import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScenarioTypes, formatTypeIssues, loadScenario, parseScenario } from '../../../src/scenario/load.js';
import type { Scenario } from '../../../src/scenario/schema.js';
import { BadInputError } from '../../../src/util/errors.js';

const root = resolve(import.meta.dirname, '../../..');
const shipped = [
  ...readdirSync(join(root, 'scenarios')).filter((f) => f.endsWith('.ts')).map((f) => join(root, 'scenarios', f)),
  ...readdirSync(join(root, 'scenarios/lab')).filter((f) => f.endsWith('.ts')).map((f) => join(root, 'scenarios/lab', f)),
];
const index = join(root, 'src/scenario/index.js');

/** A scratch directory that is an ES module package, like the repository. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-scn-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

function write(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `import { defineScenario } from ${JSON.stringify(index)};\n${body}`);
  return file;
}

async function loadError(file: string): Promise<Error> {
  const err = await loadScenario(file).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(BadInputError);
  return err as Error;
}

describe('shipped scenarios', () => {
  const loaded = new Map<string, Scenario>();
  beforeAll(async () => {
    for (const f of shipped) loaded.set(f, await loadScenario(f));
  });

  it('ship all five kinds, for real sites and for the lab', () => {
    const real = [...loaded].filter(([f]) => !f.includes('/lab/')).map(([, s]) => s);
    const lab = [...loaded].filter(([f]) => f.includes('/lab/')).map(([, s]) => s);
    const kinds = ['vod', 'live', 'audio', 'call', 'static'];
    expect(new Set(real.map((s) => s.kind))).toEqual(new Set(kinds));
    expect(lab.map((s) => s.kind).sort()).toEqual([...kinds].sort());
    expect(real.find((s) => s.name === 'youtube')?.kind).toBe('vod');
  });

  it('are valid, uniquely named, and lab ones are marked lab and named after their kind', () => {
    const names = [...loaded.values()].map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const [file, s] of loaded) {
      expect(typeof s.steps).toBe('function');
      expect(s.profiles.length).toBeGreaterThan(0);
      if (file.includes('/lab/')) {
        expect(s.lab).toBe(true);
        expect(s.kind).toBe(basename(file, '.ts'));
        expect(new URL(s.startUrl).hostname.endsWith('.test')).toBe(true); // never the internet
      } else {
        expect(s.lab).toBe(false);
        expect(s.activitySeconds).toBeGreaterThanOrEqual(18); // Nebby: >= 16-18 s of trace
      }
    }
  });

  it('declare fake media devices for the call', () => {
    const call = [...loaded.values()].find((s) => s.kind === 'call' && !s.lab)!;
    expect(call.browser.args).toEqual(expect.arrayContaining(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']));
  });

  it('type-check cleanly, together, in one program', async () => {
    const issues = await checkScenarioTypes(shipped);
    expect(formatTypeIssues(issues)).toBe('');
  });
});

describe('bad scenario files', () => {
  const dir = scratch();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the file, field and line of a wrong kind', async () => {
    const f = write(dir, 'wrong-kind.ts', `export default defineScenario({
  name: 'x',
  kind: 'podcast' as 'vod',
  startUrl: 'https://example.org/',
  steps: async () => {},
});
`);
    const err = await loadError(f);
    expect(err.message).toContain('wrong-kind.ts:4');
    expect(err.message).toMatch(/kind: .*(vod|option)/i);
  });

  it('names a missing startUrl', async () => {
    const f = write(dir, 'no-url.ts', "export default { name: 'x', kind: 'vod', steps: async () => {} };\n");
    const err = await loadError(f);
    expect(err.message).toContain('no-url.ts');
    expect(err.message).toContain('startUrl');
  });

  it('rejects steps that are not a function, and a non-http start URL', async () => {
    const f = write(dir, 'steps.ts', "export default { name: 'x', kind: 'vod', startUrl: 'ftp://example.org/', steps: 'click play' };\n");
    const err = await loadError(f);
    expect(err.message).toMatch(/steps\.ts:2: steps: must be an async function/);
    expect(err.message).toMatch(/startUrl: must be an http/);
  });

  it('names typos, bad asset rules and flags the session owns', async () => {
    const f = write(dir, 'typo.ts', `export default {
  name: 'x', kind: 'static', startUrl: 'https://example.org/', steps: async () => {},
  actvitySeconds: 10,
  assetRules: [{ match: 'videoplayback', type: 'movie' }, { type: 'video' }],
  browser: { args: ['--host-resolver-rules=MAP * 1.2.3.4', 'no-dashes'] },
};
`);
    const err = await loadError(f);
    expect(err.message).toMatch(/typo\.ts:4: actvitySeconds: unknown field/);
    expect(err.message).toMatch(/typo\.ts:5: assetRules\.0\.type: .*video/);
    expect(err.message).toMatch(/assetRules\.1: a rule needs `match`/);
    expect(err.message).toMatch(/browser\.args\.0: the session sets this flag/);
    expect(err.message).toMatch(/browser\.args\.1: a Chromium flag starts with "--"/);
  });

  it('reports a syntax error with its position', async () => {
    const f = write(dir, 'syntax.ts', "export default defineScenario({ name: 'x',, });\n");
    const err = await loadError(f);
    expect(err.message).toMatch(/could not load scenario .*syntax\.ts/);
    expect(err.message).toMatch(/syntax\.ts:2:\d+/);
  });

  it('reports a missing default export and a missing file', async () => {
    const f = write(dir, 'named.ts', "export const scenario = defineScenario({ name: 'x', kind: 'vod', startUrl: 'https://e.org/', steps: async () => {} });\n");
    expect((await loadError(f)).message).toMatch(/no default export/);
    expect((await loadError(join(dir, 'absent.ts'))).message).toMatch(/not found/);
  });

  it('finds type errors that loading cannot see, at their line and column', async () => {
    const good = write(dir, 'good.ts', "export default defineScenario({ name: 'ok', kind: 'static', startUrl: 'https://example.org/', steps: async ({ page }) => { await page.title(); } });\n");
    const bad = write(dir, 'typed.ts', `export default defineScenario({
  name: 'typed',
  kind: 'static',
  startUrl: 'https://example.org/',
  steps: async ({ page }) => {
    await page.clikc('#play');
  },
});
`);
    // It loads: steps is a function, the typo only shows when it runs, minutes into a crawl.
    expect((await loadScenario(bad)).name).toBe('typed');
    const issues = await checkScenarioTypes([good, bad, join(dir, 'absent.ts')]);
    expect(issues.filter((i) => i.file === good)).toEqual([]);
    const typed = issues.filter((i) => i.file === bad);
    expect(typed).toHaveLength(1);
    expect(typed[0]).toMatchObject({ line: 7, col: 16 });
    expect(typed[0].message).toMatch(/clikc/);
    expect(issues.find((i) => i.file.endsWith('absent.ts'))?.message).toBe('file not found');
    expect(formatTypeIssues(typed)).toMatch(/typed\.ts:7:16: .*clikc/);
  });

  it('type-checks the scenario object itself (wrong kind literal)', async () => {
    const f = write(dir, 'kind-type.ts', "export default defineScenario({ name: 'k', kind: 'radio', startUrl: 'https://example.org/', steps: async () => {} });\n");
    const issues = await checkScenarioTypes([f]);
    expect(issues).toHaveLength(1);
    expect(issues[0].line).toBe(2);
    expect(issues[0].message).toMatch(/radio/);
  });
});

describe('defaults', () => {
  it('fills in profiles, activity, consent, browser and timeouts', () => {
    const s = parseScenario({ name: 'd', kind: 'vod', startUrl: 'https://example.org/', steps: async () => {} }, 'd.ts');
    expect(s.profiles).toEqual(['nebby-50', 'nebby-100']);
    expect(s.activitySeconds).toBe(30);
    expect(s.lab).toBe(false);
    expect(s.assetRules).toEqual([]);
    expect(s.consent).toMatchObject({ auto: true, buttons: [], selectors: [] });
    expect(s.browser).toMatchObject({ args: [], permissions: [] });
    expect(s.timeouts).toEqual({ navigationMs: 45_000, stepsMs: 120_000 });
  });

  it('keeps RegExp rules as RegExps', () => {
    const s = parseScenario({
      name: 'r', kind: 'vod', startUrl: 'https://example.org/', steps: async () => {},
      assetRules: [{ match: /videoplayback/, type: 'video' }], region: 'eu',
    }, 'r.ts');
    expect(s.assetRules[0].match).toBeInstanceOf(RegExp);
    expect(s.region).toBe('eu');
    expect(() => parseScenario({ name: 'r', kind: 'vod', startUrl: 'https://example.org/', steps: async () => {}, region: 'Europe West' }, 'r.ts')).toThrow(/region/);
  });
});
