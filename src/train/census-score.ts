/**
 * Census accuracy (issue 18): a crawl's recovered site x region matrix against the one its lab
 * configuration implies (lab/census-truth.ts). Pure: the verdicts come in already read.
 *
 * A cell is one site from one region (its largest object, through every profile of the job):
 * right when the fused verdict names the configured controller; Unknown when it declines
 * (Unknown, or a non-answer such as a short or application-limited flow); confident-wrong when
 * it names another controller at or above the model's minimum answer; wrong below it (a fused
 * verdict under calibration never answers there, so this stays empty with a calibrated model);
 * missing when the crawl has no result for it. The same flows are also scored one by one (each
 * profile's calibrated verdict), the per-flow accuracy the census is compared with.
 */
import { UNKNOWN } from '../classify/index.js';
import type { ExpectedCell } from '../lab/census-truth.js';
import { labelFor } from './labels.js';

export type CellOutcome = 'right' | 'unknown' | 'wrong' | 'confident-wrong' | 'missing';

export interface ObservedVerdict { label: string; confidence: number }

/** What the crawl found for one site from one region. */
export interface ObservedCell {
  host: string;
  region: string;
  /** The fused verdict over the job's profiles. */
  verdict: ObservedVerdict;
  /** Each profile's own (calibrated) verdict, for the per-flow comparison. */
  flows: ObservedVerdict[];
  /** How many of those flows had their verdict withheld because the measuring host disturbed the bottleneck. */
  disturbedFlows?: number;
}

export interface Tally {
  cells: number;
  right: number;
  unknown: number;
  wrong: number;
  confidentWrong: number;
  missing: number;
}

export interface ScoredCell {
  host: string;
  region: string;
  protocol: 'tcp' | 'quic';
  expected: string;
  predicted: string | null;
  confidence: number | null;
  outcome: CellOutcome;
}

export interface CensusScore {
  minAnswer: number;
  /** Every cell of the crawled sites x regions, found or missing. */
  total: Tally;
  perRegion: Record<string, Tally>;
  /** By the configured controller (classifier label, protocol-qualified: "CUBIC/quic"). */
  perController: Record<string, Tally>;
  /** Cells whose controller or protocol differs between regions, scored per region. */
  regionDependent: Tally;
  /** The same flows, each profile's verdict on its own. */
  perFlow: Tally;
  cells: ScoredCell[];
  /** Results for a site or region the configuration does not serve (a crawl of another lab?). */
  unexpected: Array<{ host: string; region: string }>;
}

export const emptyTally = (): Tally => ({ cells: 0, right: 0, unknown: 0, wrong: 0, confidentWrong: 0, missing: 0 });

/** Labels that decline to name a controller. */
const NON_ANSWERS = new Set([UNKNOWN, 'Short flow', 'Application-limited']);

export function judge(expected: string, v: ObservedVerdict | undefined, minAnswer: number): CellOutcome {
  if (!v) return 'missing';
  if (v.label === expected) return 'right';
  if (NON_ANSWERS.has(v.label)) return 'unknown';
  return v.confidence >= minAnswer ? 'confident-wrong' : 'wrong';
}

function add(t: Tally, o: CellOutcome): void {
  t.cells++;
  if (o === 'right') t.right++;
  else if (o === 'unknown') t.unknown++;
  else if (o === 'wrong') t.wrong++;
  else if (o === 'confident-wrong') t.confidentWrong++;
  else t.missing++;
}

/** Shares over the cells that were measured (missing cells are not a verdict). */
export function shares(t: Tally): { measured: number; accuracy: number; unknown: number; confidentWrong: number } {
  const measured = t.cells - t.missing;
  const of = (n: number) => (measured ? n / measured : 0);
  return { measured, accuracy: of(t.right), unknown: of(t.unknown), confidentWrong: of(t.confidentWrong) };
}

/**
 * Scores the cells of `hosts` x `regions` (the crawl's targets) against the configuration.
 * Hosts the configuration does not serve in a region are not cells; a result for one is listed
 * as unexpected.
 */
export function scoreCensus(expected: readonly ExpectedCell[], observed: readonly ObservedCell[], o: { hosts: readonly string[]; regions: readonly string[]; minAnswer: number; regionDependentHosts: ReadonlySet<string> }): CensusScore {
  const key = (host: string, region: string) => `${host}\t${region}`;
  const want = new Map(expected.map((c) => [key(c.host, c.region), c]));
  const got = new Map(observed.map((c) => [key(c.host, c.region), c]));
  const s: CensusScore = { minAnswer: o.minAnswer, total: emptyTally(), perRegion: {}, perController: {}, regionDependent: emptyTally(), perFlow: emptyTally(), cells: [], unexpected: [] };
  for (const host of o.hosts) {
    for (const region of o.regions) {
      const cell = want.get(key(host, region));
      if (!cell || cell.silent) continue;
      const label = labelFor(cell.protocol, cell.cca);
      const seen = got.get(key(host, region));
      const outcome = judge(label, seen?.verdict, o.minAnswer);
      add(s.total, outcome);
      add((s.perRegion[region] ??= emptyTally()), outcome);
      add((s.perController[`${label}/${cell.protocol}`] ??= emptyTally()), outcome);
      if (o.regionDependentHosts.has(host)) add(s.regionDependent, outcome);
      for (const f of seen?.flows ?? []) add(s.perFlow, judge(label, f, o.minAnswer));
      s.cells.push({ host, region, protocol: cell.protocol, expected: label, predicted: seen?.verdict.label ?? null, confidence: seen?.verdict.confidence ?? null, outcome });
    }
  }
  for (const c of observed) if (!want.has(key(c.host, c.region))) s.unexpected.push({ host: c.host, region: c.region });
  return s;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The score as a Markdown table (all, per region, per controller, cells that differ, per flow) and the cells not right. */
export function censusTable(s: CensusScore): string[] {
  const row = (name: string, t: Tally) => {
    const x = shares(t);
    return `| ${name} | ${t.cells} | ${x.measured} | ${t.right} | ${pct(x.accuracy)} | ${pct(x.unknown)} | ${pct(x.confidentWrong)} |`;
  };
  return [
    '| scope | cells | measured | right | accuracy | Unknown | confident-wrong |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row('census (site x region)', s.total),
    ...Object.entries(s.perRegion).map(([r, t]) => row(`region ${r}`, t)),
    ...Object.entries(s.perController).sort(([a], [b]) => a.localeCompare(b)).map(([c, t]) => row(c, t)),
    row('cells that differ per region', s.regionDependent),
    row('per flow (each profile alone)', s.perFlow),
    '',
    ...s.cells.filter((c) => c.outcome !== 'right').map((c) => `${c.outcome.padEnd(15)} ${c.host} [${c.region}] is ${c.expected}/${c.protocol}, read ${c.predicted ?? '-'}${c.confidence !== null ? ` (${c.confidence.toFixed(2)})` : ''}`),
    ...(s.unexpected.length ? [`results outside the configuration: ${s.unexpected.map((u) => `${u.host} [${u.region}]`).join(', ')}`] : []),
  ];
}
