/**
 * A live stream computed from the wall clock over a looping VOD segment set. Stateless: the
 * live edge is a pure function of time, so any origin (or a restarted one) gives the same
 * answer, and players see a manifest that moves forward in real time.
 */
import { posix } from 'node:path';
import type { LiveManifest, Track, VodManifest } from '../sites/manifest.js';

/** Live time zero. A fixed date (not process start) so every origin agrees on the edge. */
export const LIVE_EPOCH_MS = Date.UTC(2025, 0, 1);

export interface LiveOptions {
  /** How many segments the manifest lists, ending at the live edge. */
  windowSegments?: number;
  epochMs?: number;
  /** URL path of the directory holding the VOD manifest, e.g. "/media/vod/". */
  sourceDir: string;
}

export function liveManifest(vod: VodManifest, nowMs: number, opts: LiveOptions): LiveManifest {
  const windowSegments = Math.max(1, opts.windowSegments ?? 6);
  const epochMs = opts.epochMs ?? LIVE_EPOCH_MS;
  const segDur = vod.segmentDuration;
  const count = Math.min(...[...vod.video, ...vod.audio].map((t) => t.segments.length));
  const loopDuration = count * segDur;
  // A segment is published once its whole duration has elapsed.
  const liveEdgeSeq = Math.floor((nowMs - epochMs) / 1000 / segDur) - 1;
  const window = [];
  for (let seq = liveEdgeSeq - windowSegments + 1; seq <= liveEdgeSeq; seq++) {
    const index = ((seq % count) + count) % count;
    const loop = Math.floor(seq / count);
    window.push({ seq, index, start: seq * segDur, offset: loop * loopDuration });
  }
  const rebase = (t: Track): Track => ({
    ...t,
    init: posix.join(opts.sourceDir, t.init),
    segments: t.segments.slice(0, count).map((s) => posix.join(opts.sourceDir, s)),
  });
  return {
    version: 1,
    type: 'live',
    segmentDuration: segDur,
    availabilityStartMs: epochMs,
    nowMs,
    liveEdgeSeq,
    video: vod.video.map(rebase),
    audio: vod.audio.map(rebase),
    window,
  };
}
