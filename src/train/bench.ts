/**
 * `ccbrowse lab bench`: classify fresh lab traces (never the training ones) and build the
 * report's lab-bench result (src/results/labBench.ts): confusion matrix, per-class accuracy,
 * Unknown rate, median trace length. A measurement = one controller probed under both nebby
 * profiles; its answer is fuseProfiles over the two flow verdicts (Nebby's protocol). The
 * single-profile verdicts are scored too.
 */
import { classifyFlow, fuseProfiles, shapeClusterOf, type Model, type Verdict } from '../classify/index.js';
import { labBenchFromOutcomes, type LabBench } from '../results/labBench.js';
import { toSeries, type DatasetEntry } from './dataset.js';
import { trainFromEntries } from './train.js';

export interface TraceOutcome {
  origin: string;
  protocol: 'tcp' | 'quic';
  truth: string;
  profile: string;
  region: string;
  rep: number;
  predicted: string;
  confidence: number;
  reason: string;
  traceSeconds: number;
}

export interface MeasurementOutcome {
  origin: string;
  protocol: 'tcp' | 'quic';
  truth: string;
  region: string;
  rep: number;
  predicted: string;
  confidence: number;
  traceSeconds: number;
}

export function classifyEntries(entries: DatasetEntry[], model: Model, seriesOf: (e: DatasetEntry) => ReturnType<typeof toSeries> = toSeries): { traces: TraceOutcome[]; measurements: MeasurementOutcome[] } {
  const traces: TraceOutcome[] = [];
  const groups = new Map<string, Array<{ e: DatasetEntry; v: Verdict }>>();
  // Judged as users get them: through the model's calibration when it has one (its minimum
  // answers included), as a run, a probe and `classify` do; a single-profile verdict as one
  // profile fused alone.
  const calibration = model.calibration;
  for (const e of entries) {
    const raw = classifyFlow(seriesOf(e), model);
    const v = calibration ? fuseProfiles([raw], { calibration }) : raw;
    const seconds = e.t.length ? e.t[e.t.length - 1] - e.t[0] : 0;
    traces.push({ origin: e.origin, protocol: e.protocol, truth: e.label, profile: e.profile, region: e.region, rep: e.rep, predicted: v.label, confidence: v.confidence, reason: v.reason, traceSeconds: seconds });
    const k = `${e.origin}\t${e.region}\t${e.rep}`;
    groups.set(k, [...(groups.get(k) ?? []), { e, v: raw }]);
  }
  const measurements: MeasurementOutcome[] = [];
  for (const g of groups.values()) {
    const fused = fuseProfiles(g.map((x) => x.v), calibration ? { calibration } : undefined);
    const e = g[0].e;
    // The trace length a measurement needs: its longest profile trace.
    const seconds = Math.max(...g.map((x) => (x.e.t.length ? x.e.t[x.e.t.length - 1] - x.e.t[0] : 0)));
    measurements.push({ origin: e.origin, protocol: e.protocol, truth: e.label, region: e.region, rep: e.rep, predicted: fused.label, confidence: fused.confidence, traceSeconds: seconds });
  }
  return { traces, measurements };
}

export function benchResult(name: string, modelNote: string, outcomes: Array<{ truth: string; predicted: string; traceSeconds: number }>, profiles: string[], note?: string): LabBench {
  return labBenchFromOutcomes({ name, createdAt: new Date().toISOString(), model: modelNote, profiles, ...(note ? { note } : {}) }, outcomes);
}

/**
 * Design families of the lab's controllers, from how each published design grows and cuts its
 * window (the classes a hold-one-out answer may fall back to without being wrong):
 * - AIMD: one increase per RTT (fixed or window-dependent) and a multiplicative cut; the delay
 *   or bandwidth signal only scales those (NewReno; HighSpeed, RFC 3649: a(w), b(w); Westwood+:
 *   cut to the bandwidth estimate; Veno: Vegas backlog picks the cut; Illinois: delay picks a, b).
 * - probing toward the last maximum / by time since the last loss (BIC's binary search, CUBIC's
 *   cubic of time, H-TCP's increase as a function of time since congestion).
 * - multiplicative increase (Scalable: +0.01 per ACK; YeAH's fast mode is Scalable).
 * - delay-based (Vegas), model-based (every BBR version).
 */
const DESIGN_FAMILIES: Record<string, string> = {
  NewReno: 'AIMD', HSTCP: 'AIMD', Westwood: 'AIMD', Veno: 'AIMD', Illinois: 'AIMD',
  BIC: 'max-probing', CUBIC: 'max-probing', HTCP: 'max-probing',
  Scalable: 'multiplicative-increase', YeAH: 'multiplicative-increase',
  Vegas: 'delay-based',
  // Issue 17. FAST (the lab's AkamaiCC-like sender) and Copa steer toward a target queueing
  // delay; the open-set strangers by their designs: Hybla (Reno growth scaled by the RTT) and
  // DCTCP without ECN (NewReno in effect) are AIMD; CDG (delay gradient), TCP-LP (early
  // congestion indication from delay) and TCP-NV (queue above the rate x min RTT) are delay-based.
  'AkamaiCC-like': 'delay-based', Copa: 'delay-based',
  Hybla: 'AIMD', DCTCP: 'AIMD',
  CDG: 'delay-based', LP: 'delay-based', NV: 'delay-based',
};

export function designFamilyOf(label: string): string | null {
  if (label.startsWith('BBR')) return 'model-based';
  return DESIGN_FAMILIES[label] ?? null;
}

/** Which notion of "family" a hold-one-out answer is judged by: design (default) or Nebby's shape clusters. */
export type FamilyScheme = 'design' | 'shape';

/** Hold-one-out outcome: the held-out class may come out Unknown or in its family, never a confident wrong label. */
export function holdOutVerdict(truth: string, predicted: string, scheme: FamilyScheme = 'design'): 'unknown' | 'same-family' | 'wrong' {
  if (['Unknown', 'Short flow', 'Application-limited'].includes(predicted)) return 'unknown';
  const family = scheme === 'design' ? designFamilyOf : shapeClusterOf;
  const a = family(truth);
  const b = family(predicted);
  if (a && b && a === b) return 'same-family';
  // BBR variants are one family for the rate-based classifier.
  if (truth.startsWith('BBR') && predicted.startsWith('BBR')) return 'same-family';
  return 'wrong';
}

/** Confusion matrix as a markdown table (rows: truth, columns: predicted). */
export function matrixTable(b: LabBench): string {
  const short = (l: string) => (l === 'Unknown' ? 'Unk' : l === 'Short flow' ? 'Short' : l === 'Application-limited' ? 'AppLim' : l);
  const head = `| true \\ predicted | ${b.predictedLabels.map(short).join(' | ')} | accuracy |`;
  const sep = `| --- | ${b.predictedLabels.map(() => '---:').join(' | ')} | ---: |`;
  const rows = b.trueClasses.map((t, i) => `| ${t} | ${b.matrix[i].map((x) => (x ? String(x) : '.')).join(' | ')} | ${(b.perClass[i].accuracy * 100).toFixed(0)}% (${b.perClass[i].correct}/${b.perClass[i].n}) |`);
  const mean = b.perClass.reduce((s, p) => s + p.accuracy, 0) / Math.max(1, b.perClass.length);
  return [head, sep, ...rows, '',
    `overall ${(b.overallAccuracy * 100).toFixed(1)}%, mean per-class ${(mean * 100).toFixed(1)}%, Unknown rate ${(b.unknownRate * 100).toFixed(1)}%, median trace ${b.medianTraceSeconds.toFixed(1)} s`].join('\n');
}

/**
 * Leave-one-measurement-out: each (origin, region, rep) group is classified by a model trained
 * on every other trace, so no trace is judged by a model that saw it (small-data benchmark).
 */
export function crossValidate(entries: DatasetEntry[]): { traces: TraceOutcome[]; measurements: MeasurementOutcome[] } {
  const key = (e: DatasetEntry) => `${e.origin}\t${e.region}\t${e.rep}`;
  const keys = [...new Set(entries.map(key))];
  const traces: TraceOutcome[] = [];
  const measurements: MeasurementOutcome[] = [];
  // One series object per entry, so each trace's features are extracted once (features.ts
  // caches them per series) instead of once per fold.
  const series = new Map(entries.map((e) => [e, { ...toSeries(e), transport: e.protocol }] as const));
  const seriesOf = (e: DatasetEntry) => series.get(e) ?? toSeries(e);
  for (const k of keys) {
    const model = trainFromEntries(entries.filter((e) => key(e) !== k), { source: 'cross-validation', seriesOf });
    const r = classifyEntries(entries.filter((e) => key(e) === k), model, seriesOf);
    traces.push(...r.traces);
    measurements.push(...r.measurements);
  }
  return { traces, measurements };
}

export interface HoldOutRow {
  label: string;
  unknown: number;
  sameFamily: number;
  wrong: number;
  /** Confident wrong when families are Nebby's shape clusters instead of design families. */
  wrongByShapeCluster: number;
  /** What the wrong answers said. */
  wrongAs: string[];
}

/**
 * Every class in turn: a model trained without it classifies that class's measurements, which
 * must come out Unknown or in the class's shape family, never as a confident wrong label.
 */
export function holdOneOutAll(entries: DatasetEntry[], source: string): HoldOutRow[] {
  const rows: HoldOutRow[] = [];
  for (const label of [...new Set(entries.map((e) => e.label))].sort()) {
    const model = trainFromEntries(entries, { exclude: [label], source });
    const { measurements } = classifyEntries(entries.filter((e) => e.label === label), model);
    const row: HoldOutRow = { label, unknown: 0, sameFamily: 0, wrong: 0, wrongByShapeCluster: 0, wrongAs: [] };
    for (const m of measurements) {
      const v = holdOutVerdict(m.truth, m.predicted);
      if (holdOutVerdict(m.truth, m.predicted, 'shape') === 'wrong') row.wrongByShapeCluster++;
      if (v === 'unknown') row.unknown++;
      else if (v === 'same-family') row.sameFamily++;
      else {
        row.wrong++;
        row.wrongAs.push(m.predicted);
      }
    }
    rows.push(row);
  }
  return rows;
}

export interface OpenSetRow {
  label: string;
  family: string | null;
  measurements: number;
  unknown: number;
  sameFamily: number;
  /** Confident wrong: a CCA answer outside the stranger's design family. */
  wrong: number;
  /** Every answer and how often (what the stranger was called). */
  calledAs: Record<string, number>;
}

/**
 * The open set (issue 17): controllers that are no class of the model (labs/open-set.ts). A
 * right answer is Unknown or a class of the stranger's design family; any other CCA answer is
 * a confident wrong label (below the answer threshold the classifier says Unknown).
 */
export function openSetRows(measurements: Array<{ truth: string; predicted: string }>, modelClasses: readonly string[]): OpenSetRow[] {
  const rows = new Map<string, OpenSetRow>();
  for (const m of measurements) {
    if (modelClasses.includes(m.truth)) continue;
    const r = rows.get(m.truth) ?? { label: m.truth, family: designFamilyOf(m.truth), measurements: 0, unknown: 0, sameFamily: 0, wrong: 0, calledAs: {} };
    r.measurements++;
    r.calledAs[m.predicted] = (r.calledAs[m.predicted] ?? 0) + 1;
    const v = holdOutVerdict(m.truth, m.predicted);
    if (v === 'unknown') r.unknown++;
    else if (v === 'same-family') r.sameFamily++;
    else r.wrong++;
    rows.set(m.truth, r);
  }
  return [...rows.values()].sort((a, b) => a.label.localeCompare(b.label));
}

/** The open-set rows as a markdown table, with the total confident-wrong rate. */
export function openSetTable(rows: OpenSetRow[]): string {
  const head = '| stranger (design family) | measurements | Unknown | same family | confident wrong | called |\n| --- | ---: | ---: | ---: | ---: | --- |';
  const lines = rows.map((r) => `| ${r.label} (${r.family ?? '-'}) | ${r.measurements} | ${r.unknown} | ${r.sameFamily} | ${r.wrong} | ${Object.entries(r.calledAs).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ')} |`);
  const n = rows.reduce((a, r) => a + r.measurements, 0);
  const w = rows.reduce((a, r) => a + r.wrong, 0);
  return [head, ...lines, '', `open set: ${w} confident wrong of ${n} measurements (${n ? ((100 * w) / n).toFixed(1) : '0.0'}%)`].join('\n');
}
