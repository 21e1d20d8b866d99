/**
 * Playback accounting, pure: from periodic samples of the page's <video>/<audio> elements
 * to seconds played, stalls and pauses. Kept apart from the browser so it is unit-tested
 * with synthetic samples.
 */

/** One media element as seen at one instant. */
export interface MediaSample {
  /** Stable for the same element between samples (frame index + element index). */
  key: string;
  tag: 'video' | 'audio';
  currentTime: number;
  paused: boolean;
  ended: boolean;
  /** HTMLMediaElement.readyState (0-4). */
  readyState: number;
}

export interface PlaybackTally {
  /** Wall-clock seconds during which some media advanced. */
  playedSeconds: number;
  /** Re-buffering events: playback had advanced, then got stuck while not paused. */
  stalls: number;
  /** Wall-clock seconds stuck (not paused) after playback first advanced. */
  stalledSeconds: number;
  /** Wall-clock seconds stuck (not paused) before playback first advanced. */
  startupSeconds: number;
  /** Wall-clock seconds with media present but all of it paused or ended. */
  pausedSeconds: number;
  /** Wall-clock seconds with no media element at all. */
  noMediaSeconds: number;
  /** Most media elements seen in one sample. */
  maxElements: number;
  /** Largest currentTime seen. */
  lastCurrentTime: number;
  /** Samples taken (the first one only sets the baseline). */
  samples: number;
  /** State of the last interval. */
  state: 'none' | 'starting' | 'playing' | 'stalled' | 'paused' | 'no-media';
  /** currentTime by element key at the last sample. */
  times: Record<string, number>;
}

export function emptyTally(): PlaybackTally {
  return {
    playedSeconds: 0, stalls: 0, stalledSeconds: 0, startupSeconds: 0, pausedSeconds: 0, noMediaSeconds: 0,
    maxElements: 0, lastCurrentTime: 0, samples: 0, state: 'none', times: {},
  };
}

/** Less than this advance over an interval counts as not advancing (decoder jitter). */
const EPSILON_S = 0.05;

/**
 * Adds one sample taken `wallDeltaSec` after the previous one. An element's advance counts
 * only when it is plausible for the interval (no more than 2x + 1 s): seeks, ad swaps and
 * live-edge jumps are not playback. Several elements playing at once (a call's local and
 * remote video) count once: the largest advance, capped at the interval.
 */
export function tallySample(prev: PlaybackTally, samples: readonly MediaSample[], wallDeltaSec: number): PlaybackTally {
  const t: PlaybackTally = { ...prev, times: {}, samples: prev.samples + 1 };
  t.maxElements = Math.max(prev.maxElements, samples.length);
  let best = 0;
  let expectingPlay = false;
  for (const s of samples) {
    if (!Number.isFinite(s.currentTime)) continue;
    t.times[s.key] = s.currentTime;
    t.lastCurrentTime = Math.max(t.lastCurrentTime, s.currentTime);
    if (!s.paused && !s.ended) expectingPlay = true;
    const before = prev.times[s.key];
    if (before === undefined) continue;
    const d = s.currentTime - before;
    if (d > EPSILON_S && d <= 2 * wallDeltaSec + 1) best = Math.max(best, d);
  }
  if (prev.samples === 0 || !(wallDeltaSec > 0)) return t; // baseline only
  if (best > 0) {
    t.playedSeconds += Math.min(best, wallDeltaSec);
    t.state = 'playing';
  } else if (samples.length === 0) {
    t.noMediaSeconds += wallDeltaSec;
    t.state = 'no-media';
  } else if (expectingPlay && t.playedSeconds === 0) {
    t.startupSeconds += wallDeltaSec;
    t.state = 'starting';
  } else if (expectingPlay) {
    t.stalledSeconds += wallDeltaSec;
    if (prev.state !== 'stalled') t.stalls += 1;
    t.state = 'stalled';
  } else {
    t.pausedSeconds += wallDeltaSec;
    t.state = 'paused';
  }
  return t;
}
