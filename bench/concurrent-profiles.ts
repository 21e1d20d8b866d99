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
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { arg, differences, disturbanceLine, median, ROOT, runOnce as runLab, scenariosArg, type Measured } from './lib/lab-runs.js';

const LAB = arg('--lab', 'default')!;
const REPEAT = Number(arg('--repeat', '1'));
const OUT = arg('--out', 'build/bench/concurrent-profiles.json')!;
const SCENARIOS = scenariosArg();
const RUNS_DIR = join(ROOT, 'build', 'bench', `concurrent-profiles-runs-${process.pid}`);

const runOnce = (scenario: string, concurrency: number | undefined): Measured =>
  runLab(scenario, { lab: LAB, runsDir: RUNS_DIR, extra: concurrency ? ['--concurrency', String(concurrency)] : [] });

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
      console.log(`${r.scenario} ${how}: ${disturbanceLine(m)}`);
    }
  }
}
console.log(`load average at the end (1/5/15 min): ${loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
console.log(`\nwritten ${OUT}`);
