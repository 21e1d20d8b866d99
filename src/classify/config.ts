/**
 * Tunables of the pre-processing pipeline (smoothing, exclusion, segmentation, flow
 * gates). They live in the model file so training and classification always share them.
 */
import { z } from 'zod';

export const pipelineConfigSchema = z.object({
  smoothing: z.object({
    /** Grid resolution: at least this many points per RTT. */
    pointsPerRtt: z.number().min(4),
    /** Upper bound on grid length (memory/time guard for very long flows). */
    maxPoints: z.number().int().min(64),
    /** Cut-off = 1 / (cutoffRtts x RTT); Nebby uses 1. */
    cutoffRtts: z.number().positive(),
    /** Start of the raised-cosine roll-off as a fraction of the cut-off. */
    taperStart: z.number().min(0).max(1),
  }),
  exclusion: z.object({
    /** BiF below this fraction of the flow's 90th percentile counts as idle... */
    idleFraction: z.number().min(0).max(1),
    /** ...when it lasts at least this many RTTs. */
    idleMinRtts: z.number().nonnegative(),
    /** No packet for this many RTTs is idle too. */
    gapRtts: z.number().positive(),
    /** Widen each excluded run by this many RTTs each side (the filter smears edges). */
    padRtts: z.number().nonnegative(),
  }),
  backoff: z.object({
    /** A candidate back-off falls faster than this fraction of the local level per RTT. */
    slopePerRtt: z.number().positive(),
    /** ...and loses at least this fraction of its peak. */
    minDrop: z.number().min(0).max(1),
    /** Window (RTTs) for the local level and for walking to the peak/trough. */
    lookRtts: z.number().positive(),
  }),
  slowStart: z.object({
    /** Slow start ends at the first back-off, or when BiF first reaches this fraction of the later median. */
    reachFraction: z.number().min(0).max(1),
  }),
  shape: z.object({
    /** Complexity penalty of the polynomial choice (score = MSE + lambda x degree x sum|c_k|). */
    lambda: z.number().nonnegative(),
    maxDegree: z.number().int().min(1).max(3),
  }),
  segments: z.object({
    minRtts: z.number().nonnegative(),
    minSamples: z.number().int().nonnegative(),
    /** Points each segment is resampled to before the polynomial fit (Nebby: 200). */
    resamplePoints: z.number().int().min(10),
  }),
  shortFlow: z.object({
    minSeconds: z.number().nonnegative(),
    minRtts: z.number().nonnegative(),
    minSamples: z.number().int().nonnegative(),
    /** Needed after slow start and exclusions, in RTTs. */
    minActiveRtts: z.number().nonnegative(),
  }),
  appLimited: z.object({
    /** Flows application-limited for more than this share of their time get that label. */
    maxFraction: z.number().min(0).max(1),
  }),
  /**
   * What the capture point cannot see of the path between it and the server (the round trip on
   * the server's side, from the flow's own conditions). fullRtt: RTT-based units use the
   * sender's whole round trip, not only the capture's side of it (a sender grows per its own
   * RTT). invisiblePipe: bytes in flight get back what the server's side of the path holds
   * (delivery rate x that round trip), which the capture never sees. Absent: neither (models
   * trained before).
   */
  path: z.object({ fullRtt: z.boolean(), invisiblePipe: z.boolean() }).optional(),
});

export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;

export const defaultPipelineConfig: PipelineConfig = {
  smoothing: { pointsPerRtt: 8, maxPoints: 1 << 18, cutoffRtts: 1, taperStart: 0.6 },
  exclusion: { idleFraction: 0.03, idleMinRtts: 2, gapRtts: 4, padRtts: 1 },
  backoff: { slopePerRtt: 0.08, minDrop: 0.2, lookRtts: 2 },
  slowStart: { reachFraction: 0.8 },
  shape: { lambda: 0.0001, maxDegree: 3 },
  segments: { minRtts: 8, minSamples: 20, resamplePoints: 200 },
  shortFlow: { minSeconds: 4, minRtts: 20, minSamples: 50, minActiveRtts: 10 },
  appLimited: { maxFraction: 0.5 },
  path: { fullRtt: false, invisiblePipe: false },
};
