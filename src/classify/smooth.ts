/**
 * Stage 1: resample the irregular BiF series onto a uniform grid and low-pass it at 1/RTT.
 */
import type { BifSeries } from '../trace/types.js';
import type { PipelineConfig } from './config.js';
import { lowPass } from './lowpass.js';
import { chooseGrid, resampleUniform } from './resample.js';

export interface SmoothedSeries {
  t0: number;
  dt: number;
  rtt: number;
  /** Resampled, unfiltered values (kept for idle detection and for the report). */
  raw: Float64Array;
  /** Low-passed values, clamped at 0 (BiF is never negative). */
  y: Float64Array;
  appLimited: Uint8Array;
  gap: Float64Array;
}

export function smoothSeries(series: BifSeries, cfg: PipelineConfig['smoothing']): SmoothedSeries {
  const { t, bif, rttSeconds: rtt } = series;
  const duration = t[t.length - 1] - t[0];
  const grid = chooseGrid(duration, rtt, cfg.pointsPerRtt, cfg.maxPoints);
  const g = resampleUniform(t, bif, series.appLimited, grid);
  const cutoffHz = 1 / (cfg.cutoffRtts * rtt);
  const filtered = lowPass(g.y, g.dt, { cutoffHz, taperStart: cfg.taperStart });
  for (let i = 0; i < filtered.length; i++) if (filtered[i] < 0) filtered[i] = 0;
  return { t0: g.t0, dt: g.dt, rtt, raw: g.y, y: filtered, appLimited: g.appLimited, gap: g.gap };
}
