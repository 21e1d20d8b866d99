/**
 * Which grid points must not be judged: application-limited (the sender had nothing to
 * send, so a drop is not a congestion response) and idle (BiF near zero, or no packets).
 */
import type { PipelineConfig } from './config.js';
import type { SmoothedSeries } from './smooth.js';
import { quantile } from './stats.js';

export const EXCLUDED_NONE = 0;
export const EXCLUDED_APP_LIMITED = 1;
export const EXCLUDED_IDLE = 2;

/** True when any grid point in [from, to] is excluded (idle or application-limited). */
export function anyExcluded(mask: Uint8Array, from: number, to: number): boolean {
  for (let i = Math.max(0, from); i <= to && i < mask.length; i++) if (mask[i] !== EXCLUDED_NONE) return true;
  return false;
}

/** Per grid point: 0 usable, 1 application-limited, 2 idle. */
export function computeExclusion(s: SmoothedSeries, cfg: PipelineConfig['exclusion']): Uint8Array {
  const n = s.y.length;
  const mask = new Uint8Array(n);
  const perRtt = s.rtt / s.dt;
  const idleLevel = cfg.idleFraction * quantile(s.raw, 0.9);
  const idleMin = Math.max(1, Math.round(cfg.idleMinRtts * perRtt));
  // Idle: a run of near-zero BiF long enough not to be a single deep back-off trough.
  let runStart = -1;
  for (let i = 0; i <= n; i++) {
    const low = i < n && (s.raw[i] <= idleLevel || s.gap[i] > cfg.gapRtts * s.rtt);
    if (low && runStart < 0) runStart = i;
    if (!low && runStart >= 0) {
      if (i - runStart >= idleMin) for (let j = runStart; j < i; j++) mask[j] = EXCLUDED_IDLE;
      runStart = -1;
    }
  }
  for (let i = 0; i < n; i++) if (mask[i] === EXCLUDED_NONE && s.appLimited[i]) mask[i] = EXCLUDED_APP_LIMITED;
  // Pad: the low-pass filter smears each excluded run into its neighbours.
  const pad = Math.round(cfg.padRtts * perRtt);
  if (pad > 0) {
    const src = Uint8Array.from(mask);
    for (let i = 0; i < n; i++) {
      if (src[i] === EXCLUDED_NONE) continue;
      const isEdge = (i > 0 && src[i - 1] === EXCLUDED_NONE) || (i + 1 < n && src[i + 1] === EXCLUDED_NONE);
      if (!isEdge) continue;
      for (let j = Math.max(0, i - pad); j <= Math.min(n - 1, i + pad); j++) if (mask[j] === EXCLUDED_NONE) mask[j] = src[i];
    }
  }
  return mask;
}

/** Time-weighted share of the flow flagged application-limited by the trace step. */
export function appLimitedFraction(s: SmoothedSeries): number {
  let c = 0;
  for (let i = 0; i < s.appLimited.length; i++) c += s.appLimited[i];
  return s.appLimited.length ? c / s.appLimited.length : 0;
}
