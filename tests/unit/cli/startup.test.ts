/**
 * Commands load only what they use: `--help`, `doctor`, `trace` and `classify` never load
 * Playwright, d3, SQLite, the scenario loader or the session; `--help` and `trace` not even
 * zod (whose schemas only files that a user writes or a command reads back need). Each
 * command runs in a child process with a loader hook that records every module it loads.
 * (How fast that makes them is measured by bench/startup.ts, not here.)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const scratch = mkdtempSync(join(tmpdir(), 'ccb-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
/** The modules `ccbrowse ARGS` loaded (from the sources, through tsx). */
function modulesLoadedBy(args: string[]): string[] {
  const log = join(scratch, `imports-${n++}.log`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', join(ROOT, 'tests/helpers/record-imports.mjs'), join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT, env: { ...process.env, CCB_IMPORT_LOG: log }, encoding: 'utf8', timeout: 60_000,
  });
  expect(r.status, r.stderr).not.toBe(70);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const HEAVY = {
  playwright: /node_modules\/playwright-core\//,
  d3: /node_modules\/d3[-/]/,
  sqlite: /node_modules\/better-sqlite3\//,
  session: /\/src\/(session|scenario|browser|store|report|lab\/lab|probe)\//,
};
const ZOD = /node_modules\/zod\//;
const CAPTURE = join(ROOT, 'tests/fixtures/lab-traces/tcp-bbr-nebby-50');

function expectNone(loaded: string[], patterns: Record<string, RegExp>): void {
  for (const [name, re] of Object.entries(patterns)) expect(loaded.filter((u) => re.test(u)), `loaded ${name}`).toEqual([]);
}

describe('commands load only what they use', () => {
  it('--help loads the command tree and commander only', () => {
    const loaded = modulesLoadedBy(['--help']);
    expect(loaded.some((u) => u.includes('/src/cli/program.ts'))).toBe(true);
    expectNone(loaded, { ...HEAVY, zod: ZOD, classifier: /\/src\/classify\//, trace: /\/src\/trace\// });
  }, 60_000);

  it('trace of a capture loads the trace step, not the classifier or zod', () => {
    const loaded = modulesLoadedBy(['trace', CAPTURE]);
    expect(loaded.some((u) => u.includes('/src/trace/trace.ts'))).toBe(true);
    expectNone(loaded, { ...HEAVY, zod: ZOD, classifier: /\/src\/classify\// });
  }, 60_000);

  it('classify of a capture loads the trace step and the classifier, nothing of a run', () => {
    const loaded = modulesLoadedBy(['classify', CAPTURE]);
    expect(loaded.some((u) => u.includes('/src/classify/'))).toBe(true);
    expectNone(loaded, HEAVY);
  }, 60_000);

  it('a crawl on an SQLite store loads neither pg nor pg-boss (only a postgres:// store does)', () => {
    const store = join(scratch, 'crawl.sqlite');
    new Database(store).close();
    const loaded = modulesLoadedBy(['crawl', 'status', '--store', store]);
    expect(loaded.some((u) => u.includes('/src/crawl/sqlite-backend.ts'))).toBe(true);
    expectNone(loaded, { postgres: /node_modules\/(pg|pg-boss|pg-pool|pg-protocol)\/|\/src\/crawl\/postgres\// });
  }, 60_000);

  it('analyze of a run directory loads the analysis, none of a run\'s machinery (upstream, the lab\'s network, browser)', () => {
    const dir = join(scratch, 'run-minimal');
    cpSync(join(ROOT, 'tests/fixtures/results/run-minimal'), dir, { recursive: true });
    const loaded = modulesLoadedBy(['analyze', dir]);
    expect(loaded.some((u) => u.includes('/src/session/analyze-run.ts'))).toBe(true);
    expectNone(loaded, { playwright: HEAVY.playwright, run: /\/src\/(session\/(run|upstream|lab-upstream|browser-session)\.ts|browser\/|lab\/(network|state|sites\/call-peer)\.ts)/ });
  }, 60_000);

  it('doctor --help and run --help load no run machinery', () => {
    for (const args of [['doctor', '--help'], ['run', '--help']]) expectNone(modulesLoadedBy(args), { ...HEAVY, zod: ZOD });
  }, 60_000);
});
