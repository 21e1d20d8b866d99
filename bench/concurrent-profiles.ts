/**
 * Per-site wall time of each lab scenario with its profiles one after another and at once:
 *   npx tsx bench/concurrent-profiles.ts --lab NAME [--scenarios vod,static] [--repeat 1] [--out build/bench/concurrent-profiles.json]
 *
 * For every scenario in scenarios/lab/ (or the ones named), runs `ccbrowse run` against a
 * running lab with `--concurrency 1` (before: the profiles in turn) and then with the default
 * (after: one profile per core), timing each command from start to exit, and compares the
 * verdicts (per host and per asset type, fused across the profiles): the same lab bench
 * answers, or the rows that differ. Prints a markdown table; the raw figures go to --out.
 * Needs root and a running lab (`ccbrowse lab up --config FILE`); one run at a time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const ROOT = resolve(import.meta.dirname, '..');
const LAB = arg('--lab', 'default')!;
const REPEAT = Number(arg('--repeat', '1'));
const OUT = arg('--out', 'build/bench/concurrent-profiles.json')!;
const SCENARIOS = (arg('--scenarios') ?? readdirSync(join(ROOT, 'scenarios/lab')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).join(','))
  .split(',').filter(Boolean);
const RUNS_DIR = join(ROOT, 'build', 'bench', `concurrent-profiles-runs-${process.pid}`);

interface Row { host: string; label: string; confidence: number }
interface TypeRow { assetType: string; label: string; confidence: number }
interface Outcome { dir: string; status: string; incompleteReason?: string; summary: Row[]; byAssetType: TypeRow[] }
interface Disturbed { profile: string; stalledShare: number; maxStallMs: number; loadAverage: number | null }
interface Measured { seconds: number; status: string; reason?: string; hosts: Record<string, string>; types: Record<string, string>; disturbance?: Disturbed[]; disturbedVerdicts?: number }

/** How the host held each profile's bottleneck back, and how many verdicts say "disturbed". */
function disturbanceIn(dir: string): { disturbance: Disturbed[]; disturbedVerdicts: number } {
  const disturbance: Disturbed[] = [];
  for (const p of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const f = join(dir, p.name, 'disturbance.json');
    if (!existsSync(f)) continue;
    const d = JSON.parse(readFileSync(f, 'utf8')) as { windowSeconds: number; stalledMs: number; maxStallMs: number; loadAverage: number | null };
    disturbance.push({ profile: p.name, stalledShare: d.windowSeconds ? d.stalledMs / 1000 / d.windowSeconds : 0, maxStallMs: d.maxStallMs, loadAverage: d.loadAverage });
  }
  const v = join(dir, 'verdicts.json');
  const disturbedVerdicts = existsSync(v) ? (readFileSync(v, 'utf8').match(/a disturbed trace/g) ?? []).length : 0;
  return { disturbance, disturbedVerdicts };
}

function runOnce(scenario: string, concurrency: number | undefined): Measured {
  const args = [join(ROOT, 'bin/ccbrowse.js'), 'run', join(ROOT, 'scenarios/lab', `${scenario}.ts`), '--lab', LAB, '--out', RUNS_DIR, '--json', '-q',
    ...(concurrency ? ['--concurrency', String(concurrency)] : [])];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  let o: Outcome | undefined;
  try { o = (JSON.parse(r.stdout) as { runs: Outcome[] }).runs[0]; } catch { /* reported below */ }
  if (!o) return { seconds, status: `failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' ')}`, hosts: {}, types: {} };
  const seen = disturbanceIn(o.dir);
  rmSync(o.dir, { recursive: true, force: true });
  return {
    seconds, status: o.status, reason: o.incompleteReason, ...seen,
    hosts: Object.fromEntries(o.summary.map((x) => [x.host, x.label])),
    types: Object.fromEntries(o.byAssetType.map((x) => [x.assetType, x.label])),
  };
}

function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k] ?? '-'} -> ${b[k] ?? '-'}`);
}

const results: { scenario: string; before: Measured[]; after: Measured[] }[] = [];
mkdirSync(RUNS_DIR, { recursive: true });
try {
  for (const scenario of SCENARIOS) {
    const before: Measured[] = [];
    const after: Measured[] = [];
    for (let i = 0; i < REPEAT; i++) {
      before.push(runOnce(scenario, 1));
      after.push(runOnce(scenario, undefined));
      process.stderr.write(`${scenario} #${i + 1}: one after another ${before.at(-1)!.seconds.toFixed(1)} s (${before.at(-1)!.status}), at once ${after.at(-1)!.seconds.toFixed(1)} s (${after.at(-1)!.status})\n`);
    }
    results.push({ scenario, before, after });
  }
} finally {
  rmSync(RUNS_DIR, { recursive: true, force: true });
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log('| scenario | profiles one after another (s) | profiles at once (s) | speed-up | verdicts per host | verdicts per asset type | status |');
console.log('| --- | ---: | ---: | ---: | --- | --- | --- |');
for (const r of results) {
  const b = median(r.before.map((m) => m.seconds));
  const a = median(r.after.map((m) => m.seconds));
  const hostDiff = r.before.flatMap((m, i) => differences(m.hosts, r.after[i].hosts));
  const typeDiff = r.before.flatMap((m, i) => differences(m.types, r.after[i].types));
  const hosts = Object.keys(r.before[0].hosts).length;
  const types = Object.keys(r.before[0].types).length;
  console.log(`| ${r.scenario} | ${b.toFixed(1)} | ${a.toFixed(1)} | ${(b / a).toFixed(2)}x | ${hostDiff.length ? hostDiff.join('; ') : `same (${hosts} hosts)`} | ${typeDiff.length ? typeDiff.join('; ') : `same (${types} types)`} | ${[...r.before, ...r.after].map((m) => m.status).join(', ')} |`);
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify({ lab: LAB, repeat: REPEAT, results }, null, 2));
for (const r of results) {
  for (const [how, ms] of [['one after another', r.before], ['at once', r.after]] as const) {
    for (const m of ms) {
      console.log(`${r.scenario} ${how}: ${(m.disturbance ?? []).map((d) => `${d.profile} held back ${(100 * d.stalledShare).toFixed(2)}% (longest ${d.maxStallMs.toFixed(0)} ms, load ${d.loadAverage?.toFixed(1) ?? '?'})`).join(', ')}; ${m.disturbedVerdicts ?? 0} verdict record(s) marked disturbed`);
    }
  }
}
console.log(`load average at the end (1/5/15 min): ${loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
console.log(`\nwritten ${OUT}`);
