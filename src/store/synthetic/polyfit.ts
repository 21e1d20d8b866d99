/** Least-squares polynomial fit on x in [0, 1] (normal equations; degrees <= 3 are well conditioned there). */
export function fitPolynomial(ys: readonly number[], degree: number): { coefficients: number[]; mse: number } {
  const n = ys.length;
  const m = degree + 1;
  const a = Array.from({ length: m }, () => new Array<number>(m + 1).fill(0));
  for (let i = 0; i < n; i++) {
    const x = n === 1 ? 0 : i / (n - 1);
    const pw: number[] = [1];
    for (let k = 1; k < 2 * m; k++) pw.push(pw[k - 1] * x);
    for (let r = 0; r < m; r++) {
      for (let c = 0; c < m; c++) a[r][c] += pw[r + c];
      a[r][m] += pw[r] * ys[i];
    }
  }
  // Gaussian elimination with partial pivoting.
  for (let col = 0; col < m; col++) {
    let piv = col;
    for (let r = col + 1; r < m; r++) if (Math.abs(a[r][col]) > Math.abs(a[piv][col])) piv = r;
    [a[col], a[piv]] = [a[piv], a[col]];
    const d = a[col][col] || 1e-12;
    for (let r = 0; r < m; r++) {
      if (r === col) continue;
      const f = a[r][col] / d;
      for (let c = col; c <= m; c++) a[r][c] -= f * a[col][c];
    }
  }
  const coefficients = a.map((row, i) => row[m] / (row[i] || 1e-12));
  let se = 0;
  for (let i = 0; i < n; i++) {
    const x = n === 1 ? 0 : i / (n - 1);
    let y = 0;
    for (let k = m - 1; k >= 0; k--) y = y * x + coefficients[k];
    se += (y - ys[i]) ** 2;
  }
  return { coefficients, mse: n ? se / n : 0 };
}
