/**
 * `--from-runs` on committed run directories gives the verdicts the live check gave. The
 * directories under tests/fixtures/check/run-dirs/ are the run.json and summary.json (all a check
 * reads of a run) of the live checks of tests/integration/check.test.ts against the lab
 * (regions good, moved, silent; nebby-50; captures and the rest left out), and
 * tests/fixtures/check/live/<region>.xml the JUnit those live checks wrote.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../../src/check/junit.js';
import { loadCheckPlan } from '../../../src/check/plan.js';
import { buildCheckReport } from '../../../src/check/report.js';
import { findRunDirs, measurementsFromRuns, readCheckRun } from '../../../src/check/runs.js';

const FIXTURES = 'tests/fixtures/check';
/** The live checks' --report-url, so report links (in failure messages) compare too. */
const REPORT_URL = 'https://qa.example/ccb/';

interface Case { name: string; classname: string; verdict: 'pass' | 'fail' | 'inconclusive'; message?: string }

/** The test cases of a JUnit document: verdict from <failure> / <error>, and the message. */
function casesOf(xml: string): Case[] {
  const out: Case[] = [];
  for (const m of xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)) {
    const failure = /<failure message="([^"]*)"/.exec(m[3]);
    const error = /<error message="([^"]*)" type="inconclusive"/.exec(m[3]);
    out.push({ name: m[1], classname: m[2], verdict: failure ? 'fail' : error ? 'inconclusive' : 'pass', message: (failure ?? error)?.[1] });
  }
  return out;
}

describe('--from-runs on committed run directories', () => {
  it('gives the verdicts, observed labels and messages the live checks gave', async () => {
    const plan = await loadCheckPlan([join(FIXTURES, 'lab.expect.ts')]);
    const runs = findRunDirs([join(FIXTURES, 'run-dirs')]).map((d) => readCheckRun(d));
    const measurements = measurementsFromRuns(plan.scenarios, runs, (_s, seen) => seen);
    expect(measurements.map((m) => m.region)).toEqual(['good', 'moved', 'silent']);
    const report = buildCheckReport({ plan, mode: 'from-runs', regions: ['good', 'moved', 'silent'], repeat: 1, measurements, reportBase: REPORT_URL });
    const again = casesOf(junitXml(report));
    const live = readdirSync(join(FIXTURES, 'live')).sort().flatMap((f) => casesOf(readFileSync(join(FIXTURES, 'live', f), 'utf8')));
    expect(again).toEqual(live);
    expect(again.map((c) => c.verdict)).toEqual(['pass', 'fail', 'inconclusive']);
    expect(report.exitCode).toBe(1);
    // Recorded on a busy machine through one profile: the CUBIC video read as Unknown, which fails the rule (onNonAnswer: 'fail').
    expect(report.cases[1].observed[0].label).toBe('Unknown');
  });
});
