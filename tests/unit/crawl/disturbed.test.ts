import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserRunTraces, traceDisturbance } from '../../../src/crawl/disturbed.js';

const nebby50 = { delayMs: 50 };
const dist = (stalledMs: number, maxStallMs: number, windowSeconds = 30) => ({ windowSeconds, stalls: 3, stalledMs, maxStallMs, unlogged: 0, loadAverage: 1 });

describe('traceDisturbance (the crawl re-measures these probes)', () => {
  it('a probe with no record, or a quiet one, is kept', () => {
    expect(traceDisturbance({ profile: nebby50 })).toBeNull();
    expect(traceDisturbance({ profile: nebby50, disturbance: dist(20, 10) })).toBeNull();
  });

  it('a stall over half the profile\'s RTT is a disturbed trace (the classifier sees no region delay)', () => {
    // nebby-50: 100 ms both ways at the capture, so 55 ms is over half of it, 45 ms is not.
    expect(traceDisturbance({ profile: nebby50, disturbance: dist(55, 55) })).toMatch(/stalled the bottleneck for 55 ms/);
    expect(traceDisturbance({ profile: nebby50, disturbance: dist(45, 45) })).toBeNull();
    expect(traceDisturbance({ profile: { delayMs: 100 }, disturbance: dist(55, 55) })).toBeNull();
  });

  it('many short stalls that hold the bottleneck back over 2% of the time are one too', () => {
    expect(traceDisturbance({ profile: nebby50, disturbance: dist(700, 40) })).toMatch(/held the bottleneck back 2\.3% of the time/);
  });
});

describe('browserRunTraces (a browser job\'s traces for the worker\'s jobs at once)', () => {
  it('one per profile with a record, judged at that profile\'s RTT; a profile without one is not counted', () => {
    const run = mkdtempSync(join(tmpdir(), 'ccb-unit-run-'));
    const write = (profile: string, d: object | string) => {
      mkdirSync(join(run, profile), { recursive: true });
      writeFileSync(join(run, profile, 'disturbance.json'), typeof d === 'string' ? d : JSON.stringify(d));
    };
    write('nebby-50', dist(55, 55)); // over half of 100 ms: disturbed
    write('nebby-100', dist(55, 55)); // under half of 200 ms: clean
    write('broken', '{"windowSeconds": '); // unreadable: no evidence
    mkdirSync(join(run, 'none')); // no delay line: no record
    const profiles = [{ name: 'nebby-50', delayMs: 50 }, { name: 'nebby-100', delayMs: 100 }, { name: 'broken', delayMs: 50 }, { name: 'none', delayMs: 50 }];
    expect(browserRunTraces(run, profiles, 1234)).toEqual([{ disturbed: true, startedAt: 1234 }, { disturbed: false, startedAt: 1234 }]);
  });
});
