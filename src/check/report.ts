/**
 * From measurements (the runs of each scenario in each region) to the check's result: one
 * case per expectation and region (judge.ts), every asset type each measurement showed (for
 * later baselines), drift since a baseline, and the outcome with its exit code.
 */
import { siteSlug } from '../report/slug.js';
import { CHECK_SCHEMA_VERSION, type CheckCase, type CheckReport, type CheckRunRef, type ObservedType } from '../results/check.js';
import { driftSince, type Baseline } from './baseline.js';
import { judge, overall, type CaseVerdict, type Judgement } from './judge.js';
import { observe, type CheckRun, type Observation } from './observe.js';
import type { CheckPlan, PlannedExpectation, PlannedScenario } from './plan.js';

export const TOOL_VERSION = '0.1.0';

/** The runs of one scenario in one region (a --repeat vote, and any retries). */
export interface Measurement {
  scenario: PlannedScenario;
  region: string;
  runs: CheckRun[];
  /** Time spent measuring (0 when re-checked from run directories). */
  seconds: number;
}

/** The expectations of a scenario that apply in a region. */
export function expectationsIn(s: PlannedScenario, region: string): PlannedExpectation[] {
  return s.expectations.filter((x) => !x.regions || x.regions.includes(region));
}

export interface JudgedExpectation {
  x: PlannedExpectation;
  observed: Observation[];
  judgement: Judgement;
}

/** Every expectation of the measurement judged; `canRetry` while more runs may be asked for. */
export function judgeMeasurement(m: Measurement, canRetry: boolean): JudgedExpectation[] {
  return expectationsIn(m.scenario, m.region).map((x) => {
    const observed = observe(x, m.runs);
    return { x, observed, judgement: judge(x, m.region, observed, m.runs, canRetry) };
  });
}

/** Link to a run on its site's page of the report (`ccbrowse report --out <base>`): sites/<slug>.html?run=<id>. */
export function reportUrl(base: string, site: string, runId: string): string {
  const b = base === '' || base.endsWith('/') ? base : `${base}/`;
  return `${b}sites/${siteSlug(site)}.html?run=${encodeURIComponent(runId)}`;
}

function siteOf(m: Measurement): string {
  return m.runs.at(-1)?.site ?? (() => { try { return new URL(m.scenario.scenario.startUrl).hostname; } catch { return m.scenario.scenario.name; } })();
}

/** Every asset type the measurement showed, voted over its runs. */
function observedTypes(m: Measurement): ObservedType[] {
  const types = [...new Set(m.runs.flatMap((r) => r.byAssetType.map((t) => t.assetType)))].sort();
  return types.map((assetType) => {
    const pseudo = { id: '', name: '', source: { file: '' }, assetType, cca: [], minConfidence: 0, onNonAnswer: 'fail' } as PlannedExpectation;
    const o = observe(pseudo, m.runs)[0];
    return { scenario: m.scenario.scenario.name, site: siteOf(m), region: m.region, assetType, label: o.label, kind: o.kind, confidence: o.confidence, flows: o.flows, bytes: o.bytes, runs: o.runsSeen };
  });
}

export interface ReportOptions {
  plan: CheckPlan;
  mode: 'live' | 'from-runs';
  regions: string[];
  repeat: number;
  measurements: Measurement[];
  baseline?: Baseline;
  /** Base of the published report (--report-url). */
  reportBase: string;
  now?: Date;
}

export function buildCheckReport(o: ReportOptions): CheckReport {
  const cases: CheckCase[] = [];
  for (const m of o.measurements) {
    const judged = judgeMeasurement(m, false);
    const runs: CheckRunRef[] = m.runs.map((r) => ({
      runId: r.runId, dir: r.dir, status: r.status, ...(r.incompleteReason ? { incompleteReason: r.incompleteReason } : {}),
      startedAt: r.startedAt, reportUrl: reportUrl(o.reportBase, r.site, r.runId),
    }));
    for (const j of judged) {
      cases.push({
        id: `${j.x.id} @${m.region}`, name: j.x.name, scenario: m.scenario.scenario.name, site: siteOf(m), region: m.region, source: j.x.source,
        expectation: {
          ...(j.x.assetType ? { assetType: j.x.assetType } : {}), ...(j.x.host ? { host: j.x.host } : {}),
          cca: j.x.cca.map((c) => c.name), minConfidence: j.x.minConfidence, onNonAnswer: j.x.onNonAnswer,
        },
        // canRetry false: no verdict is still pending.
        verdict: j.judgement.verdict as CaseVerdict, reason: j.judgement.reason, observed: j.observed, runs,
        seconds: judged.length ? m.seconds / judged.length : 0,
      });
    }
  }
  const observations = o.measurements.flatMap(observedTypes);
  const counts = { pass: 0, warn: 0, fail: 0, inconclusive: 0 };
  for (const c of cases) counts[c.verdict]++;
  const { outcome, exitCode } = overall(cases.map((c) => c.verdict));
  return {
    schemaVersion: CHECK_SCHEMA_VERSION, name: o.plan.name, createdAt: (o.now ?? new Date()).toISOString(), tool: TOOL_VERSION,
    mode: o.mode, inputs: o.plan.inputs, regions: o.regions, repeat: o.repeat, outcome, exitCode, counts, cases, observations,
    baseline: o.baseline ? { source: o.baseline.source, kind: o.baseline.kind, asOf: o.baseline.asOf } : null,
    drift: o.baseline ? driftSince(o.baseline, observations) : [],
  };
}
