/**
 * Vegas is not named from a flow whose held level kept under 1.5 packets queued above the BDP in
 * every profile that measured a queue (src/classify/vegasQueue.ts): Vegas steers to 2-4. The fixture: lab BBRv2 behind
 * `video` at the held-out hd-video-110j2 (110 ms, 2 ms jitter), cruising flat at the BDP with no
 * ProbeRTT drain in 30 s, which the learned Vegas class took at 1.00; and lab Vegas behind `video`
 * at hd-video-30, which keeps its answer. Since session 48 the shipped model reads the BBRv2 flow's
 * shape as BBRv2's; the rule is tested against the model without those groups (withoutGroups).
 * Since session 60 Vegas is also withheld when every profile kept twice its beta or more (a buffer
 * filler): second fixture, kernel Veno from round AN, 22.8 and 26.9 queued, Vegas at 1.00 before.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { MIN_QUEUED_PACKETS, vegasQueueWithheld } from '../../../src/classify/vegasQueue.js';
import { classifyEntries } from '../../../src/train/bench.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGroups } from './shippedModel.js';

const akamai = (queuedPackets: number | null) => ({ akamai: { queuedPackets } });

describe('vegasQueueWithheld', () => {
  it('withholds Vegas when no profile kept its queue', () => {
    expect(vegasQueueWithheld('Vegas', [akamai(0.4)])).toMatch(/held level kept 0\.4 \(under 1\.5\)/);
    expect(vegasQueueWithheld('Vegas', [akamai(-9.1), akamai(0.9)])).toMatch(/kept 0\.9/);
  });

  it('lets Vegas stand when a profile kept it (far away the other may see a negative queue), or none measured one', () => {
    expect(vegasQueueWithheld('Vegas', [akamai(-9.1), akamai(MIN_QUEUED_PACKETS)])).toBeNull();
    expect(vegasQueueWithheld('Vegas', [akamai(null), undefined])).toBeNull();
  });

  it('withholds Vegas when every profile that measured a queue kept twice its beta or more: a buffer filler (session 60)', () => {
    expect(vegasQueueWithheld('Vegas', [akamai(22.8), akamai(26.9)])).toMatch(/kept 22\.8 or more in every profile \(8 or more, twice Vegas's beta\): a loss-based sender filling the buffer/);
    expect(vegasQueueWithheld('Vegas', [akamai(8)])).toMatch(/kept 8\.0 or more \(8 or more/);
    expect(vegasQueueWithheld('Vegas', [akamai(null), akamai(30)])).toMatch(/kept 30\.0 or more \(/);
    // Kernel Vegas may fill the buffer behind one profile (Reno's fallback): the other keeps its queue.
    expect(vegasQueueWithheld('Vegas', [akamai(142.2), akamai(4.0)])).toBeNull();
    expect(vegasQueueWithheld('Vegas', [akamai(7.9)])).toBeNull();
  });

  it('leaves every other label alone (FAST has its own, larger queue check: akamai.ts)', () => {
    expect(vegasQueueWithheld('AkamaiCC-like', [akamai(0.2)])).toBeNull();
    expect(vegasQueueWithheld('BBRv2', [akamai(0.2)])).toBeNull();
  });
});

describe('lab flows behind video, shipped model', () => {
  const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/vegas-queue.json.gz', import.meta.url)));
  const shipped = shippedModel();
  // The rule's case needs the flow read as Vegas, as it was when the rule was found: so the shipped
  // model less session 48's `video` groups of issue 17's senders at 105 and 135 ms, which now fit
  // the flow's shape as BBRv2's.
  const model = withoutGroups(shipped, /\.g17-video-(105|135)j1$/);
  const bbr2Flow = toSeries(entries.find((e) => e.origin === 'tcp-bbr2')!);

  it('does not name the BBRv2 flow cruising at the BDP Vegas, and says why', () => {
    const v = classifyFlow(bbr2Flow, model);
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/Vegas keeps 2-4 packets queued above the BDP, and the flow's held level kept 0\.\d/);
  });

  it('with the video groups at 105 and 135 ms, finds the flow\'s shape BBRv2\'s instead', () => {
    expect(classifyFlow(bbr2Flow, shipped).label).toBe('BBRv2');
  });

  it('withholds a fused Vegas whose profiles all kept no queue, not one a profile with the queue backs', () => {
    const bbr2 = classifyFlow(bbr2Flow, model);
    const vegas = classifyFlow(toSeries(entries.find((e) => e.origin === 'tcp-vegas')!), model);
    const asVegas = (v: typeof bbr2) => ({ ...v, label: 'Vegas', kind: 'cca' as const, confidence: 0.99 });
    expect(fuseProfiles([asVegas(bbr2), asVegas(bbr2)]).reason).toMatch(/Vegas keeps 2-4 packets queued/);
    expect(fuseProfiles([asVegas(bbr2), vegas]).reason).not.toMatch(/Vegas keeps 2-4 packets queued/);
  });

  it('still names the Vegas flow Vegas, calibrated', () => {
    const { traces } = classifyEntries(entries.filter((e) => e.origin === 'tcp-vegas'), shipped);
    expect(traces.map((t) => t.predicted)).toEqual(['Vegas']);
  });
});

describe('kernel Veno filling the buffer behind both Nebby profiles, shipped model', () => {
  // Held-out round AN (session 60): 450 kbit/s, 140 ms away; read Vegas at 1.00 fused before.
  const flows = labSeriesFlows('veno-buffer-queue.json.gz');
  const model = shippedModel();

  it('is not named Vegas, and says why', () => {
    const verdicts = flows.map((e) => classifyFlow(toSeries(e), model));
    const fused = fuseProfiles(verdicts, { calibration: model.calibration! });
    expect(fused.label).toBe('Unknown');
    expect(fused.reason).toMatch(/in every profile \(8 or more, twice Vegas's beta\): a loss-based sender filling the buffer/);
  });
});
