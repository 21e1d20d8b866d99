/**
 * Back-off detection (Nebby step 2): a back-off is where the smoothed BiF falls steeply
 * (first derivative strongly negative relative to the local level) and loses a sizeable
 * share of its peak. Falls into excluded (idle/app-limited) stretches do not count.
 */
import type { PipelineConfig } from './config.js';
import { anyExcluded } from './exclusion.js';

export interface Backoff {
  /** Grid index of the peak before the fall and of the trough after it. */
  iPeak: number;
  iTrough: number;
  tPeak: number;
  tTrough: number;
  peak: number;
  trough: number;
  /** (peak - trough) / peak. */
  depth: number;
}

export interface BackoffInput {
  y: Float64Array;
  mask: Uint8Array;
  t0: number;
  dt: number;
  rtt: number;
}

export function detectBackoffs(s: BackoffInput, cfg: PipelineConfig['backoff']): Backoff[] {
  const { y, mask, dt, rtt } = s;
  const n = y.length;
  if (n < 3) return [];
  const perRtt = rtt / dt;
  const look = Math.max(1, Math.round(cfg.lookRtts * perRtt));
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const d = (y[Math.min(i + 1, n - 1)] - y[Math.max(i - 1, 0)]) / ((Math.min(i + 1, n - 1) - Math.max(i - 1, 0)) * dt);
    let level = 0;
    for (let j = Math.max(0, i - look); j <= i; j++) level = Math.max(level, y[j]);
    if (mask[i] === 0 && level > 0 && d < (-cfg.slopePerRtt * level) / rtt) candidate[i] = 1;
  }
  // Group candidates into runs, bridging gaps shorter than half an RTT (a fall can wobble).
  const bridge = Math.max(1, Math.round(0.5 * perRtt));
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    if (!candidate[i]) continue;
    const last = runs[runs.length - 1];
    if (last && i - last[1] <= bridge) last[1] = i;
    else runs.push([i, i]);
  }
  const out: Backoff[] = [];
  for (const [a, b] of runs) {
    let iPeak = a;
    while (iPeak > 0 && y[iPeak - 1] >= y[iPeak] && a - iPeak < look) iPeak--;
    let iTrough = b;
    while (iTrough < n - 1 && y[iTrough + 1] <= y[iTrough] && iTrough - b < look) iTrough++;
    const prev = out[out.length - 1];
    const merged = prev !== undefined && iPeak <= prev.iTrough;
    if (merged) {
      // Overlapping falls are one back-off (e.g. a fall interrupted by a wobble).
      iPeak = prev.iPeak;
      out.pop();
    }
    const touchesExcluded = anyExcluded(mask, iPeak, iTrough);
    const peak = y[iPeak];
    const trough = y[iTrough];
    const depth = peak > 0 ? (peak - trough) / peak : 0;
    if (touchesExcluded || depth < cfg.minDrop) {
      if (merged) out.push(prev); // keep the earlier back-off if the merged one fails
      continue;
    }
    out.push({ iPeak, iTrough, tPeak: s.t0 + iPeak * dt, tTrough: s.t0 + iTrough * dt, peak, trough, depth });
  }
  return out;
}
