/**
 * Irregular BiF samples -> a uniform grid. BiF is a state that holds between packets, so
 * each grid value is the time-weighted mean of that step function over the grid cell
 * (a box anti-aliasing filter), not a point sample that would fold packet-level noise
 * into low frequencies.
 */
import { nextPowerOfTwo } from './fft.js';

export interface UniformGrid {
  /** Time of grid point 0 (s), the first sample's time. */
  t0: number;
  /** Grid step (s). */
  dt: number;
  /** Values on the grid. */
  y: Float64Array;
  /** 1 where the sender was flagged application-limited for most of the cell. */
  appLimited: Uint8Array;
  /** Seconds since the last real sample at each grid point (0 when a sample falls in the cell). */
  gap: Float64Array;
}

export interface GridChoice {
  n: number;
  dt: number;
}

/**
 * Pick the grid: at least `pointsPerRtt` points per RTT so the 1/RTT cut-off sits far below
 * Nyquist, and n a power of two so the mirrored series (2n) feeds the radix-2 FFT directly.
 */
export function chooseGrid(durationS: number, rttS: number, pointsPerRtt: number, maxPoints: number): GridChoice {
  if (!(durationS > 0)) return { n: 1, dt: rttS / pointsPerRtt };
  const wanted = Math.ceil(durationS / (rttS / pointsPerRtt)) + 1;
  const n = Math.max(2, Math.min(nextPowerOfTwo(wanted), maxPoints));
  return { n, dt: durationS / (n - 1) };
}

export function resampleUniform(
  t: Float64Array,
  v: Float64Array,
  appLimited: Uint8Array | undefined,
  grid: GridChoice,
): UniformGrid {
  const m = t.length;
  const { n, dt } = grid;
  const t0 = t[0];
  const tEnd = t[m - 1];
  const y = new Float64Array(n);
  const al = new Uint8Array(n);
  const gap = new Float64Array(n);
  let k = 0; // last sample index with t[k] <= current position
  for (let i = 0; i < n; i++) {
    const g = t0 + i * dt;
    const a = Math.max(t0, g - dt / 2);
    const b = Math.min(tEnd, g + dt / 2);
    while (k + 1 < m && t[k + 1] <= a) k++;
    if (b <= a) {
      // Degenerate cell (the very end): take the step value.
      y[i] = v[k];
      al[i] = appLimited ? appLimited[k] : 0;
      gap[i] = g - t[k];
      continue;
    }
    let acc = 0;
    let accAl = 0;
    let j = k;
    let pos = a;
    let sawSample = t[j] >= a && t[j] <= b;
    while (pos < b) {
      const segEnd = j + 1 < m ? Math.min(t[j + 1], b) : b;
      const w = segEnd - pos;
      acc += v[j] * w;
      if (appLimited && appLimited[j]) accAl += w;
      pos = segEnd;
      if (j + 1 < m && t[j + 1] <= b) {
        j++;
        sawSample = true;
      } else break;
    }
    y[i] = acc / (b - a);
    al[i] = accAl / (b - a) >= 0.5 ? 1 : 0;
    gap[i] = sawSample ? 0 : g - t[k];
  }
  return { t0, dt, y, appLimited: al, gap };
}
