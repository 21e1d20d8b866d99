/**
 * Seeded synthetic BiF series for the classifier tests: the known CCA shapes (shared with
 * the provisional model's training set, in src/classify/synthetic) plus shapes that belong
 * to no class. Tests use seeds >= 1000 so they never score the model on its training data.
 */
import type { BifSeries } from '../../../src/trace/types.js';
import { buildSeries, renoSeries, withPath, type PathOptions } from '../../../src/classify/synthetic/index.js';
import { createRng } from '../../../src/classify/prng.js';

export {
  renoSeries,
  cubicSeries,
  bbrV1Series,
  bbrV2Series,
  akamaiSeries,
  copaSeries,
} from '../../../src/classify/synthetic/index.js';

const BDP = (p: PathOptions): number => p.capacityBps * p.baseRttS;

/** White noise around 1.5 BDP: independent samples, relative std-dev `sigma`. */
export function whiteNoiseSeries(opts: Partial<PathOptions> & { sigma?: number } = {}): BifSeries {
  const p = withPath({ durationS: 40, ...opts });
  const rng = createRng(p.seed ^ 0xabcdef);
  const level = 1.5 * BDP(p);
  const sigma = opts.sigma ?? 0.5;
  return buildSeries({ ...p, noise: 0 }, () => Math.max(0, level * (1 + sigma * rng.normal())), p.baseRttS * 1.5);
}

/** A square wave between `low` and 1 (x 2 BDP) with the given period: no CCA looks like this. */
export function squareWaveSeries(opts: Partial<PathOptions> & { periodS?: number; low?: number } = {}): BifSeries {
  const p = withPath({ durationS: 40, ...opts });
  const period = opts.periodS ?? 3;
  const low = opts.low ?? 0.5;
  const hi = 2 * BDP(p);
  return buildSeries(p, (t) => ((t % period) < period / 2 ? hi : low * hi), p.baseRttS * 1.5);
}

/** A sine of arbitrary period around 1.5 BDP with relative amplitude `amp`. */
export function sineSeries(opts: Partial<PathOptions> & { periodS?: number; amp?: number } = {}): BifSeries {
  const p = withPath({ durationS: 40, ...opts });
  const period = opts.periodS ?? 2.3;
  const amp = opts.amp ?? 0.4;
  const level = 1.5 * BDP(p);
  return buildSeries(p, (t) => level * (1 + amp * Math.sin((2 * Math.PI * t) / period)), p.baseRttS * 1.5);
}

/** A Reno flow cut after `durationS` seconds (default 1 s). */
export function shortFlowSeries(opts: Partial<PathOptions> = {}): BifSeries {
  return renoSeries({ durationS: 1, ...opts });
}

/**
 * A video-like flow: short bursts at ~2 BDP, then long application-limited pauses
 * (flagged), so most of its time the sender had nothing to send.
 */
export function appLimitedSeries(opts: Partial<PathOptions> & { onS?: number; offS?: number } = {}): BifSeries {
  const p = withPath({ durationS: 40, ...opts });
  const on = opts.onS ?? 2;
  const off = opts.offS ?? 6;
  const inBurst = (t: number): boolean => t % (on + off) < on;
  const level = 2 * BDP(p);
  return buildSeries(p, (t) => (inBurst(t) ? level : 0.1 * level), p.baseRttS * 1.5, (t) => !inBurst(t));
}
