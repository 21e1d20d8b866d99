/**
 * The media manifest the lab's players read: a small JSON stand-in for a DASH MPD, written
 * by the site generator (VOD) and derived by the origin (live). URLs are relative to the
 * manifest's own URL, so whichever origin serves the manifest also serves the segments.
 */
import { z } from 'zod';

export const Track = z.object({
  id: z.string(),
  kind: z.enum(['video', 'audio']),
  bandwidth: z.number().int().positive(), // bits per second, as in a DASH Representation
  codecs: z.string(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  init: z.string(),
  segments: z.array(z.string()).min(1),
});
export type Track = z.infer<typeof Track>;

export const VodManifest = z.object({
  version: z.literal(1),
  type: z.literal('vod'),
  segmentDuration: z.number().positive(), // seconds
  duration: z.number().positive(),
  video: z.array(Track),
  audio: z.array(Track).min(1),
});
export type VodManifest = z.infer<typeof VodManifest>;

/** One live segment: `index` into each track's segment list, `offset` = MSE timestampOffset. */
export const LiveEntry = z.object({
  seq: z.number().int(),
  index: z.number().int().nonnegative(),
  start: z.number(),
  offset: z.number(),
});
export type LiveEntry = z.infer<typeof LiveEntry>;

export const LiveManifest = VodManifest.omit({ type: true, duration: true }).extend({
  type: z.literal('live'),
  availabilityStartMs: z.number(),
  nowMs: z.number(),
  liveEdgeSeq: z.number().int(),
  window: z.array(LiveEntry).min(1),
});
export type LiveManifest = z.infer<typeof LiveManifest>;
