/**
 * The conditions benchmark (issue 16): how verdicts hold when the conditions move. Every
 * measurement (one lab controller under one grid condition, its profiles fused) is judged by a
 * model that never saw its condition (leave one condition out), or never saw its controller
 * (hold one controller out: the open set). Scored per controller, per condition axis and per
 * profile: accuracy, Unknown rate, wrong answers and confident wrong ones (confidence >= 0.7),
 * and the calibration of the confidence (reliability table, expected calibration error).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { classifyFlow, fuseProfiles, type Model, type Verdict } from '../classify/index.js';
import { loneAnswerConfidence, loneProfileDoubt, restsOnShapesAlone } from '../classify/fusion.js';
import { calibrate, fitCalibration, type Calibrations } from '../classify/calibration.js';
import { confidenceOf, fitConfidenceModel, reliabilityOf, type ConfidenceModel } from '../classify/confidence.js';
import { defaultPipelineConfig, type PipelineConfig } from '../classify/config.js';
import type { BifSeries } from '../trace/types.js';
import { designFamilyOf, holdOutVerdict } from './bench.js';
import { loadDataset, toSeries, type DatasetEntry } from './dataset.js';
import { trainFromEntries } from './train.js';

/** A verdict at or above this confidence that names the wrong CCA is a confident wrong answer. */
export const CONFIDENT = 0.7;
const NON_ANSWERS = new Set(['Unknown', 'Short flow', 'Application-limited']);

export interface GridEntry extends DatasetEntry {
  conditionId: string;
  axis: string;
  value: string;
}

/** Every condition dataset in a grid output directory (or the files given). */
export function loadGridEntries(pathsOrDir: string[]): GridEntry[] {
  const files = pathsOrDir.flatMap((p) => (p.endsWith('.json') ? [p] : readdirSync(p).filter((f) => f.endsWith('.json') && !f.startsWith('lab-')).map((f) => join(p, f))));
  const out: GridEntry[] = [];
  for (const f of files.sort()) {
    for (const e of loadDataset(f).entries) {
      const c = (e.conditions ?? {}) as { id?: string; axis?: string; value?: string };
      out.push({ ...e, conditionId: c.id ?? e.region, axis: c.axis ?? 'base', value: c.value ?? e.region });
    }
  }
  return out;
}

export interface Outcome {
  conditionId: string;
  axis: string;
  value: string;
  origin: string;
  protocol: 'tcp' | 'quic';
  truth: string;
  rep: number;
  predicted: string;
  confidence: number;
  reason: string;
  perProfile: Array<{ profile: string; predicted: string; confidence: number; reliability: number[] | null; shapeSaid?: { label: string; confidence: number } }>;
  /** The fused answer rests on the learned shapes alone (fusion.ts restsOnShapesAlone): the lone-answer rules apply. */
  lossOnly: boolean;
  /** The fused verdict's reliability indicators (classify/confidence.ts), when it named a CCA. */
  reliability: number[] | null;
}

/** One series object per entry, made once, so features are extracted once (features.ts caches by series). */
export class SeriesCache {
  private readonly m = new Map<GridEntry, BifSeries>();
  of(e: GridEntry): BifSeries {
    let s = this.m.get(e);
    if (!s) this.m.set(e, (s = { ...toSeries(e), transport: e.protocol }));
    return s;
  }
}

const measurementKey = (e: GridEntry) => `${e.conditionId}\t${e.origin}\t${e.rep}`;

export function judge(entries: GridEntry[], model: Model, cache: SeriesCache): Outcome[] {
  const groups = new Map<string, Array<{ e: GridEntry; v: Verdict }>>();
  for (const e of entries) {
    const v = classifyFlow(cache.of(e), model, { disturbance: process.env.CCB_IGNORE_DISTURBANCE ? null : e.disturbance ?? null });
    const k = measurementKey(e);
    groups.set(k, [...(groups.get(k) ?? []), { e, v }]);
  }
  return [...groups.values()].map((g) => {
    const e = g[0].e;
    const vs = g.map((x) => x.v);
    const fused = fuseProfiles(vs, { calibration: model.calibration });
    // The raw fused verdict's indicators, for fitting confidence models on held-out outcomes.
    const rawFused = model.calibration ? fuseProfiles(vs) : fused;
    return {
      conditionId: e.conditionId, axis: e.axis, value: e.value, origin: e.origin, protocol: e.protocol, truth: e.label, rep: e.rep,
      predicted: fused.label, confidence: fused.confidence, reason: fused.reason,
      lossOnly: fused.kind === 'cca' && restsOnShapesAlone(fused.label, vs),
      reliability: rawFused.kind === 'cca' ? reliabilityOf(rawFused) : null,
      perProfile: g.map((x) => ({ profile: x.e.profile, predicted: x.v.label, confidence: x.v.confidence, reliability: x.v.kind === 'cca' ? reliabilityOf(x.v) : null, ...(x.v.conditions?.shapeSaid ? { shapeSaid: x.v.conditions.shapeSaid } : {}) })),
    };
  });
}

/** Trains without each condition in turn and judges that condition's measurements. */
export interface BenchTrainOptions { pipeline?: PipelineConfig }

export function leaveOneConditionOut(entries: GridEntry[], cache: SeriesCache, opts: { only?: string[]; train?: (es: GridEntry[]) => Model } & BenchTrainOptions = {}): Outcome[] {
  const train = opts.train ?? ((es) => trainFromEntries(es, { source: 'leave-one-condition-out', seriesOf: (e) => cache.of(e as GridEntry), pipeline: opts.pipeline }));
  const out: Outcome[] = [];
  for (const id of [...new Set(entries.map((e) => e.conditionId))].sort()) {
    if (opts.only && !opts.only.includes(id)) continue;
    const model = train(entries.filter((e) => e.conditionId !== id));
    out.push(...judge(entries.filter((e) => e.conditionId === id), model, cache));
  }
  return out;
}

/** Trains without each controller (label) in turn and judges its measurements under every condition. */
export function holdOneControllerOut(entries: GridEntry[], cache: SeriesCache, opts: { train?: (es: GridEntry[]) => Model } & BenchTrainOptions = {}): Outcome[] {
  const train = opts.train ?? ((es) => trainFromEntries(es, { source: 'hold-one-out', seriesOf: (e) => cache.of(e as GridEntry), pipeline: opts.pipeline }));
  const out: Outcome[] = [];
  for (const label of [...new Set(entries.map((e) => e.label))].sort()) {
    const model = train(entries.filter((e) => e.label !== label));
    out.push(...judge(entries.filter((e) => e.label === label), model, cache));
  }
  return out;
}

export type Grade = 'right' | 'unknown' | 'wrong' | 'confident-wrong';

export function grade(o: Pick<Outcome, 'truth' | 'predicted' | 'confidence'>): Grade {
  if (NON_ANSWERS.has(o.predicted)) return 'unknown';
  if (o.predicted === o.truth) return 'right';
  return o.confidence >= CONFIDENT ? 'confident-wrong' : 'wrong';
}

export interface Tally { n: number; right: number; unknown: number; wrong: number; confidentWrong: number }

export function tally(os: Array<Pick<Outcome, 'truth' | 'predicted' | 'confidence'>>): Tally {
  const t: Tally = { n: 0, right: 0, unknown: 0, wrong: 0, confidentWrong: 0 };
  for (const o of os) {
    t.n++;
    const g = grade(o);
    if (g === 'right') t.right++;
    else if (g === 'unknown') t.unknown++;
    else {
      t.wrong++;
      if (g === 'confident-wrong') t.confidentWrong++;
    }
  }
  return t;
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');

export function tallyRow(name: string, t: Tally): string {
  return `| ${name} | ${t.n} | ${pct(t.right, t.n)} | ${pct(t.unknown, t.n)} | ${t.wrong} | ${t.confidentWrong} (${pct(t.confidentWrong, t.n)}) |`;
}

export const TALLY_HEAD = '| | measurements | right | Unknown | wrong | confident wrong |\n| --- | ---: | ---: | ---: | ---: | ---: |';

/** Rows grouped by a key, plus the overall row. */
export function tallyTable(os: Outcome[], key: (o: Outcome) => string, title: string): string {
  const keys = [...new Set(os.map(key))].sort();
  return [`| ${title} | measurements | right | Unknown | wrong | confident wrong |`, '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...keys.map((k) => tallyRow(k, tally(os.filter((o) => key(o) === k)))), tallyRow('**all**', tally(os))].join('\n');
}

/** Mean of the per-controller accuracies (each lab origin's label within its transport), and the lowest. */
export function perClassAccuracy(os: Outcome[], protocol: 'tcp' | 'quic'): { mean: number; lowest: { label: string; accuracy: number } | null; rows: Array<{ label: string; accuracy: number; n: number }> } {
  const mine = os.filter((o) => o.protocol === protocol);
  const labels = [...new Set(mine.map((o) => (protocol === 'quic' ? o.origin : o.truth)))].sort();
  const rows = labels.map((l) => {
    const t = tally(mine.filter((o) => (protocol === 'quic' ? o.origin : o.truth) === l));
    return { label: l, accuracy: t.n ? t.right / t.n : 0, n: t.n };
  });
  const mean = rows.length ? rows.reduce((a, r) => a + r.accuracy, 0) / rows.length : 0;
  const lowest = rows.length ? rows.reduce((a, r) => (r.accuracy < a.accuracy ? r : a)) : null;
  return { mean, lowest: lowest && { label: lowest.label, accuracy: lowest.accuracy }, rows };
}

/** Reliability table over answers that name a CCA: per confidence bin, mean confidence and accuracy; ECE. */
export function calibration(os: Outcome[], bins = 10): { ece: number; answered: number; rows: Array<{ from: number; to: number; n: number; meanConfidence: number; accuracy: number }> } {
  const answered = os.filter((o) => !NON_ANSWERS.has(o.predicted));
  const rows = Array.from({ length: bins }, (_, i) => ({ from: i / bins, to: (i + 1) / bins, n: 0, meanConfidence: 0, accuracy: 0 }));
  for (const o of answered) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(o.confidence * bins)));
    rows[i].n++;
    rows[i].meanConfidence += o.confidence;
    rows[i].accuracy += o.predicted === o.truth ? 1 : 0;
  }
  let ece = 0;
  for (const r of rows) {
    if (!r.n) continue;
    r.meanConfidence /= r.n;
    r.accuracy /= r.n;
    ece += (r.n / Math.max(1, answered.length)) * Math.abs(r.accuracy - r.meanConfidence);
  }
  return { ece, answered: answered.length, rows: rows.filter((r) => r.n > 0) };
}

/** Open set: a controller never trained on must come out Unknown or in its design family. */
export function openSetTable(os: Outcome[]): string {
  const lines = ['| held out (family) | measurements | Unknown | same family | wrong | confident wrong (as) |', '| --- | ---: | ---: | ---: | ---: | --- |'];
  let n = 0;
  let cw = 0;
  for (const label of [...new Set(os.map((o) => o.truth))].sort()) {
    const mine = os.filter((o) => o.truth === label);
    const c = { unknown: 0, 'same-family': 0, wrong: 0 };
    const as: string[] = [];
    let confident = 0;
    for (const o of mine) {
      const v = holdOutVerdict(o.truth, o.predicted);
      c[v]++;
      if (v === 'wrong' && o.confidence >= CONFIDENT) {
        confident++;
        as.push(o.predicted);
      }
    }
    n += mine.length;
    cw += confident;
    lines.push(`| ${label} (${designFamilyOf(label) ?? '-'}) | ${mine.length} | ${c.unknown} | ${c['same-family']} | ${c.wrong} | ${confident}${as.length ? ` (${[...new Set(as)].join(', ')})` : ''} |`);
  }
  lines.push(`| **all** | ${n} | | | | ${cw} (${pct(cw, n)}) |`);
  return lines.join('\n');
}

/**
 * The shipped model: trained on every grid condition, its confidence calibrated on how often
 * leave-one-condition-out verdicts of each raw confidence were right (calibration.ts).
 */
export function trainCalibrated(entries: GridEntry[], cache: SeriesCache, source: string, opts: BenchTrainOptions & { calibration?: CalibrationKind } = {}): { model: Model; loco: Outcome[] } {
  const loco = leaveOneConditionOut(entries, cache, opts);
  const model = trainFromEntries(entries, { source, seriesOf: (e) => cache.of(e as GridEntry), pipeline: opts.pipeline });
  model.calibration = calibrationsFrom(loco, `leave one condition out over ${source} (${loco.length} measurements)`, opts.calibration);
  return { model, loco };
}

const answers = (os: Array<{ predicted: string; confidence: number; truth: string }>) =>
  os.filter((o) => !NON_ANSWERS.has(o.predicted)).map((o) => ({ confidence: o.confidence, right: o.predicted === o.truth }));

type Scored = { truth: string; predicted: string; confidence: number; reliability: number[] | null };

/** Single-profile verdicts of the outcomes (every profile of every measurement). */
export const singleProfile = (os: Outcome[]): Scored[] => os.flatMap((o) => o.perProfile.map((p) => ({ truth: o.truth, predicted: p.predicted, confidence: p.confidence, reliability: p.reliability })));
const fusedOnes = (os: Outcome[]): Scored[] => os.filter((o) => o.perProfile.length > 1);

/** How verdicts' confidences are calibrated: the raw score through an isotonic map, or a logistic model over indicators first. */
export type CalibrationKind = 'isotonic' | 'logistic';

function fitKind(os: Scored[], kind: CalibrationKind, fittedOn: string): { map: ReturnType<typeof fitCalibration>; model?: ConfidenceModel } {
  const answered = os.filter((o) => !NON_ANSWERS.has(o.predicted) && o.reliability);
  if (kind === 'isotonic' || answered.length < 30) return { map: fitCalibration(answers(os), fittedOn) };
  const model = fitConfidenceModel(answered.map((o) => ({ x: o.reliability!, right: o.predicted === o.truth })), fittedOn);
  const map = fitCalibration(answered.map((o) => ({ confidence: confidenceOf(model, o.reliability!), right: o.predicted === o.truth })), fittedOn);
  return { map, model };
}

/** Both maps from held-out outcomes: fused from measurements of several profiles, single from every profile's own verdict. */
export function calibrationsFrom(os: Outcome[], fittedOn: string, kind: CalibrationKind = 'isotonic'): Calibrations {
  const f = fitKind(fusedOnes(os), kind, `${fittedOn}, fused`);
  const s = fitKind(singleProfile(os), kind, `${fittedOn}, single profile`);
  return { fused: f.map, single: s.map, ...(f.model ? { fusedModel: f.model } : {}), ...(s.model ? { singleModel: s.model } : {}), minAnswer: 0 };
}

/** A held-out verdict's calibrated confidence under calibrations fitted elsewhere. */
export function calibrated(c: Calibrations, o: Scored, fused: boolean): number {
  if (NON_ANSWERS.has(o.predicted)) return o.confidence;
  const [map, model] = fused ? [c.fused, c.fusedModel] : [c.single, c.singleModel];
  return calibrate(map, model && o.reliability ? confidenceOf(model, o.reliability) : o.confidence);
}

/** The verdict under an answer threshold: below it, Unknown (as fusion.ts does with calibration.minAnswer). */
export function withMinAnswer<T extends { predicted: string; confidence: number; reason: string; perProfile?: unknown[] }>(o: T, minAnswer: number, minAnswerSingle = minAnswer): T {
  const min = o.perProfile && o.perProfile.length === 1 ? minAnswerSingle : minAnswer;
  if (NON_ANSWERS.has(o.predicted) || o.confidence >= min) return o;
  return { ...o, predicted: 'Unknown', reason: `low confidence: ${o.predicted} at ${o.confidence.toFixed(2)}`, confidence: 0 };
}

/**
 * Honest calibration figures: each condition's verdicts calibrated by maps fitted on the other
 * conditions' held-out verdicts only (the maps never saw the condition they are scored on).
 */
export function calibratedLoco(loco: Outcome[], kind: CalibrationKind = 'isotonic'): Outcome[] {
  const out: Outcome[] = [];
  for (const id of [...new Set(loco.map((o) => o.conditionId))]) {
    const c = calibrationsFrom(loco.filter((o) => o.conditionId !== id), `all but ${id}`, kind);
    for (const o of loco.filter((x) => x.conditionId === id)) {
      const perProfile = o.perProfile.map((p) => ({ ...p, confidence: calibrated(c, { ...p, truth: o.truth }, false) }));
      // The lone-answer withholding and confidence fusion.ts applies once the model carries its
      // calibration (versionDoubt, noBackoffDoubt, uncutAimdDoubt and beyondTrainedDoubt need the
      // verdicts' evidence, which outcomes do not keep).
      const named = perProfile.map((p) => ({ label: p.predicted, confidence: p.confidence, ...(p.shapeSaid ? { shapeSaid: p.shapeSaid } : {}) }));
      const doubt = loneProfileDoubt(o.predicted, named, o.lossOnly);
      const lone = loneAnswerConfidence(o.predicted, named, o.lossOnly);
      out.push(doubt
        ? { ...o, predicted: 'Unknown', confidence: 0, reason: doubt, perProfile }
        : { ...o, confidence: Math.max(calibrated(c, o, o.perProfile.length > 1), lone ?? 0), perProfile });
    }
  }
  return out;
}

/** The default pipeline with its path corrections set from a flag ('fullRtt,invisiblePipe', 'none'). */
export function pipelineWithPath(flag: string | undefined): PipelineConfig {
  if (flag === undefined) return defaultPipelineConfig;
  const on = new Set(flag.split(','));
  return { ...defaultPipelineConfig, path: { fullRtt: on.has('fullRtt'), invisiblePipe: on.has('invisiblePipe') } };
}
