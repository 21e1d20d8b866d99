import { describe, expect, it } from 'vitest';
import { probeDisturbance } from '../../../src/crawl/disturbed.js';

const nebby50 = { delayMs: 50 };
const dist = (stalledMs: number, maxStallMs: number, windowSeconds = 30) => ({ windowSeconds, stalls: 3, stalledMs, maxStallMs, unlogged: 0, loadAverage: 1 });

describe('probeDisturbance (the crawl re-measures these probes)', () => {
  it('a probe with no record, or a quiet one, is kept', () => {
    expect(probeDisturbance({ profile: nebby50 })).toBeNull();
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(20, 10) })).toBeNull();
  });

  it('a stall over half the profile\'s RTT is a disturbed trace (the classifier sees no region delay)', () => {
    // nebby-50: 100 ms both ways at the capture, so 55 ms is over half of it, 45 ms is not.
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(55, 55) })).toMatch(/stalled the bottleneck for 55 ms/);
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(45, 45) })).toBeNull();
    expect(probeDisturbance({ profile: { delayMs: 100 }, disturbance: dist(55, 55) })).toBeNull();
  });

  it('many short stalls that hold the bottleneck back over 2% of the time are one too', () => {
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(700, 40) })).toMatch(/held the bottleneck back 2\.3% of the time/);
  });
});
