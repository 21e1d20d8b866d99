/**
 * A controller told by its response to loss is not named from a flow that lost nothing and never
 * backed off after start-up, nor from one that backed off while it lost and resent nothing
 * (lossResponse.ts). The fixtures: lab Copa behind `video` 30 ms away (held-out hd-video-30),
 * which read Illinois at 1.00 before the first rule, and lab Illinois behind `video` (a training
 * round), which loses ~1.2% and backs off, and keeps its answer; lab Copa behind `video` 125 ms
 * away (held-out hd-video-125j2), which backed off three times with nothing lost or resent and read
 * Illinois (raw 1.00, calibrated 0.86-0.96), and lab Illinois and Westwood behind `video` 100 ms
 * away (h-video-100j2), which lost and backed off.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { lossResponseWithheld } from '../../../src/classify/lossResponse.js';
import type { JsonObject } from '../../../src/classify/json.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const flows = labSeriesFlows('no-loss-response.json.gz');
const flow = (label: string) => flows.find((f) => f.label === label)!;
const look = (lostBytes: number | null, backoffsPer100Rtt: number | null, resentPackets: number | null = null): Record<string, JsonObject> => ({
  'loss-based': { lostBytes, resentPackets, descriptor: { backoffsPer100Rtt } },
});
const farFlows = labSeriesFlows('delay-backoffs.json.gz');

describe('no loss response, no loss-defined answer', () => {
  it('withholds a loss-defined controller only when every profile lost nothing and never backed off', () => {
    expect(lossResponseWithheld('Illinois', [look(0, 0)])).toMatch(/Illinois is told by its response to loss/);
    expect(lossResponseWithheld('Illinois', [look(0, 0), look(0, 0)])).not.toBeNull();
    expect(lossResponseWithheld('Illinois', [look(0, 0), look(1448, 0)])).toBeNull();
    expect(lossResponseWithheld('Illinois', [look(0, 1.2)])).toBeNull();
    // Loss not counted (a trace without loss counts): nothing to hold against the answer.
    expect(lossResponseWithheld('Illinois', [look(null, 0)])).toBeNull();
    // Delay- and model-based controllers: an unlossy flat shape is their signature.
    expect(lossResponseWithheld('Vegas', [look(0, 0)])).toBeNull();
    expect(lossResponseWithheld('BBRv1', [look(0, 0)])).toBeNull();
  });

  it('withholds one that backed off only when every profile lost and resent nothing', () => {
    expect(lossResponseWithheld('Illinois', [look(0, 1.4, 0)])).toMatch(/Illinois backs off on loss, and the flow backed off while it lost and resent nothing/);
    expect(lossResponseWithheld('Illinois', [look(0, 0, 0), look(0, 1.4, 0)])).toMatch(/backed off while it lost and resent nothing/);
    // A resend keeps the answer: one that was no loss (spurious, go-back-N) moves a loss-based
    // window too, and one a cut or growing trace has not yet resolved as a loss is a loss to come.
    expect(lossResponseWithheld('Illinois', [look(0, 1.4, 1)])).toBeNull();
    expect(lossResponseWithheld('Illinois', [look(0, 1.4, 0), look(0, 2, 3)])).toBeNull();
    // Resends not counted (QUIC, older traces): nothing to hold against the answer.
    expect(lossResponseWithheld('Illinois', [look(0, 1.4)])).toBeNull();
    expect(lossResponseWithheld('Illinois', [look(0, 1.4, 0), look(1448, 2, 0)])).toBeNull();
    expect(lossResponseWithheld('Copa', [look(0, 1.4, 0)])).toBeNull();
    expect(lossResponseWithheld('BBRv3', [look(0, 6, 0)])).toBeNull();
  });

  const model = shippedModel();

  it('lab Copa behind video, which lost nothing, is not Illinois; alone or fused', () => {
    const copa = toSeries(flow('Copa'));
    expect(copa.loss!.lostBytes).toBe(0);
    const v = classifyFlow(copa, model);
    expect(v.label).not.toBe('Illinois');
    // Illinois before session 42's far groups, Veno since: both told by their response to loss.
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/(Illinois|Veno) is told by its response to loss.*the learned shape said (Illinois|Veno)/);
    const fused = fuseProfiles([v], { calibration: model.calibration });
    expect(fused.label).toBe('Unknown');
  });

  it('lab Illinois behind video, which loses and backs off, stays Illinois', () => {
    const illinois = toSeries(flow('Illinois'));
    expect(illinois.loss!.lostBytes).toBeGreaterThan(0);
    expect(classifyFlow(illinois, model).label).toBe('Illinois');
    expect(fuseProfiles([classifyFlow(illinois, model)], { calibration: model.calibration }).label).toBe('Illinois');
  });

  it('lab Copa behind video 125 ms away, which backed off with nothing lost or resent, is not named a loss-based controller', () => {
    const copas = farFlows.filter((f) => f.label === 'Copa');
    expect(copas.length).toBeGreaterThan(0);
    for (const f of copas) {
      const s = toSeries(f);
      expect(s.loss!.lostBytes).toBe(0);
      expect(s.conditions!.resentPackets).toBe(0);
      const v = classifyFlow(s, model);
      expect(v.label).toBe('Unknown');
      expect(v.reason).toMatch(/backs off on loss, and the flow backed off while it lost and resent nothing.*the learned shape said/);
      expect(fuseProfiles([v], { calibration: model.calibration }).label).toBe('Unknown');
    }
  });

  it('lab Illinois and Westwood behind video 100 ms away, which lost and backed off, keep their answers', () => {
    for (const label of ['Illinois', 'Westwood']) {
      const f = farFlows.find((x) => x.label === label)!;
      const s = toSeries(f);
      expect(s.loss!.lostBytes).toBeGreaterThan(0);
      expect(fuseProfiles([classifyFlow(s, model)], { calibration: model.calibration }).label).toBe(label);
    }
  });

  it('a trace whose losses are not yet booked (a cut, a growing trace) keeps a loss-based answer: its resends were counted as they passed', () => {
    const s = toSeries(farFlows.find((x) => x.label === 'Illinois')!);
    expect(s.conditions!.resentPackets).toBeGreaterThan(0);
    const unbooked = { ...s, loss: { sentBytes: s.loss!.sentBytes, lostBytes: 0 } };
    const explained = classifyFlow(unbooked, model).evidence!.classifiers;
    expect(explained['loss-based'].lostBytes).toBe(0);
    expect(lossResponseWithheld('Illinois', [explained])).toBeNull();
    // The same evidence with nothing resent would be withheld.
    expect(lossResponseWithheld('Illinois', [{ ...explained, 'loss-based': { ...explained['loss-based'], resentPackets: 0 } }])).toMatch(/lost and resent nothing/);
  });
});
