/**
 * `ccbrowse check <expectations or scenarios...>`: pass/fail for CI. Runs each scenario in
 * each region (or, with --from-runs, re-reads existing run directories: no browser, no root),
 * votes over --repeat runs, judges every expectation, and prints a table (or --json), writes
 * JUnit XML (--junit), GitHub Actions annotations and a job summary (when GITHUB_ACTIONS is
 * set), and the drift since a baseline (--baseline). Exit 0 all pass, 1 a failure, 4 only
 * inconclusive ones (docs/check.md).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
// Only types at the top: the check machinery (scenario loader, Playwright) loads when the command runs.
import type { PlannedScenario } from '../check/plan.js';
import type { Measurement } from '../check/report.js';
import type { Profile } from '../shaper/profile.js';
import { BadInputError } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import { indexRuns, indexVote, reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';

interface CheckOptions {
  region: string[];
  repeat: number;
  profile?: string[];
  lab?: string;
  out: string;
  model?: string;
  store?: string;
  fromRuns?: string[];
  junit?: string;
  baseline?: string;
  reportUrl: string;
  json?: boolean;
}

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('check expectations (per asset type or host, per region: the allowed controllers, a minimum confidence) against fresh runs or existing run directories; exit 0 all pass, 1 a failure, 4 only inconclusive')
    .argument('<files...>', 'expectations files (defineExpectations) and/or scenarios with `expect`')
    .addOption(opt.regions([], "region(s) to check; repeat or comma-separate for several (default: the expectations' regions, else local; --from-runs: the runs' regions)"))
    .addOption(opt.repeat(1, 'measure each scenario n times in each region; the runs vote per asset type and host', 100))
    .addOption(opt.scenarioProfiles())
    .addOption(opt.lab().default(undefined, "'default' for lab scenarios"))
    .addOption(opt.out('where run directories go', 'runs'))
    .option('--model <file>', 'classifier model (default models/ccbrowse-model.json)')
    .option('--store <file>', 'results store to index the runs in (default <out>/ccbrowse.sqlite)')
    .addOption(opt.paths('--from-runs <dir>', 're-check existing run directories (one, or a directory of them) instead of running: no browser, no root'))
    .option('--junit <file>', 'write the result as JUnit XML')
    .option('--baseline <file>', "a previous check's --json, or a results store (file.sqlite, or file.sqlite@YYYY-MM-DD): mark every asset type whose controller changed since")
    .option('--report-url <url>', "where the report ('ccbrowse report --out') is published: run links in JUnit, annotations and the summary point into it", 'report/')
    .addOption(opt.json())
    .action(async (files: string[], o: CheckOptions, cmd: Command) => {
      const { loadBaseline } = await import('../check/baseline.js');
      const { annotations, markdownSummary } = await import('../check/github.js');
      const { checkTable } = await import('../check/format.js');
      const { junitXml } = await import('../check/junit.js');
      const { loadCheckPlan, requireClassifyingProfile } = await import('../check/plan.js');
      const { buildCheckReport, expectationsIn } = await import('../check/report.js');
      const { findRunDirs, measurementsFromRuns, readCheckRun } = await import('../check/runs.js');
      const { loadProfile } = await import('../shaper/profile.js');
      // Everything is read and checked before anything is measured: files, labels, baseline, profiles.
      const plan = await loadCheckPlan(files);
      const baseline = o.baseline ? loadBaseline(o.baseline) : undefined;
      const say = reporterFor(cmd, { elapsed: true });
      const given = o.region.length ? o.region : undefined;
      let measurements: Measurement[];
      let regions: string[];
      if (o.fromRuns) {
        const runs = findRunDirs(o.fromRuns).flatMap((d) => {
          try { return [readCheckRun(d)]; } catch (err) { say.info(`skipped ${d}: ${(err as Error).message}`); return []; }
        });
        measurements = measurementsFromRuns(plan.scenarios, runs, (s, seen) => given ?? s.regions ?? seen);
        regions = [...new Set(measurements.map((m) => m.region))];
      } else {
        const regionsOf = (s: PlannedScenario) => given ?? s.regions ?? ['local'];
        regions = [...new Set(plan.scenarios.flatMap(regionsOf))];
        const wanted = plan.scenarios.filter((s) => regionsOf(s).some((r) => expectationsIn(s, r).length > 0));
        if (wanted.length === 0) throw new BadInputError(`no expectation applies in region(s) ${regions.join(', ')}`, 'check the rules\' `regions` and --region');
        const profiles = new Map<PlannedScenario, Profile[]>();
        for (const s of wanted) {
          profiles.set(s, await Promise.all((o.profile ?? s.scenario.profiles).map((p) => loadProfile(p))));
          requireClassifyingProfile(s.file, profiles.get(s)!);
        }
        requireRoot('check');
        const labScenarios = wanted.filter((s) => s.scenario.lab);
        const lab = o.lab !== undefined || labScenarios.length ? await requireRunningLab(o.lab ?? 'default') : undefined;
        for (const r of new Set(labScenarios.flatMap(regionsOf))) await requireRunningLab(o.lab ?? 'default', r);
        await reapLeftovers(say.info);
        const { measureLive } = await import('../check/live.js');
        const { formatProgress } = await import('../session/progress.js');
        const live = await measureLive({
          scenarios: wanted, regionsOf, repeat: o.repeat, lab, profilesOf: (s) => profiles.get(s)!, outDir: o.out, modelPath: o.model,
          signal: interruptSignal(), say: say.info, onProgress: (p) => say.progress(formatProgress(p)),
        });
        say.done();
        const storePath = o.store ?? join(o.out, 'ccbrowse.sqlite');
        const warn = (m: string) => process.stderr.write(`${m}\n`);
        await indexRuns(storePath, live.runDirs, warn);
        for (const v of live.voteFiles) await indexVote(storePath, v, warn);
        measurements = live.measurements;
      }
      const report = buildCheckReport({ plan, mode: o.fromRuns ? 'from-runs' : 'live', regions, repeat: o.repeat, measurements, baseline, reportBase: o.reportUrl });
      if (o.junit) {
        mkdirSync(dirname(o.junit), { recursive: true });
        writeFileSync(o.junit, junitXml(report));
      }
      if (process.env.GITHUB_ACTIONS === 'true') {
        // Workflow commands on stdout, or on stderr when stdout is one JSON document.
        const lines = annotations(report).join('\n');
        if (lines) (o.json ? process.stderr : process.stdout).write(`${lines}\n`);
        if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, markdownSummary(report));
      }
      console.log(o.json ? JSON.stringify(report, null, 2) : checkTable(report));
      process.exitCode = report.exitCode;
    });
}
