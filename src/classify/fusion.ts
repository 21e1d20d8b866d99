/**
 * Verdict fusion. Within a flow (Nebby's rule): a flow is CCA X when some of its segments
 * or flow-level claims say X and none says another known CCA; conflicting or absent
 * claims give 'Unknown'. Across network profiles of one measurement: agreeing CCA
 * verdicts reinforce each other, disagreeing ones give 'Unknown'.
 */
import { jsonNumber } from './json.js';
import { UNKNOWN, type Claim } from './types.js';
import { APP_LIMITED, SHORT_FLOW, shapeClusterOf, type Verdict, type VerdictKind } from './verdict.js';
import { AKAMAI } from './classifiers/akamai.js';

export interface FlowDecision {
  label: string;
  kind: VerdictKind;
  confidence: number;
  reason: string;
}

export function decideFromClaims(claims: Claim[]): FlowDecision {
  const known = claims.filter((c) => c.label !== UNKNOWN);
  const judgedSegments = claims.filter((c) => c.scope === 'segment').length;
  const labels = [...new Set(known.map((c) => c.label))].sort();
  if (labels.length === 0) {
    const why = judgedSegments > 0 ? `${judgedSegments} segment(s) judged, none matched a known CCA` : 'no usable segment and no rate-based signature';
    return { label: UNKNOWN, kind: 'unknown', confidence: 0, reason: why };
  }
  if (labels.length > 1) {
    const parts = labels.map((l) => `${l} (${known.filter((c) => c.label === l).length})`);
    return { label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `conflicting claims: ${parts.join(' vs ')}` };
  }
  const label = labels[0];
  const mine = known.filter((c) => c.label === label);
  const meanConf = mine.reduce((a, c) => a + c.confidence, 0) / mine.length;
  const segs = mine.filter((c) => c.scope === 'segment').length;
  // Segment support: all judged segments agreeing is stronger than one out of many.
  const support = judgedSegments > 0 && segs > 0 ? 0.5 + (0.5 * segs) / judgedSegments : 1;
  const sources = [...new Set(mine.map((c) => c.classifier))].join(', ');
  const detail = segs > 0 ? `${segs} of ${judgedSegments} judged segment(s) match` : mine.map((c) => c.note ?? '').join('; ');
  return { label, kind: 'cca', confidence: jsonNumber(meanConf * support) ?? 0, reason: `${sources}: ${detail}` };
}

const NON_ANSWER_PRIORITY: string[] = [UNKNOWN, APP_LIMITED, SHORT_FLOW];

/** Fuse the verdicts of one measurement under several network profiles into one answer. */
export function fuseProfiles(verdicts: Verdict[]): Verdict {
  const base = { schemaVersion: 1 as const, evidence: null, profiles: verdicts };
  if (verdicts.length === 0) {
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: 'no profile verdicts to fuse', shapeCluster: null };
  }
  const ccas = verdicts.filter((v) => v.kind === 'cca');
  const labels = [...new Set(ccas.map((v) => v.label))].sort();
  if (labels.length > 1) {
    const parts = verdicts.map((v, i) => `profile ${i + 1}: ${v.label}`);
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `profiles disagree (${parts.join(', ')})`, shapeCluster: null };
  }
  if (labels.length === 1) {
    const label = labels[0];
    const meanConf = ccas.reduce((a, v) => a + v.confidence, 0) / ccas.length;
    let confidence = meanConf * (0.5 + (0.5 * ccas.length) / verdicts.length);
    const notes: string[] = [];
    if (label === AKAMAI) {
      const check = akamaiLevelCheck(ccas);
      if (check) {
        notes.push(check.note);
        if (!check.independentOfBdp) confidence *= 0.5;
      }
    }
    const reason = `${ccas.length} of ${verdicts.length} profile(s) say ${label}; the others: ${
      verdicts.filter((v) => v.kind !== 'cca').map((v) => v.label).join(', ') || 'none'
    }`;
    const out: Verdict = { ...base, label, kind: 'cca', confidence: jsonNumber(confidence) ?? 0, reason, shapeCluster: shapeClusterOf(label) };
    if (notes.length) out.notes = notes;
    return out;
  }
  const present = new Set(verdicts.map((v) => v.label));
  const label = NON_ANSWER_PRIORITY.find((l) => present.has(l)) ?? UNKNOWN;
  const kind: VerdictKind = label === SHORT_FLOW ? 'short-flow' : label === APP_LIMITED ? 'application-limited' : 'unknown';
  return { ...base, label, kind, confidence: 0, reason: `no profile identified a CCA (${verdicts.map((v) => v.label).join(', ')})`, shapeCluster: null };
}

/**
 * AkamaiCC holds a level that ignores the BDP: across profiles with different RTTs the
 * level should stay put, where a BDP-tracking or fixed-rate sender's would scale with RTT.
 */
function akamaiLevelCheck(vs: Verdict[]): { independentOfBdp: boolean; note: string } | null {
  const pts = vs.map((v) => v.evidence).filter((e): e is NonNullable<typeof e> => e !== null && e.levelBytes !== null);
  if (pts.length < 2) return null;
  const [a, b] = [pts[0], pts[pts.length - 1]];
  const rttRatio = b.rttSeconds / a.rttSeconds;
  if (Math.abs(Math.log(rttRatio)) < 0.1) return null; // profiles too alike to tell
  const levelRatio = (b.levelBytes ?? 0) / (a.levelBytes ?? 1);
  const independentOfBdp = Math.abs(Math.log(levelRatio)) < Math.abs(Math.log(rttRatio)) / 2;
  return {
    independentOfBdp,
    note: `level ratio ${levelRatio.toFixed(2)} for RTT ratio ${rttRatio.toFixed(2)}: ${independentOfBdp ? 'level ignores the BDP, as AkamaiCC does' : 'level tracks the RTT, unlike AkamaiCC'}`,
  };
}
