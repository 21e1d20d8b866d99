/**
 * The single executable (dist/ccbrowse, `make dist`; `make test` builds it first) run as a
 * user would on a machine with nothing but the binary: from a folder outside the repository,
 * with a fresh cache folder (so its first start extracts the runtime tree), and user files
 * (a lab configuration and a scenario importing 'ccbrowse') written beside it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot } from '../helpers/system.js';

const BIN = resolve('dist/ccbrowse');
const CAPTURE = resolve('tests/fixtures/lab-traces/tcp-bbr-nebby-50');
const built = existsSync(BIN);
if (!built) console.warn('dist.test.ts skipped: dist/ccbrowse is not built (run `make dist`; `make test` does)');

describe.skipIf(!built)('the single executable (dist/ccbrowse)', () => {
  const work = mkdtempSync(join(tmpdir(), 'ccb-dist-'));
  const token = `${process.pid}`;
  const env = { ...process.env, CCB_CACHE_DIR: join(work, 'cache'), CCB_STATE_DIR: `/run/ccbrowse-dist-${token}` };
  const ccb = (args: string[], timeoutMs = 60_000) => {
    const r = spawnSync(BIN, args, { cwd: work, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
    return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
  };
  const labName = `ccb-dist-${token}`;
  let labStarted = false;

  afterAll(() => {
    if (labStarted) ccb(['lab', 'down', '--lab', labName], 120_000);
    rmSync(work, { recursive: true, force: true });
    rmSync(env.CCB_STATE_DIR, { recursive: true, force: true });
  }, 180_000);

  it('--help and --version answer (the first start extracts the tree into the cache folder)', () => {
    const help = ccb(['--help']);
    expect(help.code, help.err).toBe(0);
    expect(help.out).toContain('Usage: ccbrowse');
    const v = ccb(['--version']);
    expect(v.out.trim()).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
  }, 120_000);

  it('doctor --json finds the native helpers it carries, and remembers Chromium\'s version', () => {
    type Report = { items: { name: string; ok: boolean; detail: string }[] };
    const first = JSON.parse(ccb(['doctor', '--json']).out) as Report;
    const delayLine = first.items.find((i) => i.name === 'delay line binary')!;
    expect(delayLine.ok).toBe(true);
    expect(delayLine.detail.startsWith(env.CCB_CACHE_DIR)).toBe(true);
    if (isRoot) expect(first.items.find((i) => i.name.startsWith('cls_bpf'))!.detail).toBe('loads and attaches');
    // The second doctor reads Chromium's version from the cache folder instead of starting it.
    const chromium = first.items.find((i) => i.name === 'Chromium')!;
    if (chromium.ok) {
      expect(chromium.detail).toMatch(/Chromium \d+\./);
      const cached = JSON.parse(readFileSync(join(env.CCB_CACHE_DIR, 'chromium-version.json'), 'utf8')) as { version: string };
      expect(chromium.detail.endsWith(cached.version)).toBe(true);
      const second = JSON.parse(ccb(['doctor', '--json']).out) as Report;
      expect(second.items.find((i) => i.name === 'Chromium')!.detail).toBe(chromium.detail);
    }
  }, 60_000);

  it('classify gives the same verdicts as the source CLI, with the model it carries', () => {
    const r = ccb(['classify', CAPTURE, '--json']);
    expect(r.code, r.err).toBe(0);
    const fromSource = spawnSync(process.execPath, ['bin/ccbrowse.js', 'classify', CAPTURE, '--json'], { encoding: 'utf8' });
    type Out = { flows: { flow: string; verdict: string; confidence: number }[] };
    const verdicts = (o: Out) => o.flows.map((f) => [f.flow, f.verdict, f.confidence]);
    const got = verdicts(JSON.parse(r.out) as Out);
    expect(got.length).toBeGreaterThan(0);
    expect(got).toEqual(verdicts(JSON.parse(fromSource.stdout) as Out));
  }, 60_000);

  it('report writes the front end bundled at build time (no build tool at run time)', () => {
    const r = ccb(['report', resolve('tests/fixtures/results/run-minimal'), '--out', 'site']);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(work, 'site', 'assets', 'report.js'), 'utf8')).toBe(readFileSync('dist/report/frontend/main.js', 'utf8'));
  }, 60_000);

  it.skipIf(!isRoot)("a lab from the user's lab.ts runs the user's scenario .ts", () => {
    writeFileSync(join(work, 'lab.ts'), `import { defineLab } from 'ccbrowse';
export default defineLab({ name: '${labName}', origins: [{ name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' }], regions: [{ name: 'local', rttMs: 0 }] });
`);
    writeFileSync(join(work, 'page.ts'), `import { defineScenario, labUrl } from 'ccbrowse';
export default defineScenario({
  name: 'dist-index', description: "the lab's index page", kind: 'static', lab: true,
  startUrl: labUrl(undefined, 'www', '/'), activitySeconds: 3, consent: { auto: false },
  steps: async ({ page }) => { await page.waitForTimeout(500); },
});
`);
    const up = ccb(['lab', 'up', '--config', 'lab.ts', '--quiet'], 300_000);
    labStarted = true;
    expect(up.code, up.err).toBe(0);
    const run = ccb(['run', 'page.ts', '--lab', labName, '--region', 'local', '--profile', 'nebby-50', '--out', 'runs', '--json'], 400_000);
    expect(run.code, run.err).toBe(0);
    const o = (JSON.parse(run.out) as { runs: { dir: string; status: string; summary: { host: string; protocol: string; bytes: number }[] }[] }).runs[0];
    expect(o.status).toBe('complete');
    expect(o.dir.startsWith(join(work, 'runs'))).toBe(true);
    const www = o.summary.find((s) => s.host === 'www.lab.ccb.test')!;
    expect(www.protocol).toBe('tcp');
    expect(www.bytes).toBeGreaterThan(0);
    expect(existsSync(join(o.dir, 'nebby-50'))).toBe(true);
    const down = ccb(['lab', 'down', '--lab', labName], 120_000);
    expect(down.code, down.err).toBe(0);
    labStarted = false;
  }, 900_000);
});
