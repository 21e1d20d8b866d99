import { describe, expect, it } from 'vitest';
import { LossTimeline, lossAt, rebaseCheckpoints } from '../../../src/trace/loss-timeline.js';
import { truncateEntry, truncateSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { traceFile } from '../../../src/trace/index.js';
import { SampleFlag } from '../../../src/trace/tcp-bif.js';

/** 1000 bytes sent every 0.1 s from t=100 s for 10 s, and 1000 lost at every whole second after the start. */
function timeline(): LossTimeline {
  const tl = new LossTimeline(0.5);
  for (let i = 0; i < 100; i++) {
    const t = 100 + i * 0.1;
    tl.onSent(t, 1000);
    if (i % 10 === 5) tl.onLost(t + 0.01, 1000);
  }
  return tl;
}

describe('loss timeline', () => {
  it('checkpoints hold the counts of everything strictly before their time', () => {
    const cps = rebaseCheckpoints(timeline().checkpoints, 100);
    expect(cps.map((c) => c[0])).toEqual([0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5]);
    // Before 0.5 s: sends at 0, 0.1, .., 0.4 (5 of them; 0.5 itself comes after); the loss at 0.51 not yet.
    expect(cps[0]).toEqual([0.5, 5000, 0]);
    expect(cps[1]).toEqual([1, 10000, 1000]);
    expect(cps[18]).toEqual([9.5, 95000, 9000]);
  });

  it('a long silence gives one checkpoint, not one per grid step (a corrupt capture\'s time jump)', () => {
    const tl = new LossTimeline(0.5);
    tl.onSent(0, 1000);
    tl.onLost(0.2, 500);
    tl.onSent(1e9, 1000);
    tl.onSent(1e9 + 0.7, 1000);
    expect(tl.checkpoints).toEqual([[0.5, 1000, 500], [1e9 + 0.5, 2000, 500]]);
    // A cut anywhere in the silence still gets the exact counts.
    expect(lossAt({ sentBytes: 3000, lostBytes: 500, checkpoints: tl.checkpoints }, 5e8, 1e9 + 0.7)).toMatchObject({ sentBytes: 1000, lostBytes: 500 });
  });

  it('a cut recounts at its last checkpoint; a flow over before the cut keeps its totals', () => {
    const loss = { sentBytes: 100000, lostBytes: 10000, checkpoints: rebaseCheckpoints(timeline().checkpoints, 100) };
    expect(lossAt(loss, 3.2, 9.9)).toMatchObject({ sentBytes: 30000, lostBytes: 3000 });
    expect(lossAt(loss, 3.2, 9.9)?.checkpoints).toHaveLength(6);
    expect(lossAt(loss, 20, 9.9)).toMatchObject({ sentBytes: 100000, lostBytes: 10000 });
    // Cut before the first checkpoint: nothing to recount from.
    expect(lossAt(loss, 0.3, 9.9)).toBeNull();
    // Counts kept before checkpoints existed cannot be recounted at all.
    expect(lossAt({ sentBytes: 100000, lostBytes: 10000 }, 5, 9.9)).toBeNull();
  });

  it('truncateSeries and truncateEntry recount the losses at the cut, never from after it', () => {
    const loss = { sentBytes: 100000, lostBytes: 10000, checkpoints: rebaseCheckpoints(timeline().checkpoints, 100) };
    const t = Array.from({ length: 100 }, (_, i) => i * 0.1);
    const bif = t.map(() => 3000);
    const s = truncateSeries({ t: Float64Array.from(t), bif: Float64Array.from(bif), rttSeconds: 0.2, loss }, 5.05);
    expect(s.t.length).toBe(51);
    expect(s.loss).toMatchObject({ sentBytes: 50000, lostBytes: 5000 });
    const e: DatasetEntry = { label: 'NewReno', origin: 'x', protocol: 'tcp', profile: 'p', region: 'r', rep: 0, dir: '/nowhere', rttSeconds: 0.2, t, bif, loss };
    expect(truncateEntry(e, 5.05).loss).toMatchObject({ sentBytes: 50000, lostBytes: 5000 });
    const { checkpoints: _none, ...whole } = loss;
    expect(truncateEntry({ ...e, loss: whole }, 5.05).loss).toBeUndefined();
    expect(truncateSeries({ t: Float64Array.from(t), bif: Float64Array.from(bif), rttSeconds: 0.2, loss: whole }, 5.05).loss).toBeUndefined();
  });

  it('a real TCP capture (lab Reno, nebby-100): checkpoints every 0.5 s from the first data segment, and a cut at 12 s recounts what the samples before it show', async () => {
    const r = await traceFile(new URL('../../fixtures/lab-traces/tcp-reno-nebby-100/capture.pcap', import.meta.url).pathname);
    const f = r.flows.filter((x) => x.kind === 'tcp').sort((a, b) => b.toClient.payloadBytes - a.toClient.payloadBytes)[0];
    const s = f.series!;
    const cps = s.loss!.checkpoints!;
    // Series and checkpoints share one clock: the first checkpoint is 0.5 s after the first data sample.
    expect(cps[0][0]).toBeCloseTo(s.t[0] + 0.5, 3);
    for (let i = 1; i < cps.length; i++) {
      expect(cps[i][0] - cps[i - 1][0]).toBeCloseTo(0.5, 3); // a bulk transfer leaves no gap
      expect(cps[i][1]).toBeGreaterThanOrEqual(cps[i - 1][1]);
      expect(cps[i][2]).toBeGreaterThanOrEqual(cps[i - 1][2]);
    }
    const end = s.t[s.t.length - 1];
    expect(end).toBeGreaterThan(20);
    expect(s.loss!.lostBytes).toBeGreaterThan(0);
    // Recounted independently from the per-sample flags: each data sample is one segment sent,
    // each retransmission sample one segment resent. A loss is counted when the ACK covering its
    // retransmission arrives (only then is it known to have been waited for: SACK on, here every
    // one was), so the cut holds every retransmission sent more than a round trip before it, and
    // none sent after it.
    const cut = truncateSeries(s, 12).loss!;
    const at = cut.checkpoints!.at(-1)![0];
    expect(at).toBeLessThanOrEqual(12);
    expect(at).toBeGreaterThan(11.4);
    let sent = 0;
    let lost = 0;
    let lostRoundTripBefore = 0;
    const rtt = f.rtt.medianSeconds;
    for (let i = 0; i < s.t.length && s.t[i] < at; i++) {
      if (f.sampleFlags![i] & SampleFlag.dataSend) sent++;
      if (f.sampleFlags![i] & SampleFlag.retransmission) {
        lost++;
        if (s.t[i] < at - 1.5 * rtt) lostRoundTripBefore++;
      }
    }
    const mss = f.tcp!.server.mss;
    expect(f.tcp!.server.neededRetransmittedBytes).toBe(f.tcp!.server.retransmittedBytes);
    expect(lostRoundTripBefore).toBeGreaterThan(0);
    expect(cut.lostBytes).toBeGreaterThanOrEqual(lostRoundTripBefore * mss);
    expect(cut.lostBytes).toBeLessThanOrEqual(lost * mss);
    // Sent: a few segments are shorter than the MSS.
    expect(Math.abs(cut.sentBytes - sent * mss) / cut.sentBytes).toBeLessThan(0.01);
    expect(cut.lostBytes).toBeLessThan(s.loss!.lostBytes);
  });
});
