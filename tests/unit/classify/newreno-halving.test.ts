/**
 * NewReno halves its window at every back-off (classify/hstcp.ts newRenoWithheld): a TCP flow
 * whose whole-window back-offs above 38 packets keep more than that is not named NewReno, however
 * its learned shape leans. Committed traces: lab kernel HSTCP and NewReno with no delayed ACKs,
 * 110 ms beyond the capture point with 2 ms jitter, both Nebby profiles (labs/grid-heldout.ts
 * `h-quickack-110j2`, session 49's round I), where HSTCP under nebby-50 read NewReno at 0.97.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { newRenoWithheld } from '../../../src/classify/hstcp.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const { entries } = loadDataset(fileURLToPath(new URL('../../fixtures/lab-series/hstcp-quickack-110j2.json.gz', import.meta.url)));

const window = (beta: number, peakPackets: number, transport: 'tcp' | 'quic' = 'tcp', backoffs = 3) =>
  ({ 'loss-based': { senderWindow: { beta, peakPackets, backoffs, hiddenPathAdded: true, transport } } });

describe('newRenoWithheld', () => {
  it('withholds NewReno when some TCP profile kept more than half of a window above 38 packets', () => {
    expect(newRenoWithheld('NewReno', [window(0.49, 60), window(0.564, 68)])).toMatch(/kept 0\.56 of a 68-packet window \(median of 3\).*NewReno not shown/);
    expect(newRenoWithheld('NewReno', [window(0.54, 38)])).not.toBeNull();
  });

  it('needs two back-offs: one is too noisy to withhold an answer on', () => {
    expect(newRenoWithheld('NewReno', [window(0.6, 60, 'tcp', 1)])).toBeNull();
    expect(newRenoWithheld('NewReno', [window(0.6, 60, 'tcp', 2)])).not.toBeNull();
  });

  it('lets NewReno stand on halving, on small windows (where HSTCP is NewReno) and on QUIC', () => {
    expect(newRenoWithheld('NewReno', [window(0.51, 60), window(0.49, 110), window(0.53, 60)])).toBeNull();
    expect(newRenoWithheld('NewReno', [window(0.6, 37.9)])).toBeNull();
    expect(newRenoWithheld('NewReno', [window(0.6, 30)])).toBeNull();
    expect(newRenoWithheld('NewReno', [window(0.62, 82, 'quic')])).toBeNull();
    expect(newRenoWithheld('NewReno', [undefined, {}])).toBeNull();
  });

  it('is about NewReno only', () => {
    expect(newRenoWithheld('CUBIC', [window(0.7, 60)])).toBeNull();
  });
});

describe('lab HSTCP and NewReno with no delayed ACKs, 110 ms away', () => {
  const model = shippedModel();
  const judged = entries.map((e) => ({ e, v: classifyFlow(toSeries(e), model) }));
  const of = (origin: string, profile: string) => judged.find((j) => j.e.origin === origin && j.e.profile === profile)!.v;

  it('does not name HSTCP NewReno, though its nebby-50 shape does', () => {
    const v = of('tcp-highspeed', 'nebby-50');
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/not NewReno's halving: back-offs kept 0\.56 of a \d+-packet window/);
    const hs = judged.filter((j) => j.e.origin === 'tcp-highspeed').map((j) => j.v);
    for (const one of hs) expect(fuseProfiles([one], { calibration: model.calibration }).label).not.toBe('NewReno');
    expect(fuseProfiles(hs, { calibration: model.calibration }).label).not.toBe('NewReno');
  });

  it('still names lab NewReno, whose back-offs halve', () => {
    // The rule itself is silent on both of its profiles, whatever their shapes say.
    const reno = judged.filter((j) => j.e.origin === 'tcp-reno').map((j) => j.v);
    expect(reno).toHaveLength(2);
    expect(newRenoWithheld('NewReno', reno.map((r) => r.evidence?.classifiers))).toBeNull();
    const v = of('tcp-reno', 'nebby-100');
    expect(v.label).toBe('NewReno');
    expect(fuseProfiles([v], { calibration: model.calibration }).label).toBe('NewReno');
  });
});
