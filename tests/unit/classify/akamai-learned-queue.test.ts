/**
 * AkamaiCC-like is not named from a flow whose held level kept under 8 packets queued above the
 * BDP in any profile that measured a queue (in every profile until session 60), unless the akamai rule matched in a profile (back-offs every 10-20 s, or its
 * held level) (src/classify/vegasQueue.ts akamaiQueueWithheld): the class is learned from the lab's FAST, which
 * keeps its alpha of 20 queued. The fixture: kernel Vegas behind nebby-50's delay at 800 kbit/s
 * (held-out h-bn-800k-70j2, session 52), which the learned class took at 1.00 with 4 packets
 * queued; and lab FAST 190 ms away (hd-rtt-190j2), which keeps its answer with 18.4 queued.
 * Second fixture (session 60): open-set kernel NV at 600 kbit/s 80 ms away, 14 packets queued
 * through nebby-50 and 12 under the BDP through nebby-100, which read AkamaiCC-like at 1.00 fused
 * once more groups were trained beyond the first conditions.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { akamaiQueueWithheld } from '../../../src/classify/vegasQueue.js';
import { classifyEntries } from '../../../src/train/bench.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

// As the akamai classifier's explain() reads: the rule's decision is its periodic match or its held level.
const akamai = (queuedPackets: number | null, periodic = false, held = false) => ({ akamai: { queuedPackets, intervalsOk: periodic, flat: periodic, levelOk: periodic, held, decision: periodic || held ? 'AkamaiCC-like' : null } });

describe('akamaiQueueWithheld', () => {
  it('withholds AkamaiCC-like when a profile did not keep FAST\'s queue', () => {
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(4)])).toMatch(/held level kept 4\.0 \(under 8/);
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(-3), akamai(7.9)])).toMatch(/kept -3\.0 in a profile/);
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(2), akamai(18)])).toMatch(/kept 2\.0 in a profile/);
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(null), akamai(7.9)])).toMatch(/kept 7\.9 \(under 8/);
  });

  it('lets it stand when every profile that measured a queue kept 8 or more, when none measured one, or when a profile backs off every 10-20 s', () => {
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(8), akamai(18)])).toBeNull();
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(null), akamai(16.5)])).toBeNull();
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(null), undefined])).toBeNull();
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(3, true), akamai(3)])).toBeNull();
  });

  it('lets it stand when the akamai rule matched a held level in a profile that could not measure the queue', () => {
    expect(akamaiQueueWithheld('AkamaiCC-like', [akamai(null, false, true), akamai(4)])).toBeNull();
  });

  it('counts back-offs as AkamaiCC\'s only when they are periodic, flat and level, as the rule does', () => {
    const partly = { akamai: { queuedPackets: 4, intervalsOk: true, flat: false, levelOk: true, held: false, decision: null } };
    expect(akamaiQueueWithheld('AkamaiCC-like', [partly])).toMatch(/held level kept 4\.0/);
  });

  it('leaves every other label alone', () => {
    expect(akamaiQueueWithheld('Vegas', [akamai(3)])).toBeNull();
    expect(akamaiQueueWithheld('BBRv2', [akamai(0.2)])).toBeNull();
  });
});

describe('lab flows, shipped model', () => {
  const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/akamai-learned-queue.json.gz', import.meta.url)));
  const model = shippedModel();
  const vegas = entries.find((e) => e.origin === 'tcp-vegas')!;
  const fast = entries.find((e) => e.origin === 'tcp-fast')!;

  it('does not name the Vegas flow at 800 kbit/s AkamaiCC-like, and says why', () => {
    const v = classifyFlow(toSeries(vegas), model);
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/the AkamaiCC-like class is FAST's level with 20 packets queued above the BDP, and the flow's held level kept 4\.\d/);
  });

  it('withholds a fused AkamaiCC-like when a profile did not keep the queue, unless a profile matched the rule', () => {
    const v = classifyFlow(toSeries(vegas), model);
    const f = classifyFlow(toSeries(fast), model);
    const asAkamai = (x: typeof v) => ({ ...x, label: 'AkamaiCC-like', kind: 'cca' as const, confidence: 0.99 });
    expect(fuseProfiles([asAkamai(v), asAkamai(v)]).reason).toMatch(/the AkamaiCC-like class is FAST's level/);
    // FAST's own profile matched the akamai rule's held level: a signature, which stands.
    expect((f.evidence!.classifiers!.akamai as { decision: string | null }).decision).toBe('AkamaiCC-like');
    expect(fuseProfiles([asAkamai(v), f]).label).toBe('AkamaiCC-like');
    const unsigned = structuredClone(f);
    (unsigned.evidence!.classifiers!.akamai as { decision: string | null }).decision = null;
    expect(fuseProfiles([asAkamai(v), unsigned]).reason).toMatch(/the AkamaiCC-like class is FAST's level .* in a profile/);
    expect(fuseProfiles([unsigned, unsigned]).label).toBe('AkamaiCC-like');
  });

  it('still names lab FAST 190 ms away AkamaiCC-like, calibrated', () => {
    const { traces } = classifyEntries([fast], model);
    expect(traces.map((t) => t.predicted)).toEqual(['AkamaiCC-like']);
  });
});

describe('open-set kernel NV, shipped model', () => {
  const flows = labSeriesFlows('nv-akamai-queue.json.gz');
  const model = shippedModel();

  it('is not named AkamaiCC-like when one profile kept FAST\'s queue and the other held under the BDP', () => {
    const verdicts = flows.map((e) => classifyFlow(toSeries(e), model));
    const queues = verdicts.map((v) => (v.evidence!.classifiers!.akamai as { queuedPackets: number }).queuedPackets);
    expect(Math.max(...queues)).toBeGreaterThanOrEqual(8);
    expect(Math.min(...queues)).toBeLessThan(0);
    const fused = fuseProfiles(verdicts, { calibration: model.calibration! });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/the AkamaiCC-like class is FAST's level .* in a profile/);
  });
});
