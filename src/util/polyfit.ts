/**
 * Least-squares polynomial fit (numpy.polyfit's job) via the normal equations, solved with
 * partial-pivot Gaussian elimination. Degrees here are <= 3 on x in [0, 1], where the
 * normal matrix is well conditioned enough for doubles.
 */

export interface PolyFit {
  degree: number;
  /** coefficients[k] multiplies x^k (ascending order). */
  coefficients: number[];
  /** Mean squared residual. */
  mse: number;
}

export function evalPoly(coefficients: readonly number[], x: number): number {
  let v = 0;
  for (let k = coefficients.length - 1; k >= 0; k--) v = v * x + coefficients[k];
  return v;
}

/** Solve A x = b in place (A is n x n, row-major arrays). Returns null when singular. */
export function solveLinear(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    if (Math.abs(a[pivot][col]) < 1e-14) return null;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    [b[col], b[pivot]] = [b[pivot], b[col]];
    for (let r = col + 1; r < n; r++) {
      const f = a[r][col] / a[col][col];
      for (let c = col; c < n; c++) a[r][c] -= f * a[col][c];
      b[r] -= f * b[col];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r];
    for (let c = r + 1; c < n; c++) s -= a[r][c] * x[c];
    x[r] = s / a[r][r];
  }
  return x;
}

export function polyfit(xs: ArrayLike<number>, ys: ArrayLike<number>, degree: number): PolyFit {
  const m = degree + 1;
  if (xs.length !== ys.length) throw new Error('polyfit: x and y lengths differ');
  if (xs.length < m) throw new Error(`polyfit: ${xs.length} points cannot fit degree ${degree}`);
  // Power sums S_k = sum x^k and T_k = sum y x^k build the normal equations.
  const s = new Array<number>(2 * degree + 1).fill(0);
  const tv = new Array<number>(m).fill(0);
  for (let i = 0; i < xs.length; i++) {
    let p = 1;
    for (let k = 0; k <= 2 * degree; k++) {
      s[k] += p;
      if (k < m) tv[k] += ys[i] * p;
      p *= xs[i];
    }
  }
  const a: number[][] = [];
  for (let r = 0; r < m; r++) {
    const row: number[] = [];
    for (let c = 0; c < m; c++) row.push(s[r + c]);
    a.push(row);
  }
  const coefficients = solveLinear(a, tv.slice()) ?? new Array<number>(m).fill(0);
  let sse = 0;
  for (let i = 0; i < xs.length; i++) sse += (ys[i] - evalPoly(coefficients, xs[i])) ** 2;
  return { degree, coefficients, mse: sse / xs.length };
}
