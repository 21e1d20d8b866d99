/**
 * A controller told by its response to loss is not named from a flow that lost nothing and never
 * backed off after start-up (lossResponse.ts). The fixture: lab Copa behind `video` 30 ms away
 * (held-out hd-video-30), which read Illinois at 1.00 before the rule, and lab Illinois behind
 * `video` (a training round), which loses ~1.2% and backs off, and keeps its answer.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { lossResponseWithheld } from '../../../src/classify/lossResponse.js';
import type { JsonObject } from '../../../src/classify/json.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/no-loss-response.json.gz', import.meta.url);
const flows = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { flows: Array<DatasetEntry & { profile: string }> }).flows;
const flow = (label: string) => flows.find((f) => f.label === label)!;
const look = (lostBytes: number | null, backoffsPer100Rtt: number | null): Record<string, JsonObject> => ({
  'loss-based': { lostBytes, descriptor: { backoffsPer100Rtt } },
});

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
});
