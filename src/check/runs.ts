/**
 * Reading runs for a check: a run directory's run.json and summary.json (the fused rows the
 * run reported), the same way for a run just measured and for `--from-runs`, so re-checking
 * run directories gives the verdicts the live check gave. With `--from-runs`, each scenario
 * and region is judged on its newest measurement: the runs of its newest repeat group (a
 * check's runs of a scenario in a region share one: its --repeat runs and its retries), or
 * its newest run when it has no group.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFile } from '../results/read.js';
import { runSchema } from '../results/schema.js';
import { readSummaryFile, SUMMARY_FILE } from '../results/summary.js';
import { BadInputError } from '../util/errors.js';
import type { CheckRun } from './observe.js';
import type { PlannedScenario } from './plan.js';
import type { Measurement } from './report.js';

/** One run directory as a check reads it. An incomplete run without analysis has no rows. */
export function readCheckRun(dir: string): CheckRun & { group?: string } {
  const run = parseFile(join(dir, 'run.json'), runSchema);
  const summaryPath = join(dir, SUMMARY_FILE);
  let rows: Pick<CheckRun, 'byHost' | 'byAssetType' | 'byHostAssetType' | 'unanswered'> = { byHost: [], byAssetType: [], byHostAssetType: [], unanswered: [] };
  if (existsSync(summaryPath)) {
    const s = readSummaryFile(summaryPath);
    if (s.runId !== run.runId) throw new BadInputError(`${summaryPath}: runId "${s.runId}" differs from run.json's "${run.runId}"`, `re-run \`ccbrowse analyze ${dir}\``);
    rows = { byHost: s.byHost, byAssetType: s.byAssetType, byHostAssetType: s.byHostAssetType, unanswered: s.unanswered };
  } else if (run.status === 'complete') {
    throw new BadInputError(`${dir} has no ${SUMMARY_FILE} (recorded before ccbrowse wrote it)`, `\`ccbrowse analyze ${dir}\` writes it`);
  }
  return {
    runId: run.runId, dir: resolve(dir), status: run.status, ...(run.incompleteReason ? { incompleteReason: run.incompleteReason } : {}),
    scenario: run.scenario.name, site: run.site, region: run.region, startedAt: run.startedAt, endedAt: run.endedAt,
    notForClassification: run.profiles.filter((p) => p.forClassification === false).map((p) => p.name),
    ...rows, ...(run.repeat?.group ? { group: run.repeat.group } : {}),
  };
}

/** Run directories: each path is one (it holds run.json) or holds them (e.g. runs/). */
export function findRunDirs(paths: readonly string[]): string[] {
  const dirs: string[] = [];
  for (const p of paths) {
    if (!existsSync(p) || !statSync(p).isDirectory()) throw new BadInputError(`--from-runs ${p}: not a directory`, 'give a run directory or a directory of them (e.g. runs/)');
    if (existsSync(join(p, 'run.json'))) { dirs.push(p); continue; }
    const inside = readdirSync(p).map((f) => join(p, f)).filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'run.json')));
    if (inside.length === 0) throw new BadInputError(`--from-runs ${p}: no run directory there (none holds run.json)`, 'give the --out directory of earlier runs or checks');
    dirs.push(...inside.sort());
  }
  return dirs;
}

/** The newest measurement of each scenario in each region, from run directories. */
export function measurementsFromRuns(scenarios: readonly PlannedScenario[], runs: ReadonlyArray<CheckRun & { group?: string }>, regionsOf: (s: PlannedScenario, seen: string[]) => string[]): Measurement[] {
  const out: Measurement[] = [];
  for (const s of scenarios) {
    const mine = runs.filter((r) => r.scenario === s.scenario.name);
    for (const region of regionsOf(s, [...new Set(mine.map((r) => r.region))].sort())) {
      const here = mine.filter((r) => r.region === region);
      const groups = new Map<string, typeof here>();
      for (const r of here) (groups.get(r.group ?? r.runId) ?? groups.set(r.group ?? r.runId, []).get(r.group ?? r.runId)!).push(r);
      const newest = (g: typeof here) => g.reduce((a, r) => (r.startedAt > a ? r.startedAt : a), '');
      const latest = [...groups.values()].sort((a, b) => newest(b).localeCompare(newest(a)))[0] ?? [];
      out.push({ scenario: s, region, runs: latest.sort((a, b) => a.startedAt.localeCompare(b.startedAt)), seconds: 0 });
    }
  }
  return out;
}
