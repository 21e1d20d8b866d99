/**
 * Stage 2: cut the smoothed trace into segments between back-offs. Slow start (the initial
 * ramp, up to the first back-off or until BiF first reaches its working level) is set
 * aside, excluded stretches cut segments too, and segments too short to judge are kept in
 * the list (for the report) but marked unusable with a reason.
 */
import type { Backoff } from './backoffs.js';
import type { PipelineConfig } from './config.js';
import { median, pick } from './stats.js';

export type SegmentEdge = 'slow-start-end' | 'backoff' | 'excluded' | 'end-of-trace';

export interface Segment {
  index: number;
  iStart: number;
  /** Inclusive. */
  iEnd: number;
  tStart: number;
  tEnd: number;
  durationRtts: number;
  /** Raw (irregular) samples inside [tStart, tEnd]. */
  samples: number;
  openedBy: SegmentEdge;
  closedBy: SegmentEdge;
  /** Depth of the back-off that opened/closed the segment, if any. */
  openingDepth?: number;
  closingDepth?: number;
  usable: boolean;
  dropReason?: string;
}

export interface SegmentationInput {
  y: Float64Array;
  mask: Uint8Array;
  t0: number;
  dt: number;
  rtt: number;
  /** The original sample times, to count real samples per segment. */
  sampleTimes: Float64Array;
}

/** Grid index where slow start ends (n when the trace never leaves it). */
export function findSlowStartEnd(s: SegmentationInput, backoffs: Backoff[], cfg: PipelineConfig['slowStart']): number {
  const n = s.y.length;
  const active = pick(s.y, (i) => i >= n / 2 && s.mask[i] === 0);
  const working = active.length ? median(active) : median(s.y);
  let reach = n;
  for (let i = 0; i < n; i++) {
    if (s.mask[i] === 0 && s.y[i] >= cfg.reachFraction * working) {
      reach = i;
      break;
    }
  }
  const firstBackoff = backoffs.length ? backoffs[0].iPeak : n;
  return Math.min(reach, firstBackoff);
}

function countSamples(times: Float64Array, a: number, b: number): number {
  const lowerBound = (x: number): number => {
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return lowerBound(b + 1e-12) - lowerBound(a);
}

interface Cut {
  start: number;
  end: number;
  kind: 'backoff' | 'excluded';
  depth?: number;
}

export function segmentTrace(
  s: SegmentationInput,
  backoffs: Backoff[],
  slowStartEnd: number,
  cfg: PipelineConfig['segments'],
): Segment[] {
  const n = s.y.length;
  const cuts: Cut[] = [];
  for (const b of backoffs) if (b.iPeak >= slowStartEnd) cuts.push({ start: b.iPeak, end: b.iTrough, kind: 'backoff', depth: b.depth });
  let runStart = -1;
  for (let i = 0; i <= n; i++) {
    const ex = i < n && s.mask[i] !== 0;
    if (ex && runStart < 0) runStart = i;
    if (!ex && runStart >= 0) {
      if (i - 1 >= slowStartEnd) cuts.push({ start: Math.max(runStart, slowStartEnd), end: i - 1, kind: 'excluded' });
      runStart = -1;
    }
  }
  cuts.sort((p, q) => p.start - q.start);
  const segments: Segment[] = [];
  let cursor = slowStartEnd;
  let opened: SegmentEdge = 'slow-start-end';
  let openingDepth: number | undefined;
  const emit = (iEnd: number, closedBy: SegmentEdge, closingDepth?: number): void => {
    if (iEnd - cursor < 1) return;
    const tStart = s.t0 + cursor * s.dt;
    const tEnd = s.t0 + iEnd * s.dt;
    const seg: Segment = {
      index: segments.length,
      iStart: cursor,
      iEnd,
      tStart,
      tEnd,
      durationRtts: (tEnd - tStart) / s.rtt,
      samples: countSamples(s.sampleTimes, tStart, tEnd),
      openedBy: opened,
      closedBy,
      usable: true,
    };
    if (openingDepth !== undefined) seg.openingDepth = openingDepth;
    if (closingDepth !== undefined) seg.closingDepth = closingDepth;
    if (opened !== 'backoff' || closedBy !== 'backoff') {
      seg.usable = false;
      seg.dropReason = `not between two back-offs (opened by ${opened}, closed by ${closedBy})`;
    } else if (seg.durationRtts < cfg.minRtts) {
      seg.usable = false;
      seg.dropReason = `too short: ${seg.durationRtts.toFixed(1)} RTTs < ${cfg.minRtts}`;
    } else if (seg.samples < cfg.minSamples) {
      seg.usable = false;
      seg.dropReason = `too few samples: ${seg.samples} < ${cfg.minSamples}`;
    }
    segments.push(seg);
  };
  for (const c of cuts) {
    if (c.end < cursor) continue;
    if (c.start > cursor) emit(c.start, c.kind, c.depth);
    cursor = Math.max(cursor, c.end);
    opened = c.kind;
    openingDepth = c.depth;
  }
  if (cursor < n - 1) emit(n - 1, 'end-of-trace');
  return segments;
}
