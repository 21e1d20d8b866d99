/**
 * Confidence that means probability, from more than the raw score (issue 16). The isotonic map
 * (calibration.ts) orders verdicts by their raw confidence only; but whether a verdict is right on
 * conditions the model never saw depends also on whether its profiles agreed, how deep inside its
 * class the flow lay, whether the answer rests on QUIC's few packets, on a rule alone, near the
 * edge of the trained conditions, or on few back-offs. A logistic model over these indicators,
 * fitted on leave-one-condition-out verdicts, gives P(right); its output is then isotonic-calibrated
 * (so the reliability table stays monotone and honest).
 */
import { z } from 'zod';
import type { Verdict } from './verdict.js';

export const RELIABILITY_NAMES = [
  'logitRaw', 'agreeingShare', 'judgedShare', 'quic', 'ruleOnly', 'gateRatio', 'envelopeDistance', 'logBackoffs',
] as const;

export const confidenceModelSchema = z.object({
  names: z.array(z.string()),
  weights: z.array(z.number()),
  bias: z.number(),
  /** Feature means and SDs the weights apply to (standardised inputs). */
  mean: z.array(z.number()),
  sd: z.array(z.number()),
  fittedOn: z.string(),
});
export type ConfidenceModel = z.infer<typeof confidenceModelSchema>;

const clampLogit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};

/** The profiles a (fused or single) verdict stands on. */
const profilesOf = (v: Verdict): Verdict[] => (v.profiles && v.profiles.length ? v.profiles : [v]);

/** The indicators of a verdict that names a CCA (RELIABILITY_NAMES order). */
export function reliabilityOf(v: Verdict): number[] {
  const ps = profilesOf(v);
  const judged = ps.filter((p) => !p.conditions || (p.conditions.inside && p.conditions.disturbed === null));
  const agreeing = ps.filter((p) => p.label === v.label).length;
  const lossClaims = judged.flatMap((p) => (p.evidence?.claims ?? []).filter((c) => c.classifier === 'loss-based' && c.scope === 'flow' && c.label === v.label));
  const gate = lossClaims.length ? Math.max(...lossClaims.map((c) => (Number.isFinite(c.gateRatio) ? (c.gateRatio as number) : 1))) : 1;
  // A profile inside the trained conditions reads at most 1: the BDP axis admits more since session
  // 58 (envelope.ts VERDICT_INSIDE_SCALES), and no calibration saw an inside profile further out.
  const envelope = Math.max(0, ...ps.map((p) => (p.conditions?.inside ? Math.min(p.conditions.distance ?? 0, 1) : p.conditions?.distance ?? 0)));
  const backoffs = judged.length ? judged.reduce((a, p) => a + (p.evidence?.backoffs.length ?? 0), 0) / judged.length : 0;
  const quic = ps.some((p) => p.conditions?.measured?.transport === 'quic') ? 1 : 0;
  return [
    clampLogit(v.confidence),
    agreeing / ps.length,
    judged.length / ps.length,
    quic,
    lossClaims.length ? 0 : 1,
    Math.min(gate, 2),
    Math.min(envelope, 2),
    Math.log1p(backoffs),
  ];
}

/** L2-regularised logistic regression by Newton's method on standardised inputs. */
export function fitConfidenceModel(points: Array<{ x: number[]; right: boolean }>, fittedOn: string, l2 = 1): ConfidenceModel {
  const d = RELIABILITY_NAMES.length;
  const n = points.length;
  const mean = Array.from({ length: d }, (_, j) => (n ? points.reduce((a, p) => a + p.x[j], 0) / n : 0));
  const sd = Array.from({ length: d }, (_, j) => {
    const v = n > 1 ? points.reduce((a, p) => a + (p.x[j] - mean[j]) ** 2, 0) / (n - 1) : 0;
    return Math.sqrt(v) || 1;
  });
  const xs = points.map((p) => [1, ...p.x.map((v, j) => (v - mean[j]) / sd[j])]);
  const ys = points.map((p) => (p.right ? 1 : 0));
  let w = new Array(d + 1).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Array(d + 1).fill(0);
    const h = Array.from({ length: d + 1 }, () => new Array(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const z = xs[i].reduce((a, x, j) => a + x * w[j], 0);
      const p = 1 / (1 + Math.exp(-z));
      for (let j = 0; j <= d; j++) {
        g[j] += (p - ys[i]) * xs[i][j];
        for (let k = 0; k <= d; k++) h[j][k] += p * (1 - p) * xs[i][j] * xs[i][k];
      }
    }
    // The bias is not shrunk.
    for (let j = 1; j <= d; j++) {
      g[j] += l2 * w[j];
      h[j][j] += l2;
    }
    h[0][0] += 1e-9;
    const step = solve(h, g);
    w = w.map((x, j) => x - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { names: [...RELIABILITY_NAMES], weights: w.slice(1), bias: w[0], mean, sd, fittedOn };
}

export function confidenceOf(m: ConfidenceModel, x: readonly number[]): number {
  let z = m.bias;
  for (let j = 0; j < m.weights.length; j++) z += (m.weights[j] * (x[j] - m.mean[j])) / m.sd[j];
  return 1 / (1 + Math.exp(-z));
}

/** Gaussian elimination with partial pivoting (small dense systems). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    const piv = m[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / piv;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / (m[i][i] || 1e-12));
}
