/**
 * FFT low-pass filter (Nebby step 1): variations faster than one RTT are network noise
 * (ACK compression, cross traffic), not the CCA, so every component above 1/RTT is removed.
 */
import { fft, isPowerOfTwo } from './fft.js';

export interface LowPassOptions {
  /** Cut-off frequency (Hz); nothing above it survives. */
  cutoffHz: number;
  /**
   * Fraction of the cut-off where a raised-cosine roll-off starts (1 = brick wall).
   * WHY: a brick wall rings (Gibbs) around sharp back-offs, and the ringing would look
   * like small bumps and drops to the later stages.
   */
  taperStart: number;
}

/** Low-pass a uniformly sampled series of power-of-two length n. */
export function lowPass(y: Float64Array, dt: number, opts: LowPassOptions): Float64Array {
  const n = y.length;
  if (n < 2) return Float64Array.from(y);
  if (!isPowerOfTwo(n)) throw new Error(`lowPass: length ${n} must be a power of two`);
  // Mirror the series (even extension): its periodic continuation has no jump at the
  // ends, so the FFT's implied wrap-around does not smear the last value into the first.
  const len = 2 * n;
  const re = new Float64Array(len);
  const im = new Float64Array(len);
  for (let i = 0; i < n; i++) {
    re[i] = y[i];
    re[len - 1 - i] = y[i];
  }
  fft(re, im);
  const fc = opts.cutoffHz;
  const f0 = fc * Math.min(Math.max(opts.taperStart, 0), 1);
  const df = 1 / (len * dt);
  for (let k = 0; k < len; k++) {
    const f = Math.min(k, len - k) * df;
    let gain: number;
    if (f <= f0) gain = 1;
    else if (f >= fc) gain = 0;
    else gain = 0.5 * (1 + Math.cos((Math.PI * (f - f0)) / (fc - f0)));
    re[k] *= gain;
    im[k] *= gain;
  }
  fft(re, im, true);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = re[i] / len;
  return out;
}
