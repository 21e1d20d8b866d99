import { describe, expect, it } from 'vitest';
import { liveManifest, LIVE_EPOCH_MS } from '../../../src/lab/origin/live.js';
import { LiveManifest, type VodManifest } from '../../../src/lab/sites/manifest.js';

const seg = (r: string, n: number) => Array.from({ length: n }, (_, i) => `seg-${r}-${String(i + 1).padStart(5, '0')}.m4s`);
const vod: VodManifest = {
  version: 1,
  type: 'vod',
  segmentDuration: 2,
  duration: 20,
  video: [{ id: 'v240', kind: 'video', bandwidth: 200_000, codecs: 'avc1.42c015', width: 426, height: 240, init: 'init-0.mp4', segments: seg('0', 10) }],
  // ffmpeg may cut one extra short audio segment: the loop uses the common length.
  audio: [{ id: 'a64', kind: 'audio', bandwidth: 64_000, codecs: 'mp4a.40.2', init: 'init-1.mp4', segments: seg('1', 11) }],
};
const opts = { sourceDir: '/media/vod/', windowSegments: 4 };

describe('liveManifest', () => {
  it('puts the live edge at the last fully elapsed segment', () => {
    const m = liveManifest(vod, LIVE_EPOCH_MS + 100_500, opts); // 100.5 s: segment 50 is still running
    expect(m.liveEdgeSeq).toBe(49);
    expect(m.window.map((e) => e.seq)).toEqual([46, 47, 48, 49]);
    expect(LiveManifest.parse(m)).toEqual(m);
  });

  it('moves forward with the wall clock, one segment per segment duration', () => {
    const a = liveManifest(vod, LIVE_EPOCH_MS + 1_000_000, opts);
    const b = liveManifest(vod, LIVE_EPOCH_MS + 1_000_000 + 2_000, opts);
    const c = liveManifest(vod, LIVE_EPOCH_MS + 1_000_000 + 1_999, opts);
    expect(b.liveEdgeSeq).toBe(a.liveEdgeSeq + 1);
    expect(c.liveEdgeSeq).toBe(a.liveEdgeSeq);
  });

  it('loops over the segments with a timestamp offset that keeps time continuous', () => {
    const m = liveManifest(vod, LIVE_EPOCH_MS + 2_000 * 21 + 10, { ...opts, windowSegments: 5 }); // edge 20
    expect(m.window.map((e) => [e.seq, e.index, e.offset])).toEqual([
      [16, 6, 20],
      [17, 7, 20],
      [18, 8, 20],
      [19, 9, 20],
      [20, 0, 40],
    ]);
    // presentation time = offset + index * segmentDuration = the live time of the segment
    for (const e of m.window) expect(e.offset + e.index * 2).toBe(e.start);
  });

  it('rebases segment URLs onto the VOD directory and trims tracks to the loop length', () => {
    const m = liveManifest(vod, LIVE_EPOCH_MS + 60_000, opts);
    expect(m.video[0].init).toBe('/media/vod/init-0.mp4');
    expect(m.audio[0].segments).toHaveLength(10);
    expect(m.audio[0].segments[0]).toBe('/media/vod/seg-1-00001.m4s');
  });
});
