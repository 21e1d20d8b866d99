/**
 * Input gates run before the pipeline: bad series become a labelled 'Unknown' verdict
 * (never a crash), series too short to judge become 'Short flow'. Training skips both.
 */
import type { BifSeries } from '../trace/types.js';
import type { PipelineConfig } from './config.js';

/** A description of what is wrong with the series, or null when it is usable. */
export function seriesProblem(s: BifSeries): string | null {
  if (!(s.t instanceof Float64Array) || !(s.bif instanceof Float64Array)) return 't and bif must be Float64Arrays';
  if (s.t.length !== s.bif.length) return `t has ${s.t.length} samples but bif has ${s.bif.length}`;
  if (s.appLimited && s.appLimited.length !== s.t.length) return `appLimited has ${s.appLimited.length} samples, expected ${s.t.length}`;
  if (s.t.length < 2) return `only ${s.t.length} sample(s)`;
  if (!Number.isFinite(s.rttSeconds) || s.rttSeconds <= 0) return `rttSeconds must be a positive number, got ${s.rttSeconds}`;
  for (let i = 0; i < s.t.length; i++) {
    if (!Number.isFinite(s.t[i]) || !Number.isFinite(s.bif[i])) return `non-finite value at sample ${i}`;
    if (s.bif[i] < 0) return `negative bytes in flight at sample ${i}`;
    if (i > 0 && s.t[i] < s.t[i - 1]) return `time goes backwards at sample ${i}`;
  }
  return null;
}

/** Why a valid flow is too short to judge, or null. */
export function shortness(series: BifSeries, cfg: PipelineConfig['shortFlow']): string | null {
  const n = series.t.length;
  const duration = series.t[n - 1] - series.t[0];
  if (n < cfg.minSamples) return `${n} samples < ${cfg.minSamples}`;
  if (duration < cfg.minSeconds) return `${duration.toFixed(2)} s < ${cfg.minSeconds} s`;
  if (duration < cfg.minRtts * series.rttSeconds) return `${(duration / series.rttSeconds).toFixed(1)} RTTs < ${cfg.minRtts}`;
  return null;
}

export type SeriesGate = { kind: 'invalid' | 'short'; reason: string };

export function seriesGate(series: BifSeries, cfg: PipelineConfig): SeriesGate | null {
  const problem = seriesProblem(series);
  if (problem) return { kind: 'invalid', reason: `invalid series: ${problem}` };
  const short = shortness(series, cfg.shortFlow);
  if (short) return { kind: 'short', reason: `too short to judge: ${short}` };
  return null;
}
