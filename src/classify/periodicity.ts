/**
 * Periodicity tools for the rate-based classifiers: a masked moving-average detrend,
 * a masked autocorrelation, peak picking within a lag window, and skewness (which tells
 * narrow probing pulses from a symmetric oscillation without needing phase lock).
 */

/** y minus its centred moving average over `window` samples, computed on valid points only. */
export function detrend(y: Float64Array, valid: Uint8Array, window: number): Float64Array {
  const n = y.length;
  const half = Math.max(1, Math.floor(window / 2));
  const cs = new Float64Array(n + 1);
  const cc = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    cs[i + 1] = cs[i] + (valid[i] ? y[i] : 0);
    cc[i + 1] = cc[i] + (valid[i] ? 1 : 0);
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (!valid[i]) continue;
    const a = Math.max(0, i - half);
    const b = Math.min(n, i + half + 1);
    const cnt = cc[b] - cc[a];
    out[i] = cnt > 0 ? y[i] - (cs[b] - cs[a]) / cnt : 0;
  }
  return out;
}

/**
 * Normalised autocorrelation for lags 0..maxLag over pairs where both points are valid and,
 * with `stretchOf`, lie in the same stretch (pairs across a boundary are skipped).
 */
export function autocorrelation(r: Float64Array, valid: Uint8Array, maxLag: number, stretchOf?: Int32Array): Float64Array {
  const n = r.length;
  const acf = new Float64Array(maxLag + 1);
  let m = 0;
  let cnt = 0;
  for (let i = 0; i < n; i++) if (valid[i]) {
    m += r[i];
    cnt++;
  }
  if (cnt < 2) return acf.fill(NaN);
  m /= cnt;
  let v = 0;
  for (let i = 0; i < n; i++) if (valid[i]) v += (r[i] - m) ** 2;
  v /= cnt;
  if (v <= 0) return acf.fill(NaN);
  for (let lag = 0; lag <= maxLag; lag++) {
    let s = 0;
    let c = 0;
    for (let i = 0; i + lag < n; i++) {
      if (!valid[i] || !valid[i + lag]) continue;
      if (stretchOf && stretchOf[i] !== stretchOf[i + lag]) continue;
      s += (r[i] - m) * (r[i + lag] - m);
      c++;
    }
    // Require a quarter of the points to overlap, else the estimate is noise.
    acf[lag] = c >= Math.max(8, cnt / 4) ? s / c / v : NaN;
  }
  return acf;
}

export interface PeriodPeak {
  lag: number;
  strength: number;
}

/**
 * The fundamental period: the first local maximum of the ACF in [minLag, maxLag] reaching
 * `relative` x the strongest one. WHY not simply the strongest: a periodic signal's ACF
 * peaks again at every multiple of its period, nearly as high.
 */
export function fundamentalPeak(acf: Float64Array, minLag: number, maxLag: number, relative = 0.85): PeriodPeak | null {
  const lo = Math.max(1, Math.floor(minLag));
  const hi = Math.min(acf.length - 2, Math.ceil(maxLag));
  const peaks: PeriodPeak[] = [];
  for (let k = lo; k <= hi; k++) {
    const v = acf[k];
    if (!Number.isFinite(v) || v <= 0) continue;
    if (v >= acf[k - 1] && v >= acf[k + 1]) peaks.push({ lag: k, strength: v });
  }
  if (peaks.length === 0) return null;
  const top = Math.max(...peaks.map((p) => p.strength));
  return peaks.find((p) => p.strength >= relative * top) ?? null;
}

/** Skewness of r over valid points: narrow upward pulses are strongly positive, a sine or triangle ~0. */
export function skewness(r: Float64Array, valid: Uint8Array): number {
  let n = 0;
  let m = 0;
  for (let i = 0; i < r.length; i++) if (valid[i]) {
    m += r[i];
    n++;
  }
  if (n < 3) return NaN;
  m /= n;
  let m2 = 0;
  let m3 = 0;
  for (let i = 0; i < r.length; i++) if (valid[i]) {
    const d = r[i] - m;
    m2 += d * d;
    m3 += d * d * d;
  }
  m2 /= n;
  m3 /= n;
  return m2 > 0 ? m3 / m2 ** 1.5 : 0;
}
