/**
 * A real browser-mode crawl (issue 18's failure paths): a generic page visit of a bare URL, a
 * site whose origin accepts the connection and never answers, a scenario that throws and a
 * scenario whose renderer crashes. The visit gives one result with a complete run on disk; each
 * other job is recorded as failed with its own reason, and the crawl still finishes every job.
 * Real Chromium, real lab (tests/fixtures/labs/crawl-browser.ts), real SQLite store.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labDown, labUp } from '../../src/lab/control.js';
import { runJob } from '../../src/crawl/job.js';
import type { TraceSeen } from '../../src/crawl/jobs-at-once.js';
import { stateDir } from '../../src/net/cleanup.js';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { isRoot, listNamespaces } from '../helpers/system.js';

const LAB = 'tests/fixtures/labs/crawl-browser.ts';
const THROWS = resolve('tests/fixtures/scenarios/throws.ts');
const CRASHES = resolve('tests/fixtures/scenarios/crashes.ts');

describe.skipIf(!isRoot)('crawl, browser mode: a page visit, a silent site, a scenario that throws, a crashed renderer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-crawl-browser-'));
  const store = join(dir, 'ccbrowse.sqlite');
  const file = join(dir, 'crawl.ts');

  beforeAll(async () => {
    await labUp({ config: LAB });
    // No retries: the retry path is crawl.test.ts's; here each failure must carry its own reason.
    writeFileSync(file, `import { defineCrawl } from 'ccbrowse';
export default defineCrawl({
  name: 'browser-test', lab: 'ccb-crawlb', regions: ['r1'], profiles: ['fast-20m'], concurrency: 2, retries: 0,
  visitSeconds: 3, jobTimeoutSeconds: 60,
  targets: [
    { url: 'https://www.lab.ccb.test/vod/', mode: 'browser' },
    { url: 'https://quiet.lab.ccb.test/', mode: 'browser' },
    { scenario: '${THROWS}' },
    { scenario: '${CRASHES}' },
  ],
});
`);
  }, 900_000);

  afterAll(async () => { await labDown('ccb-crawlb'); }, 300_000);

  it('records one result and three failures with their reasons, and leaves nothing behind', () => {
    const cli = nodeModuleCommand('cli/main.ts');
    const nsBefore = listNamespaces();
    const run = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'run', file, '--store', store, '--out', dir, '--json'], { encoding: 'utf8', timeout: 600_000 });
    // Exit 1: some jobs failed (each with its reason); the crawl itself ran to the end.
    expect(run.status, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout) as { progress: Record<string, number>; failures: Array<{ jobId: string; error: string }> };
    for (const f of out.failures) console.log(`failed ${f.jobId}: ${f.error}`);
    expect(out.progress).toMatchObject({ total: 4, done: 1, failed: 3, left: 0, running: 0 });
    const reason = (key: RegExp) => out.failures.find((f) => key.test(f.jobId))?.error ?? '(no failure recorded)';
    expect(reason(/quiet\.lab/)).toMatch(/navigation-failed.*ERR_TIMED_OUT/);
    expect(reason(/throws/)).toMatch(/scripted failure in steps/);
    expect(reason(/crashes/)).toMatch(/crash/i);

    // The visit's one result points at a complete run directory on disk.
    const db = new Database(store, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT job_id, dirs FROM crawl_results').all() as Array<{ job_id: string; dirs: string }>;
      expect(rows.map((r) => r.job_id)).toEqual([expect.stringMatching(/www\.lab\.ccb\.test/)]);
      const [runDir] = JSON.parse(rows[0].dirs) as string[];
      expect((JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { status: string }).status).toBe('complete');
      const failed = db.prepare("SELECT COUNT(*) AS n FROM crawl_jobs WHERE state = 'failed'").get() as { n: number };
      expect(failed.n).toBe(3);
    } finally {
      db.close();
    }

    // Nothing of the crawl's sessions is left: no namespace of any of its runs (ccb-<runId>-...;
    // other runs may share the host), no owner record of its pid.
    const runIds = readdirSync(join(dir, 'browser-test')).map((d) => d.split('-').at(-1)!);
    expect(runIds.length).toBeGreaterThanOrEqual(3);
    expect(listNamespaces().filter((n) => !nsBefore.includes(n) && runIds.some((id) => n.startsWith(`ccb-${id}-`)))).toEqual([]);
    const ownersDir = join(stateDir(), 'owners');
    const owners = existsSync(ownersDir) ? readdirSync(ownersDir).map((f) => {
      try { return (JSON.parse(readFileSync(join(ownersDir, f), 'utf8')) as { pid: number }).pid; } catch { return 0; }
    }) : [];
    expect(owners).not.toContain(run.pid);
  }, 900_000);

  it('a browser job hands the worker one trace per profile, from no earlier than the job began', async () => {
    const seen: TraceSeen[] = [];
    const before = Date.now();
    const result = await runJob({
      jobId: 'browser-test:0:r1:0:visit', crawlId: 'browser-test', round: 0, targetKey: 'visit', region: 'r1', repeatIndex: 0,
      attempt: 1, maxAttempts: 1, claimToken: 'test',
      spec: { mode: 'browser', url: 'https://www.lab.ccb.test/vod/', profiles: ['fast-20m'], lab: 'ccb-crawlb', timeoutSeconds: 60, visitSeconds: 3, backoffSeconds: 1 },
    }, { outDir: dir, signal: new AbortController().signal, traceMeasured: (t) => seen.push(t) });
    expect(result.status).toBe('complete');
    // The run's own record of its delay line is what the count read (crawl/disturbed.ts).
    expect(existsSync(join(result.dirs[0], 'fast-20m', 'disturbance.json'))).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0].startedAt).toBeGreaterThanOrEqual(before);
    expect(typeof seen[0].disturbed).toBe('boolean');
  }, 300_000);
});
