/**
 * Back-offs read against the queue the flow held at its peaks (classify/backoffQueue.ts): Veno
 * halves under a queue of 3 packets or more and keeps 4/5 only without one (venoWithheld), and a
 * back-off's depth is read only under a queue (depthWithoutQueueWithheld). Committed traces
 * (tests/fixtures/lab-series/backoff-queue.json.gz): kernel NV, which keeps 0.8 on any loss,
 * behind `video` 120 ms away and under nebby-50 60 ms away (session 47's open-set rounds), both
 * named Veno before; lab Veno and HSTCP behind a 1-BDP `video` buffer 90 ms away (session 49's
 * round J), with no queue at their peaks, where HSTCP read Veno at 0.93.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { depthWithoutQueueWithheld, venoWithheld } from '../../../src/classify/backoffQueue.js';
import { signatureNotShown } from '../../../src/classify/fusion.js';
import { loadDataset, toSeries } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/lab-series/${name}`, import.meta.url));

const window = (beta: number, queued: number, pathBdp = 27, backoffs = 2, transport = 'tcp') =>
  ({ 'loss-based': { senderWindow: { beta, peakPackets: pathBdp + queued, backoffs, transport, pathBdpPackets: pathBdp, queuedAtPeakPackets: queued } } });

describe('venoWithheld', () => {
  it('withholds Veno when a profile kept far more than half the window under a queue', () => {
    expect(venoWithheld('Veno', [window(0.49, 24), window(0.8, 24.5, 27.5, 3)]))
      .toMatch(/kept 0\.80 of the window, its peak 24\.5 packets from a 28-packet path BDP \(median of 3\).*Veno not shown/);
    // A queue counts above Veno's beta (3 packets) plus a quarter of the path's BDP (9.75 here).
    expect(venoWithheld('Veno', [window(0.7, 9.8)])).not.toBeNull();
    expect(venoWithheld('Veno', [window(0.7, 9.7)])).toBeNull();
  });

  it('does not itself withhold on halving under a queue, nor on 4/5 with no queue seen (Veno\'s random-loss branch)', () => {
    expect(venoWithheld('Veno', [window(0.49, 33), window(0.65, 40)])).toBeNull();
    expect(venoWithheld('Veno', [window(0.75, 0.2, 24)])).toBeNull();
    expect(venoWithheld('Veno', [window(0.8, -4)])).toBeNull();
    // ... though no queue seen anywhere withholds it by the depth rule: its depth is not read there.
    expect(signatureNotShown('Veno', [window(0.75, 0.2, 24)])).toMatch(/no queue was seen/);
    expect(signatureNotShown('Veno', [window(0.75, 0.2, 24), window(0.49, 33)])).toBeNull();
  });

  it('says nothing without a queue reading, a back-off or a TCP flow', () => {
    const noQueue = { 'loss-based': { senderWindow: { beta: 0.8, peakPackets: 60, backoffs: 3, transport: 'tcp' } } };
    expect(venoWithheld('Veno', [noQueue, undefined, {}])).toBeNull();
    expect(venoWithheld('Veno', [window(0.8, 30, 27, 0)])).toBeNull();
    expect(venoWithheld('Veno', [window(0.8, 30, 27, 3, 'quic')])).toBeNull();
  });

  it('is about Veno only', () => {
    expect(venoWithheld('Illinois', [window(0.8, 30)])).toBeNull();
  });
});

describe('depthWithoutQueueWithheld', () => {
  it('withholds an answer told by back-off depth when every profile backed off with no queue', () => {
    for (const label of ['NewReno', 'HSTCP', 'Veno', 'Illinois', 'Scalable']) {
      expect(depthWithoutQueueWithheld(label, [window(0.68, 0.9, 24, 33), window(0.76, -1.8, 25, 7)]))
        .toMatch(new RegExp(`no queue was seen at their peaks \\(kept 0\\.68 of the window, its peak 0\\.9 packets from a 24-packet.*; 0\\.76 .*${label} not shown`));
    }
    expect(depthWithoutQueueWithheld('Veno', [window(0.5, 9.7)])).not.toBeNull();
  });

  it('lets the answer stand when some profile backed off under a queue, or none was read', () => {
    expect(depthWithoutQueueWithheld('Veno', [window(0.7, 1), window(0.49, 9.8)])).toBeNull();
    expect(depthWithoutQueueWithheld('NewReno', [undefined, {}])).toBeNull();
    expect(depthWithoutQueueWithheld('NewReno', [window(0.7, 1, 24, 3, 'quic')])).toBeNull();
    // A profile whose back-offs were read without a queue reading (no BDP measured) leaves "every profile" unknown.
    const unread = { 'loss-based': { senderWindow: { beta: 0.49, peakPackets: 60, backoffs: 2, transport: 'tcp' } } };
    expect(depthWithoutQueueWithheld('NewReno', [window(0.7, 1), unread])).toBeNull();
  });

  it('leaves controllers told otherwise alone (Westwood backs off to the BDP by design)', () => {
    for (const label of ['Westwood', 'CUBIC', 'BIC', 'BBRv1', 'Copa', 'Vegas']) expect(depthWithoutQueueWithheld(label, [window(0.7, 0)])).toBeNull();
  });
});

describe('kernel NV, lab Veno and HSTCP, far away', () => {
  const model = shippedModel();
  const { entries } = loadDataset(fixture('backoff-queue.json.gz'));
  const judged = entries.map((e) => ({ e, v: classifyFlow(toSeries(e), model) }));
  const of = (origin: string, profile: string) => judged.find((j) => j.e.origin === origin && j.e.profile === profile)!.v;
  const windowOf = (v: ReturnType<typeof of>) =>
    (v.evidence?.classifiers?.['loss-based'] as { senderWindow: { beta: number; queuedAtPeakPackets: number; pathBdpPackets: number } }).senderWindow;

  it('does not name NV Veno: it kept 0.8 of windows 25-32 packets above the path BDP', () => {
    for (const profile of ['video', 'nebby-50']) {
      const v = of('tcp-nv', profile);
      expect(v.label).toBe('Unknown');
      expect(v.reason).toMatch(/not Veno's response: back-offs kept 0\.(79|8\d) of the window, its peak (2[4-9]|3[0-3])\.\d packets from/);
      expect(fuseProfiles([v], { calibration: model.calibration }).label).not.toBe('Veno');
    }
  });

  it('does not name HSTCP Veno from back-offs that came with no queue', () => {
    const v = of('tcp-highspeed', 'video');
    expect(Math.abs(windowOf(v).queuedAtPeakPackets)).toBeLessThan(3);
    expect(v.label).toBe('Unknown');
    expect(v.reason).toMatch(/back-offs read only where no queue was seen at their peaks.*Veno not shown/);
    expect(fuseProfiles([v], { calibration: model.calibration }).label).toBe('Unknown');
  });

  it('reads the path BDP from the delivery rate over the whole round trip', () => {
    // `video` is 1.5 Mbit/s; 90 ms beyond the capture plus the profile's own delay: 24 packets of 1448 bytes.
    const w = windowOf(of('tcp-veno', 'video'));
    expect(w.pathBdpPackets).toBeGreaterThan(20);
    expect(w.pathBdpPackets).toBeLessThan(28);
    expect(w.beta).toBeGreaterThan(0.65);
    expect(venoWithheld('Veno', [of('tcp-veno', 'video').evidence?.classifiers])).toBeNull();
  });

  it('still names lab Veno that halved under a queue (committed quiet-host round)', () => {
    const quiet = loadDataset(fixture('fresh-near-quiet.json.gz')).entries.filter((e) => e.origin === 'tcp-veno');
    const judgedQuiet = quiet.map((e) => classifyFlow(toSeries(e), model));
    expect(judgedQuiet.map((v) => v.label)).toEqual(quiet.map(() => 'Veno'));
    // Halved with a queue above the bar (3 packets + a quarter of the path's BDP) at its peaks.
    const read = judgedQuiet.map((v) => (v.evidence?.classifiers?.['loss-based'] as { senderWindow?: { beta: number; queuedAtPeakPackets: number; pathBdpPackets: number } }).senderWindow)
      .filter((w) => w !== undefined);
    expect(read.length).toBeGreaterThanOrEqual(1);
    for (const w of read) {
      expect(w!.beta).toBeLessThan(0.55);
      expect(w!.queuedAtPeakPackets).toBeGreaterThan(3 + 0.25 * w!.pathBdpPackets);
    }
  });
});
