/**
 * Small descriptive statistics over plain or typed arrays, for the whole project (the
 * classifier, measurement reports, benchmarks). Pure; inputs are never mutated.
 */

export function mean(xs: ArrayLike<number>): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s / xs.length;
}

export function variance(xs: ArrayLike<number>): number {
  if (xs.length === 0) return NaN;
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i] - m) ** 2;
  return s / xs.length;
}

/** Linear-interpolated quantile (q in [0,1], clamped); NaN when empty. */
export function quantile(xs: ArrayLike<number>, q: number): number {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  const pos = Math.min(Math.max(q, 0), 1) * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, s.length - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export function median(xs: ArrayLike<number>): number {
  return quantile(xs, 0.5);
}

/** Values of `ys` at indices where `keep(i)` holds. */
export function pick(ys: ArrayLike<number>, keep: (i: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < ys.length; i++) if (keep(i)) out.push(ys[i]);
  return out;
}
