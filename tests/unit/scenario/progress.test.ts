import { describe, expect, it } from 'vitest';
import { emptyTally, tallySample, type MediaSample, type PlaybackTally } from '../../../src/scenario/progress.js';

const v = (currentTime: number, over: Partial<MediaSample> = {}): MediaSample =>
  ({ key: '0:0', tag: 'video', currentTime, paused: false, ended: false, readyState: 4, ...over });

/** Feeds one sample per second. */
function run(samples: MediaSample[][]): PlaybackTally {
  return samples.reduce((t, s) => tallySample(t, s, 1), emptyTally());
}

describe('playback tally', () => {
  it('counts steady playback as played seconds', () => {
    const t = run([0, 1, 2, 3, 4, 5].map((x) => [v(x)]));
    expect(t.playedSeconds).toBeCloseTo(5);
    expect(t.stalls).toBe(0);
    expect(t.state).toBe('playing');
  });

  it('separates start-up wait, stalls and stalled time', () => {
    // 2 s start-up, play 3 s, stuck 2 s, play 1 s, stuck 1 s.
    const times = [0, 0, 0, 1, 2, 3, 3, 3, 4, 4];
    const t = run(times.map((x) => [v(x)]));
    expect(t.startupSeconds).toBeCloseTo(2);
    expect(t.playedSeconds).toBeCloseTo(4);
    expect(t.stalls).toBe(2);
    expect(t.stalledSeconds).toBeCloseTo(3);
  });

  it('does not call a pause a stall, nor count it as played', () => {
    const t = run([[v(0)], [v(1)], [v(1, { paused: true })], [v(1, { paused: true })], [v(2)]]);
    expect(t.pausedSeconds).toBeCloseTo(2);
    expect(t.stalls).toBe(0);
    expect(t.playedSeconds).toBeCloseTo(2);
  });

  it('ignores seeks and live-edge jumps, and counts simultaneous elements once', () => {
    const seek = run([[v(0)], [v(1)], [v(300)], [v(301)]]);
    expect(seek.playedSeconds).toBeCloseTo(2);
    const call = run([0, 1, 2].map((x) => [v(x, { key: '0:0' }), v(x + 10, { key: '0:1' })]));
    expect(call.playedSeconds).toBeCloseTo(2);
    expect(call.maxElements).toBe(2);
  });

  it('caps an interval at its wall-clock length and uses the real interval', () => {
    let t = tallySample(emptyTally(), [v(0)], 0);
    t = tallySample(t, [v(1.5)], 1); // 1.5x speed: still 1 s of wall clock
    t = tallySample(t, [v(2.0)], 0.5);
    expect(t.playedSeconds).toBeCloseTo(1.5);
  });

  it('tracks pages without media and elements that appear later', () => {
    const t = run([[], [], [], [v(5, { key: '1:0' })], [v(6, { key: '1:0' })]]);
    expect(t.noMediaSeconds).toBeCloseTo(2);
    expect(t.startupSeconds).toBeCloseTo(1); // the interval in which it appeared
    expect(t.playedSeconds).toBeCloseTo(1);
    expect(t.lastCurrentTime).toBe(6);
  });

  it('ignores NaN times from elements without a source', () => {
    const t = run([[v(Number.NaN)], [v(Number.NaN)]]);
    expect(t.playedSeconds).toBe(0);
    expect(Object.keys(t.times)).toHaveLength(0);
  });
});
