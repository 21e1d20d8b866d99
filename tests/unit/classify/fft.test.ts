import { describe, expect, it } from 'vitest';
import { fft } from '../../../src/classify/fft.js';
import { lowPass } from '../../../src/classify/lowpass.js';
import { createRng } from '../../../src/classify/prng.js';

function naiveDft(x: number[]): { re: number[]; im: number[] } {
  const n = x.length;
  const re: number[] = [];
  const im: number[] = [];
  for (let k = 0; k < n; k++) {
    let r = 0;
    let i = 0;
    for (let t = 0; t < n; t++) {
      r += x[t] * Math.cos((2 * Math.PI * k * t) / n);
      i -= x[t] * Math.sin((2 * Math.PI * k * t) / n);
    }
    re.push(r);
    im.push(i);
  }
  return { re, im };
}

/** Amplitude of the sinusoid at frequency f in y (least-squares projection). */
function amplitudeAt(y: Float64Array, dt: number, f: number, from: number, to: number): number {
  let c = 0;
  let s = 0;
  for (let i = from; i < to; i++) {
    c += y[i] * Math.cos(2 * Math.PI * f * i * dt);
    s += y[i] * Math.sin(2 * Math.PI * f * i * dt);
  }
  return (2 * Math.hypot(c, s)) / (to - from);
}

describe('fft', () => {
  it('matches a naive DFT on random data', () => {
    const rng = createRng(7);
    const x = Array.from({ length: 64 }, () => rng.normal());
    const re = Float64Array.from(x);
    const im = new Float64Array(64);
    fft(re, im);
    const ref = naiveDft(x);
    for (let k = 0; k < 64; k++) {
      expect(re[k]).toBeCloseTo(ref.re[k], 9);
      expect(im[k]).toBeCloseTo(ref.im[k], 9);
    }
  });

  it('inverts: ifft(fft(x)) / n == x', () => {
    const rng = createRng(8);
    const x = Float64Array.from({ length: 128 }, () => rng.normal());
    const re = Float64Array.from(x);
    const im = new Float64Array(128);
    fft(re, im);
    fft(re, im, true);
    for (let i = 0; i < 128; i++) expect(re[i] / 128).toBeCloseTo(x[i], 12);
  });

  it('rejects lengths that are not powers of two', () => {
    expect(() => fft(new Float64Array(12), new Float64Array(12))).toThrow(/power of two/);
  });
});

describe('lowPass at 1/RTT', () => {
  const rtt = 0.2;
  const dt = rtt / 8;
  const n = 1024;
  const slow = 0.25; // Hz: one cycle every 20 RTTs, a CCA-scale oscillation
  const fast = 3 / rtt; // Hz: three cycles per RTT, network noise
  const y = Float64Array.from({ length: n }, (_, i) => 10 + 3 * Math.sin(2 * Math.PI * slow * i * dt) + 2 * Math.sin(2 * Math.PI * fast * i * dt));
  const out = lowPass(y, dt, { cutoffHz: 1 / rtt, taperStart: 0.6 });

  it('removes the component above the cut-off', () => {
    expect(amplitudeAt(y, dt, fast, 100, 900)).toBeGreaterThan(1.9);
    expect(amplitudeAt(out, dt, fast, 100, 900)).toBeLessThan(0.02);
  });

  it('keeps the component below the cut-off and the mean', () => {
    expect(amplitudeAt(out, dt, slow, 100, 900)).toBeCloseTo(3, 1);
    const mean = (a: Float64Array): number => a.reduce((p, q) => p + q, 0) / a.length;
    expect(mean(out)).toBeCloseTo(mean(y), 2);
  });

  it('does not smear the end of the series into its start (mirrored extension)', () => {
    const ramp = Float64Array.from({ length: 256 }, (_, i) => i);
    const r = lowPass(ramp, dt, { cutoffHz: 1 / rtt, taperStart: 0.6 });
    expect(Math.abs(r[0] - 0)).toBeLessThan(3);
    expect(Math.abs(r[255] - 255)).toBeLessThan(3);
  });
});
