/**
 * From the classifier's Verdict (src/classify/verdict.ts) to a verdicts.json record.
 * The input is typed structurally (the fields this file reads), so the results schema does not
 * depend on the classifier's internals; tests/unit/store/fromClassifier.test.ts checks that
 * the classifier's real Verdict type still fits.
 *
 * What it adds: `periods` with marks to draw (the classifier reports a period and strength,
 * not where the bumps are, so ProbeBW bumps are placed at the local maxima of the smoothed
 * curve spaced about one period apart), and each segment's BiF range (the fit is normalised).
 */
import type { Evidence, PeriodRecord, SegmentRecord, VerdictKind, VerdictRecord } from './schema.js';

type JsonLike = null | boolean | number | string | JsonLike[] | { [k: string]: JsonLike };

export interface ClassifierVerdictLike {
  label: string;
  kind: 'cca' | 'short-flow' | 'application-limited' | 'unknown';
  confidence: number;
  reason: string;
  shapeCluster: 'linear' | 'quadratic' | 'cubic' | null;
  evidence: {
    rttSeconds: number;
    slowStartEndSeconds: number | null;
    smoothed: { t0: number; dt: number; bif: number[] };
    backoffs: Array<{ tPeak: number; tTrough: number; depth: number }>;
    segments: Array<{
      index: number;
      tStart: number;
      tEnd: number;
      usable: boolean;
      dropReason?: string;
      polynomial?: { degree: number; coefficients: number[]; mse: number };
      match?: string;
    }>;
    claims: Array<{ label: string; confidence: number }>;
    classifiers: Record<string, { [k: string]: JsonLike }>;
    lossPosterior: Record<string, number> | null;
  } | null;
}

const num = (x: JsonLike | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** Local maxima of y, at least minGap samples apart, keeping the higher of close ones. */
export function spacedPeaks(y: readonly number[], minGap: number): number[] {
  const cand: number[] = [];
  for (let i = 1; i < y.length - 1; i++) if (y[i] >= y[i - 1] && y[i] > y[i + 1]) cand.push(i);
  cand.sort((a, b) => y[b] - y[a]);
  const kept: number[] = [];
  for (const i of cand) if (kept.every((k) => Math.abs(k - i) >= minGap)) kept.push(i);
  return kept.sort((a, b) => a - b);
}

function periodsOf(ev: NonNullable<ClassifierVerdictLike['evidence']>): PeriodRecord[] {
  const out: PeriodRecord[] = [];
  const rtt = ev.rttSeconds;
  const { t0, dt, bif } = ev.smoothed;
  const bbr = ev.classifiers['bbr'];
  if (bbr) {
    const rtts = num(bbr['probeBwPeriodRtts']);
    if (rtts !== null && rtt > 0 && dt > 0) {
      const period = rtts * rtt;
      const after = ev.slowStartEndSeconds ?? t0;
      const peaks = spacedPeaks(bif, Math.max(1, Math.round((0.7 * period) / dt)));
      const strength = num(bbr['probeBwStrength']);
      out.push({
        kind: 'probe-bw',
        periodSeconds: period,
        periodRtts: rtts,
        ...(strength !== null ? { strength: Math.min(1, Math.max(0, strength)) } : {}),
        marks: peaks.map((i) => t0 + i * dt).filter((t) => t >= after),
      });
    }
    const dips = Array.isArray(bbr['dips']) ? bbr['dips'] : [];
    const rttPeriod = num(bbr['probeRttPeriodSeconds']);
    const marks = dips.map((d) => (d && typeof d === 'object' && !Array.isArray(d) ? num(d['tStart']) : null)).filter((t): t is number => t !== null);
    if (rttPeriod !== null && rttPeriod > 0) out.push({ kind: 'probe-rtt', periodSeconds: rttPeriod, marks });
  }
  const akamai = ev.classifiers['akamai'];
  if (akamai && akamai['decision']) {
    const iv = Array.isArray(akamai['backoffIntervalsSeconds']) ? akamai['backoffIntervalsSeconds'].map(num).filter((x): x is number => x !== null) : [];
    const mean = iv.length ? iv.reduce((a, b) => a + b, 0) / iv.length : 0;
    if (mean > 0) out.push({ kind: 'backoff-cycle', periodSeconds: mean, marks: ev.backoffs.map((b) => b.tPeak) });
  }
  const copa = ev.classifiers['copa'];
  if (copa && copa['decision']) {
    const rtts = num(copa['periodRtts']);
    if (rtts !== null && rtt > 0) out.push({ kind: 'oscillation', periodSeconds: rtts * rtt, periodRtts: rtts, marks: [] });
  }
  return out;
}

function segmentRange(ev: NonNullable<ClassifierVerdictLike['evidence']>, tStart: number, tEnd: number): { bifMin?: number; bifMax?: number } {
  const { t0, dt, bif } = ev.smoothed;
  if (dt <= 0) return {};
  let lo = Infinity;
  let hi = -Infinity;
  const a = Math.max(0, Math.floor((tStart - t0) / dt));
  const b = Math.min(bif.length - 1, Math.ceil((tEnd - t0) / dt));
  for (let i = a; i <= b; i++) {
    lo = Math.min(lo, bif[i]);
    hi = Math.max(hi, bif[i]);
  }
  return Number.isFinite(lo) ? { bifMin: lo, bifMax: hi } : {};
}

/** A verdicts.json record for one flow from the classifier's (fused or single) verdict. */
export function verdictRecordFromClassifier(flowId: string, v: ClassifierVerdictLike, kindOverride?: VerdictKind): VerdictRecord {
  const ev = v.evidence;
  let evidence: Evidence | null = null;
  let posterior: Record<string, number> = {};
  if (ev) {
    const segments: SegmentRecord[] = ev.segments.map((s) => ({
      index: s.index,
      tStart: s.tStart,
      tEnd: s.tEnd,
      usable: s.usable,
      ...(s.dropReason ? { dropReason: s.dropReason } : {}),
      ...(s.polynomial ? { polynomial: { degree: s.polynomial.degree, coefficients: s.polynomial.coefficients, mse: s.polynomial.mse } } : {}),
      ...segmentRange(ev, s.tStart, s.tEnd),
      ...(s.match ? { match: s.match } : {}),
    }));
    evidence = {
      rttSeconds: ev.rttSeconds,
      smoothed: ev.smoothed,
      segments,
      periods: periodsOf(ev),
      backoffs: ev.backoffs,
      slowStartEndSeconds: ev.slowStartEndSeconds,
    };
    if (ev.lossPosterior) posterior = { ...ev.lossPosterior };
    // Rule-based classifiers have no posterior: their claim confidence is the best we have.
    for (const c of ev.claims) if (!(c.label in posterior)) posterior[c.label] = Math.max(0, Math.min(1, c.confidence));
  }
  return {
    flowId,
    label: v.label,
    kind: kindOverride ?? v.kind,
    confidence: v.confidence,
    reason: v.reason,
    posterior,
    shapeCluster: v.shapeCluster,
    evidence,
  };
}
