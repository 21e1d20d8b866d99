// QUIC BiF validation aligned by the server's datagram counters (compareBifByCounters): loss-timer
// steps of the replay count by time, but never past the first client datagram the server had not
// processed yet. Lives beside the QUIC replay tests because it is how the replay
// (src/trace/quic/recovery.ts) is judged against the server.
import { describe, expect, it } from 'vitest';
import { compareBifByCounters, type CaptureDatagrams } from '../../../src/validate/bif-accuracy.js';

const DATA = 16;
const TIMER = 64;

// Capture: server datagrams of 1000 B at 1.000-1.003 (4000 in flight); client ACK datagrams
// (100 B) at 1.100 (acks one packet) and 1.200 (its ACK makes the replay's loss timer for another
// packet due at 1.250); the timer step at 1.250 removes 1000; one more packet at 1.400.
const est = {
  t: [1.0, 1.001, 1.002, 1.003, 1.1, 1.2, 1.25, 1.4],
  bytes: [1000, 2000, 3000, 4000, 3000, 2000, 1000, 2000],
  flags: [DATA, DATA, DATA, DATA, 0, 0, TIMER, DATA],
};
const dgrams: CaptureDatagrams = {
  serverT: [1.0, 1.001, 1.002, 1.003, 1.4],
  serverBytes: [1000, 1000, 1000, 1000, 1000],
  clientT: [1.1, 1.2],
  clientBytes: [100, 100],
};

describe('compareBifByCounters: loss-timer steps', () => {
  it('counts a timer loss when the server had processed every datagram seen before it', () => {
    // Sample at server time 1.300 (capture 1.295 after the 5 ms shift); both ACK datagrams received.
    const truth = { t: [1.3], bytes: [1000], counters: { txBytes: [4000], rxBytes: [200] } };
    const r = compareBifByCounters(est, truth, dgrams, { shiftSeconds: 0.005, floorBytes: 500 });
    expect(r.samples).toBe(1);
    expect(r.meanSignedError).toBe(0);
  });

  it('not when the server was behind on its input: a stalled server fires no timers either', () => {
    // Same sample time, but the server (a busy host: event loop held up) had read only the first
    // ACK datagram. Its view: 3000 in flight; the replay's timer rests on the unread second ACK.
    const truth = { t: [1.3], bytes: [3000], counters: { txBytes: [4000], rxBytes: [100] } };
    const r = compareBifByCounters(est, truth, dgrams, { shiftSeconds: 0.005, floorBytes: 500 });
    expect(r.samples).toBe(1);
    expect(r.meanSignedError).toBe(0); // was -1000 when the timer step counted by time alone
    expect(r.within).toBe(1);
  });
});
