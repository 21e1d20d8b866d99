/**
 * A level held flat with far more queued than FAST's alpha is a window cap, not AkamaiCC-like's
 * held level (akamai.ts MAX_QUEUED_PACKETS, vegasQueue.ts akamaiQueueWithheld; session 59).
 * Fixture: held-out round AL, 1.5 Mbit/s behind nebby-100 40 ms away, where kernel NewReno and
 * CUBIC held 60 kB (438 packets queued, none lost) for 29 s and read AkamaiCC-like at 1.00; lab
 * FAST behind nebby-50 there keeps its alpha (17.4 queued).
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { MAX_QUEUED_PACKETS } from '../../../src/classify/classifiers/akamai.js';
import { akamaiQueueWithheld } from '../../../src/classify/vegasQueue.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGate } from './shippedModel.js';

const model = shippedModel();
const calibration = model.calibration!;
const flows = labSeriesFlows('window-capped-level.json.gz');
const judged = (origin: string, m = model): Verdict => classifyFlow(toSeries(flows.find((f) => f.origin === origin)!), m);
// Round AL is among the rounds session 60's `.beyond2` groups were trained on: the rule is read on the model without them.
const before = withoutGate(model, '.beyond2');
const akamaiOf = (v: Verdict) => v.evidence!.classifiers.akamai as { queuedPackets: number; held: boolean; decision: string | null };

describe('a level held by a window cap', () => {
  it('is not AkamaiCC-like: the held-level rule does not match, the learned class is withheld', () => {
    for (const origin of ['tcp-reno', 'tcp-cubic']) {
      const v = judged(origin, before);
      const a = akamaiOf(v);
      expect(a.queuedPackets, origin).toBeGreaterThan(MAX_QUEUED_PACKETS);
      expect(a.held, origin).toBe(false);
      expect(v.label, origin).toBe('Unknown');
      expect(v.reason, origin).toMatch(/a level held by a window cap/);
      expect(fuseProfiles([v], { calibration }).label, origin).toBe('Unknown');
      expect(fuseProfiles([judged(origin)], { calibration }).label, `${origin}, shipped model`).not.toBe('AkamaiCC-like');
    }
  });

  it("FAST keeping its alpha queued is still AkamaiCC-like", () => {
    const fast = judged('tcp-fast');
    expect(akamaiOf(fast).queuedPackets).toBeLessThan(MAX_QUEUED_PACKETS);
    expect(akamaiOf(fast).decision).toBe('AkamaiCC-like');
    expect(fast.label).toBe('AkamaiCC-like');
  });

  it('withholds AkamaiCC-like when any profile kept more than twice alpha queued (pure logic)', () => {
    const q = (n: number) => ({ akamai: { queuedPackets: n, decision: null } });
    expect(akamaiQueueWithheld('AkamaiCC-like', [q(18), q(400)])).toMatch(/over 40, twice FAST's alpha/);
    expect(akamaiQueueWithheld('AkamaiCC-like', [q(18), q(20)])).toBeNull();
    expect(akamaiQueueWithheld('CUBIC', [q(400)])).toBeNull();
  });
});
