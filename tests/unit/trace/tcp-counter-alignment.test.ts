// TCP BiF validation aligned by the server's tcp_info counters (issue 4): compareTcpBifByCounters
// and readGroundTruth's tcpCounters. Lives beside the TCP BiF tests because it is how the TCP
// estimator (src/trace/tcp-bif.ts) is judged against the sender.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareBif, compareTcpBifByCounters, readGroundTruth, type TcpCaptureSegments } from '../../../src/validate/bif-accuracy.js';

const DATA = 16;
const MSS = 100;

// Capture (shift 5 ms): segments of 100 B at 1.000, 1.010, 1.020, 1.030 (sndMax 400); an ACK for
// 200 at 1.034, a duplicate ACK carrying a SACK block of 100 at 1.036, an ACK for 400 at 1.040,
// one more segment at 1.060.
const est = {
  t: [1.0, 1.01, 1.02, 1.03, 1.034, 1.036, 1.04, 1.06],
  bytes: [100, 200, 300, 400, 200, 100, 0, 100],
  flags: [DATA, DATA, DATA, DATA, 0, 0, 0, DATA],
};
const segs: TcpCaptureSegments = {
  dataT: [1.0, 1.01, 1.02, 1.03, 1.06],
  dataCum: [100, 200, 300, 400, 500],
  ackT: [1.034, 1.04],
  ackCum: [200, 400],
};

describe('compareTcpBifByCounters', () => {
  it('a sample stamped before its counters were read: the time match misses, the counters do not', () => {
    // The sampler took its timestamp at 1.020 but read tcp_info at ~1.027 (preempted): it had sent
    // all 400 bytes (the last segment reached the capture at 1.030) and nothing was acknowledged.
    const truth = { t: [1.02], bytes: [400], tcpCounters: { bytesSent: [400], bytesAcked: [0] } };
    const dataSend = est.flags.map((f) => (f & DATA ? 1 : 0));
    expect(compareBif(est, truth, { shiftSeconds: 0.005, floorBytes: MSS, dataSend }).within).toBe(0); // 300
    const r = compareTcpBifByCounters(est, truth, segs, { shiftSeconds: 0.005, floorBytes: MSS });
    expect(r.samples).toBe(1);
    expect(r.within).toBe(1);
    expect(r.meanSignedError).toBe(0);
  });

  it('ACKs the capture saw but the server had not processed yet are not counted', () => {
    // At 1.050 (time match: every ACK captured by 1.045) the server still had bytes_acked 200:
    // the ACK for 400 was held up between the capture and the sender.
    const truth = { t: [1.05], bytes: [100], tcpCounters: { bytesSent: [400], bytesAcked: [200] } };
    const dataSend = est.flags.map((f) => (f & DATA ? 1 : 0));
    expect(compareBif(est, truth, { shiftSeconds: 0.005, floorBytes: 1, dataSend }).meanSignedError).toBe(-100); // 0
    const r = compareTcpBifByCounters(est, truth, segs, { shiftSeconds: 0.005, floorBytes: 1 });
    expect(r.meanSignedError).toBe(0); // 400 - 200 - 100 SACKed
  });

  it('duplicate ACKs carry no counter: taken by time, between the advancing ACK and the next one', () => {
    // bytes_acked 200: the ACK at 1.034 was processed; the duplicate (SACK) at 1.036 by time.
    const early = { t: [1.04], bytes: [200], tcpCounters: { bytesSent: [400], bytesAcked: [200] } };
    expect(compareTcpBifByCounters(est, early, segs, { shiftSeconds: 0.005, floorBytes: 1 }).meanSignedError).toBe(0); // 1.035: no SACK yet
    const late = { t: [1.042], bytes: [100], tcpCounters: { bytesSent: [400], bytesAcked: [200] } };
    expect(compareTcpBifByCounters(est, late, segs, { shiftSeconds: 0.005, floorBytes: 1 }).meanSignedError).toBe(0); // 1.037: SACK in
    // Stamped early (by time only the segments), but bytes_acked says the ACK at 1.034 was in.
    const stale = { t: [1.01], bytes: [200], tcpCounters: { bytesSent: [400], bytesAcked: [200] } };
    expect(compareTcpBifByCounters(est, stale, segs, { shiftSeconds: 0.005, floorBytes: 1 }).meanSignedError).toBe(0);
  });

  it('a sample whose bytes_sent proves a later read takes the duplicate ACKs up to that read', () => {
    // Stamped 1.030, but it counts the segment the capture saw at 1.060 (sent ~1.055): the SACK
    // at 1.036 was in by then (the ACK for 400 at 1.040 was not: bytes_acked 200).
    const truth = { t: [1.03], bytes: [200], tcpCounters: { bytesSent: [500], bytesAcked: [200] } };
    expect(compareTcpBifByCounters(est, truth, segs, { shiftSeconds: 0.005, floorBytes: 1 }).meanSignedError).toBe(0);
  });

  it('skips samples before the first segment or beyond what the capture holds', () => {
    const truth = {
      t: [0.99, 1.02, 1.03],
      bytes: [0, 300, 600],
      tcpCounters: { bytesSent: [0, 300, 600], bytesAcked: [0, 0, 0] },
    };
    const r = compareTcpBifByCounters(est, truth, segs, { shiftSeconds: 0.005, floorBytes: 1 });
    expect(r.skippedOutside).toBe(2);
    expect(r.samples).toBe(1);
    expect(r.within).toBe(1);
  });
});

describe('readGroundTruth tcpCounters', () => {
  it('keeps tcp_info bytes_sent and bytes_acked per kept line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccb-gt-'));
    const p = join(dir, 'ground-truth.jsonl');
    const line = (t: number, sent: number, acked: number) =>
      JSON.stringify({ t, mss: 88, inflight_bytes: sent - acked, sacked: 0, bytes_sent: sent, bytes_acked: acked });
    writeFileSync(p, [line(2, 880, 176), line(1, 440, 0)].join('\n') + '\n');
    const g = readGroundTruth(p, 'unsacked_bytes');
    expect(g.t).toEqual([1, 2]);
    expect(g.tcpCounters).toEqual({ bytesSent: [440, 880], bytesAcked: [0, 176] });
    writeFileSync(p, JSON.stringify({ t: 1, mss: 88, inflight_bytes: 880, sacked: 0 }) + '\n');
    expect(readGroundTruth(p, 'unsacked_bytes').tcpCounters).toBeUndefined();
  });
});
