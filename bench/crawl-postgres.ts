/**
 * Crawl throughput on PostgreSQL + pg-boss: `npx tsx bench/crawl-postgres.ts [--sites 6] [--out build/bench/crawl-postgres.json]`
 * (root: namespaces; Debian's postgresql installed by setup.sh).
 *
 * Starts a throw-away PostgreSQL cluster (as tests/integration/crawl-postgres.test.ts does)
 * and the two-region lab tests/fixtures/labs/crawl-pg.ts, then runs the same probe crawl
 * (`--sites` targets x 2 regions, a 750 kB object each, through both Nebby profiles, as
 * crawls/lab-probe.ts does) twice: with one worker for both regions, then with two workers
 * (one per region) on this machine. The rate is site-measurements (one site from one region,
 * both profiles) per hour, from the first claim to the last result as Postgres recorded them
 * (process start-up not counted). Prints a table and writes the figures as JSON.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { labDown, labUp } from '../src/lab/control.js';
import { nodeModuleCommand } from '../src/util/node-script.js';
import { startPostgres } from '../tests/helpers/postgres.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const ROOT = resolve(import.meta.dirname, '..');
const SITES = Number(arg('--sites', '6'));
const OUT = arg('--out', 'build/bench/crawl-postgres.json');
const LAB = 'ccb-crawl-pg';
const cli = nodeModuleCommand('cli/main.ts');

function run(args: string[]): Promise<number | null> {
  const p = spawn(cli[0]!, [...cli.slice(1), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((r) => p.once('exit', (c) => r(c)));
}

const phases = [
  { name: '1 worker (both regions)', workers: ['r1,r2'] },
  { name: '2 workers (one per region)', workers: ['r1', 'r2'] },
];

const db = startPostgres();
const dir = mkdtempSync(join(tmpdir(), 'ccb-bench-crawl-pg-'));
const client = new pg.Client({ connectionString: db.url });
const rows: Array<Record<string, unknown>> = [];
try {
  await client.connect();
  await labUp({ config: join(ROOT, 'tests/fixtures/labs/crawl-pg.ts') });
  for (const [i, phase] of phases.entries()) {
    const name = `bench-${i + 1}`;
    const file = join(dir, `${name}.ts`);
    // Distinct URLs (distinct sites to the crawl), the same 750 kB-ish object size.
    const urls = Array.from({ length: SITES }, (_, k) => `https://www.lab.ccb.test/bytes/${750_000 + k}`);
    writeFileSync(file, `import { defineCrawl } from 'ccbrowse';
export default defineCrawl({ name: '${name}', lab: '${LAB}', regions: ['r1', 'r2'], profiles: ['nebby-50', 'nebby-100'], retries: 2, backoffSeconds: 5,
  targets: [${urls.map((u) => `{ url: '${u}', mode: 'probe' }`).join(', ')}] });
`);
    if (await run(['crawl', 'run', file, '--store', db.url, '--enqueue-only', '-q']) !== 0) throw new Error('enqueue failed');
    const load0 = loadavg()[0];
    const codes = await Promise.all(phase.workers.map((r, k) => run(['worker', '--region', r, '--store', db.url, '--out', join(dir, `${name}-w${k}`), '--until-idle', '-q'])));
    const { rows: [s] } = await client.query(`SELECT COUNT(*) FILTER (WHERE state = 'done')::int AS done, COUNT(*) FILTER (WHERE state = 'failed')::int AS failed,
      COUNT(*)::int AS total, MIN(first_claimed_at)::bigint AS t0, MAX(finished_at)::bigint AS t1 FROM ccb.crawl_jobs WHERE crawl_id = $1`, [name]);
    const { rows: [a] } = await client.query(`SELECT COUNT(*) FILTER (WHERE outcome <> 'done')::int AS not_done FROM ccb.crawl_attempts WHERE job_id LIKE $1 || ':%'`, [name]);
    const seconds = (Number(s.t1) - Number(s.t0)) / 1000;
    const row = { phase: phase.name, workers: phase.workers.length, exitCodes: codes, jobs: s.total, done: s.done, failed: s.failed, retriedOrLost: a.not_done,
      seconds: Math.round(seconds), perHour: Math.round((s.done / seconds) * 3600), loadAvgBefore: load0, loadAvgAfter: loadavg()[0] };
    rows.push(row);
    console.log(`${phase.name}: ${s.done}/${s.total} done (${s.failed} failed, ${a.not_done} retried/lost attempts) in ${row.seconds} s: ${row.perHour} site-measurements/hour`);
  }
} finally {
  await client.end().catch(() => {});
  await labDown(LAB).catch(() => {});
  db.stop();
  rmSync(dir, { recursive: true, force: true });
}
const out = { cores: availableParallelism(), sitesPerRegion: SITES, regions: 2, profiles: ['nebby-50', 'nebby-100'], objectBytes: 750_000, phases: rows };
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify(out, null, 2));
console.log(`-> ${OUT}`);
