import { describe, expect, it } from 'vitest';
import { probeDisturbance } from '../../../src/crawl/disturbed.js';

const nebby50 = { delayMs: 50 };
const dist = (stalledMs: number, maxStallMs: number, windowSeconds = 30) => ({ windowSeconds, stalls: 3, stalledMs, maxStallMs, unlogged: 0, loadAverage: 1 });

describe('probeDisturbance (the crawl re-measures these probes)', () => {
  it('a probe with no record, or a quiet one, is kept', () => {
    expect(probeDisturbance({ profile: nebby50 }, 10)).toBeNull();
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(20, 10) }, 10)).toBeNull();
  });

  it('a stall over half the base RTT is a disturbed trace; the region\'s RTT raises the bound', () => {
    // nebby-50 from a 10 ms region: base RTT 110 ms, so 60 ms is over half of it...
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(60, 60) }, 10)).toMatch(/stalled the bottleneck for 60 ms/);
    // ...and from a 150 ms region (base RTT 250 ms) it is not.
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(60, 60) }, 150)).toBeNull();
  });

  it('many short stalls that hold the bottleneck back over 2% of the time are one too', () => {
    expect(probeDisturbance({ profile: nebby50, disturbance: dist(700, 40) }, 10)).toMatch(/held the bottleneck back 2\.3% of the time/);
  });
});
