/**
 * Stage 3a: a segment's shape. Normalise BiF to [0, 1], resample to a fixed number of
 * points on x in [0, 1], fit degrees 1..3 and keep the one with the lowest penalised error
 *   score = MSE + lambda * degree * sum_k>=1 |c_k|
 * (a Lasso-like penalty: higher degrees over-fit easily, so they must earn their keep).
 * The constant term is left out of the penalty: it encodes where the curve starts, not
 * how complex it is. x in [0, 1] (not sample index) keeps coefficients comparable across
 * segment lengths, so lambda is on a different scale than the thesis's 0.7.
 */
import { polyfit, type PolyFit } from './polyfit.js';

export interface ShapeFit extends PolyFit {
  score: number;
  /** Every degree tried, for the report. */
  candidates: Array<PolyFit & { score: number }>;
}

/** Min-max normalise y[iStart..iEnd] and resample it linearly to `points` values. */
export function normaliseSegment(y: ArrayLike<number>, iStart: number, iEnd: number, points: number): Float64Array {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = iStart; i <= iEnd; i++) {
    lo = Math.min(lo, y[i]);
    hi = Math.max(hi, y[i]);
  }
  const span = hi - lo;
  const out = new Float64Array(points);
  const len = iEnd - iStart;
  for (let p = 0; p < points; p++) {
    const pos = iStart + (points === 1 ? 0 : (p * len) / (points - 1));
    const a = Math.floor(pos);
    const b = Math.min(a + 1, iEnd);
    const v = y[a] + (y[b] - y[a]) * (pos - a);
    out[p] = span > 0 ? (v - lo) / span : 0;
  }
  return out;
}

export function unitGrid(points: number): Float64Array {
  const xs = new Float64Array(points);
  for (let p = 0; p < points; p++) xs[p] = points === 1 ? 0 : p / (points - 1);
  return xs;
}

export function penaltyScore(fit: PolyFit, lambda: number): number {
  let l1 = 0;
  for (let k = 1; k < fit.coefficients.length; k++) l1 += Math.abs(fit.coefficients[k]);
  return fit.mse + lambda * fit.degree * l1;
}

export function fitBestPolynomial(ys: Float64Array, lambda: number, maxDegree = 3): ShapeFit {
  const xs = unitGrid(ys.length);
  const candidates: Array<PolyFit & { score: number }> = [];
  for (let d = 1; d <= maxDegree; d++) {
    const f = polyfit(xs, ys, d);
    candidates.push({ ...f, score: penaltyScore(f, lambda) });
  }
  let best = candidates[0];
  for (const c of candidates) if (c.score < best.score) best = c;
  return { ...best, candidates };
}
