/**
 * Per-site wall time of lab scenarios with and without `run --stop-when-stable`:
 *   npx tsx bench/stop-when-stable.ts --lab NAME [--region R] [--scenarios vod,static] [--repeat 3] [--concurrency N] [--out build/bench/stop-when-stable.json]
 *
 * Runs each scenario `--repeat` times each way, alternating (full, then stopped), every
 * `ccbrowse run` timed from spawn to exit; prints the medians, whether the fused verdicts (per
 * host and per asset type) changed between the paired runs, and what each stopped profile's
 * run.json says (activity length against its ceiling, why, the trace length each verdict
 * needed). `--concurrency N` is passed to every run (profiles at once). Needs root and a
 * running lab; one run at a time.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { arg, differences, disturbanceLine, median, ROOT, runOnce, scenariosArg, type Measured } from './lib/lab-runs.js';

const LAB = arg('--lab', 'default')!;
const REGION = arg('--region');
const CONCURRENCY = arg('--concurrency');
const REPEAT = Number(arg('--repeat', '3'));
const OUT = arg('--out', 'build/bench/stop-when-stable.json')!;
const SCENARIOS = scenariosArg();
const RUNS_DIR = join(ROOT, 'build', 'bench', `stop-when-stable-runs-${process.pid}`);
const load = () => loadavg().map((x) => x.toFixed(1)).join(' / ');

const results: { scenario: string; full: Measured[]; stopped: Measured[] }[] = [];
mkdirSync(RUNS_DIR, { recursive: true });
process.stderr.write(`start ${new Date().toISOString()}, load ${load()}\n`);
try {
  for (const scenario of SCENARIOS) {
    const full: Measured[] = [];
    const stopped: Measured[] = [];
    const base = [...(REGION ? ['--region', REGION] : []), ...(CONCURRENCY ? ['--concurrency', CONCURRENCY] : [])];
    for (let i = 0; i < REPEAT; i++) {
      full.push(runOnce(scenario, { lab: LAB, runsDir: RUNS_DIR, extra: base }));
      stopped.push(runOnce(scenario, { lab: LAB, runsDir: RUNS_DIR, extra: [...base, '--stop-when-stable'] }));
      process.stderr.write(`${scenario} #${i + 1}: full ${full.at(-1)!.seconds.toFixed(1)} s (${full.at(-1)!.status}), stop when stable ${stopped.at(-1)!.seconds.toFixed(1)} s (${stopped.at(-1)!.status}), load ${load()}\n`);
    }
    results.push({ scenario, full, stopped });
  }
} finally {
  rmSync(RUNS_DIR, { recursive: true, force: true });
}

console.log('| scenario | runs | full (s, median) | stop when stable (s, median) | saved | verdicts per host (paired runs) | verdicts per asset type | status |');
console.log('| --- | ---: | ---: | ---: | ---: | --- | --- | --- |');
for (const r of results) {
  const f = median(r.full.map((m) => m.seconds));
  const s = median(r.stopped.map((m) => m.seconds));
  const hostDiff = r.full.flatMap((m, i) => differences(m.hosts, r.stopped[i].hosts).map((d) => `#${i + 1} ${d}`));
  const typeDiff = r.full.flatMap((m, i) => differences(m.types, r.stopped[i].types).map((d) => `#${i + 1} ${d}`));
  console.log(`| ${r.scenario} | ${r.full.length} + ${r.stopped.length} | ${f.toFixed(1)} (${r.full.map((m) => m.seconds.toFixed(0)).join(', ')}) | ${s.toFixed(1)} (${r.stopped.map((m) => m.seconds.toFixed(0)).join(', ')}) | ${(f - s).toFixed(1)} s (${(100 * (1 - s / f)).toFixed(0)}%) | ${hostDiff.length ? hostDiff.join('; ') : `same (${Object.keys(r.full[0].hosts).length} hosts)`} | ${typeDiff.length ? typeDiff.join('; ') : `same (${Object.keys(r.full[0].types).length} types)`} | ${[...r.full, ...r.stopped].map((m) => m.status).join(', ')} |`);
}
console.log('\nPer stopped profile (run.json earlyStop):\n');
console.log('| scenario | run | profile | activity (s) / ceiling | why | flows that mattered: standing, verdict, trace needed |');
console.log('| --- | ---: | --- | --- | --- | --- |');
for (const r of results) {
  r.stopped.forEach((m, i) => {
    for (const p of m.earlyStops ?? []) {
      const flows = p.flows.map((x) => `${x.flow.replace(/^\w+:/, '')} ${x.standing}${x.label ? ` ${x.label} at ${x.neededSeconds} s` : ''}`).join('; ') || 'none';
      console.log(`| ${r.scenario} | ${i + 1} | ${p.profile} | ${p.activitySeconds ?? '-'} / ${p.ceilingSeconds} | ${p.why} | ${flows} |`);
    }
  });
}
for (const r of results) {
  for (const [how, ms] of [['full', r.full], ['stop when stable', r.stopped]] as const) {
    ms.forEach((m, i) => console.log(`${r.scenario} ${how} #${i + 1}: host ${JSON.stringify(m.hosts)}; ${disturbanceLine(m)}`));
  }
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, JSON.stringify({ lab: LAB, region: REGION ?? null, concurrency: CONCURRENCY ?? null, repeat: REPEAT, results }, null, 2));
console.log(`load average at the end (1/5/15 min): ${load()}; ${new Date().toISOString()}`);
console.log(`\nwritten ${OUT}`);
