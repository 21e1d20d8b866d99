import { describe, expect, it } from 'vitest';
import { checkEnvelope, fitEnvelope, upstreamLossAgainstWindow, VERDICT_INSIDE_SCALES } from '../../../src/classify/envelope.js';
import type { FlowConditions } from '../../../src/trace/types.js';

const lab = (o: Partial<FlowConditions> = {}): FlowConditions => ({
  transport: 'tcp', segmentBytes: 88, sack: true, rttSeconds: 0.25, minRttSeconds: 0.1, serverSideRttSeconds: 0.01, clientSideRttSeconds: 0.1,
  visibleShare: 0.9, deliveryKbit: 114, bdpPackets: 16, reorderShare: 0, upstreamLossShare: 0, needlessResendShare: 0, ...o,
});

describe('the conditions envelope', () => {
  const env = fitEnvelope([lab(), lab({ minRttSeconds: 0.2, bdpPackets: 32, visibleShare: 0.95 }), lab({ sack: false }), lab({ transport: 'quic', segmentBytes: 1300, sack: true, bdpPackets: 2, reorderShare: null, upstreamLossShare: null, needlessResendShare: null })]);

  it('holds flows near a training flow on every axis at once', () => {
    expect(checkEnvelope(env, lab({ bdpPackets: 20 })).inside).toBe(true);
    expect(checkEnvelope(env, lab({ sack: false, minRttSeconds: 0.15 })).inside).toBe(true);
  });

  it('shuts out a flow far on one axis, and says which axis and what training covered', () => {
    const c = checkEnvelope(env, lab({ segmentBytes: 1448 }));
    expect(c.inside).toBe(false);
    expect(c.reason).toMatch(/segment size 1448 bytes \(trained 88 bytes\)/);
    expect(checkEnvelope(env, lab({ minRttSeconds: 0.02 })).reason).toMatch(/minimum RTT 20 ms/);
    expect(checkEnvelope(env, lab({ visibleShare: 0.3 })).inside).toBe(false);
  });

  it('names the nearest training conditions when a value inside the trained range is far in combination', () => {
    // SACK on trained at 4 and 64 segments, SACK off at 24 only: SACK off at 64 is inside the
    // BDP range training covered, yet unlike any training flow.
    const combos = fitEnvelope([lab({ bdpPackets: 4 }), lab({ bdpPackets: 64 }), lab({ sack: false, bdpPackets: 24 })]);
    const c = checkEnvelope(combos, lab({ sack: false, bdpPackets: 64 }));
    expect(c.inside).toBe(false);
    expect(c.reason).toMatch(/BDP 64 segments \(nearest trained conditions: 24 segments; trained 4 segments-64 segments in all, not with this flow's other conditions\)/);
    expect(checkEnvelope(combos, lab({ sack: false, bdpPackets: 4 })).reason).toMatch(/SACK off \(trained with both, not with this flow's other conditions\)/);
    expect(checkEnvelope(combos, lab({ bdpPackets: 256 })).reason).toMatch(/BDP 256 segments \(nearest trained conditions: 64 segments; trained 4 segments-64 segments\)$/);
  });

  it('a verdict\'s own check admits 2.8 times the nearest BDP, reporting the distance in the axis\'s own units', () => {
    // Trained at 16 and 32 segments: 80 is 2.5 times the nearest, 100 is 3.1 times.
    const at80 = checkEnvelope(env, lab({ minRttSeconds: 0.2, bdpPackets: 80, visibleShare: 0.95 }), [], VERDICT_INSIDE_SCALES);
    expect(at80.inside).toBe(true);
    expect(at80.reason).toBeNull();
    expect(at80.distance).toBeCloseTo(Math.log2(80 / 32), 3);
    expect(checkEnvelope(env, lab({ minRttSeconds: 0.2, bdpPackets: 80, visibleShare: 0.95 })).inside).toBe(false);
    const at100 = checkEnvelope(env, lab({ minRttSeconds: 0.2, bdpPackets: 100, visibleShare: 0.95 }), [], VERDICT_INSIDE_SCALES);
    expect(at100.inside).toBe(false);
    expect(at100.reason).toMatch(/BDP 100 segments \(nearest trained conditions: 32 segments/);
    // Outside for another axis, the reason names that axis, not a BDP within 2.8 times.
    const rttFar = checkEnvelope(env, lab({ minRttSeconds: 0.5, bdpPackets: 80, visibleShare: 0.95 }), [], VERDICT_INSIDE_SCALES);
    expect(rttFar.inside).toBe(false);
    expect(rttFar.reason).toMatch(/minimum RTT 500 ms/);
    expect(rttFar.reason).not.toMatch(/BDP/);
    // Only the BDP axis is widened: the minimum RTT still holds at a factor of 2.
    expect(checkEnvelope(env, lab({ minRttSeconds: 0.5, bdpPackets: 32, visibleShare: 0.95 }), [], VERDICT_INSIDE_SCALES).inside).toBe(false);
  });

  it('holds reordering and loss against a flow only above what training saw', () => {
    expect(checkEnvelope(env, lab({ reorderShare: 0.005 })).inside).toBe(true);
    expect(checkEnvelope(env, lab({ reorderShare: 0.05 })).inside).toBe(false);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.03 })).reason).toMatch(/loss before the capture point/);
    // Loss on the server's side counts against the loss a one-BDP window meets on its own
    // (1.5 / BDP^2 of segments); half that is one unit (session 44).
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.0028 })).inside).toBe(true);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.0030 })).inside).toBe(false);
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.003 })).reason).toMatch(/loss before the capture point 0\.51 times the loss rate a one-BDP window meets on its own \(trained up to 0\.00 times/);
    // The same 0.1% of bytes is light for a 16-segment window, heavy for a 32-segment one.
    expect(checkEnvelope(env, lab({ upstreamLossShare: 0.001 })).inside).toBe(true);
    expect(checkEnvelope(env, lab({ minRttSeconds: 0.2, bdpPackets: 32, visibleShare: 0.95, upstreamLossShare: 0.001 })).inside).toBe(false);
    expect(checkEnvelope(env, lab({ minRttSeconds: 0.2, bdpPackets: 32, visibleShare: 0.95, upstreamLossShare: 0.0007 })).inside).toBe(true);
    expect(upstreamLossAgainstWindow({ upstreamLossShare: 0.001, bdpPackets: 50 })).toBeCloseTo(1.667, 3);
    expect(upstreamLossAgainstWindow({ upstreamLossShare: 0.001, bdpPackets: null })).toBeCloseTo(0.5, 6);
  });

  it('an upper-only value under the largest trained one is far only in combination, and says so', () => {
    // Needless resends trained at 95% only with a 256-segment BDP: 25% at 16 segments is under
    // what training saw in all, yet far from the 16-segment training flow (0%).
    const combos = fitEnvelope([lab(), lab({ bdpPackets: 256, needlessResendShare: 0.95 })]);
    const c = checkEnvelope(combos, lab({ needlessResendShare: 0.25 }));
    expect(c.inside).toBe(false);
    expect(c.reason).toMatch(/needless resends 25\.0% of resends \(nearest trained conditions: 0\.0% of resends; trained up to 95\.0% of resends in all, not with this flow's other conditions\)/);
    expect(checkEnvelope(combos, lab({ needlessResendShare: 0.99, bdpPackets: 256 })).inside).toBe(true);
    expect(checkEnvelope(combos, lab({ reorderShare: 0.3 })).reason).toMatch(/reordering 30\.0% of packets \(trained up to 0\.0% of packets\)$/);
  });

  it('when one axis is far from every training flow, the reason names the other axes of the flow nearest on them only', () => {
    // Reordering at 20% is 20 units from both training flows; the first is also far on BDP, the
    // second is not: the reason must not blame the BDP.
    const two = fitEnvelope([lab({ bdpPackets: 4 }), lab({ bdpPackets: 20 })]);
    const c = checkEnvelope(two, lab({ bdpPackets: 20, reorderShare: 0.2 }));
    expect(c.inside).toBe(false);
    expect(c.reason).toMatch(/reordering 20\.0% of packets/);
    expect(c.reason).not.toMatch(/BDP/);
  });

  it('judges a flow against its own transport, and skips what the capture could not measure', () => {
    expect(checkEnvelope(env, lab({ transport: 'quic', segmentBytes: 1250, bdpPackets: 2.2, reorderShare: null, upstreamLossShare: null, needlessResendShare: null })).inside).toBe(true);
    expect(checkEnvelope(env, lab({ transport: 'quic', segmentBytes: 88 })).inside).toBe(false);
    expect(checkEnvelope(env, lab({ visibleShare: null, bdpPackets: null })).inside).toBe(true);
  });

  it('a QUIC flow read by Nebby\'s heuristic (no key log) is outside a model learned from exact bytes in flight', () => {
    const exact = fitEnvelope([lab({ transport: 'quic', segmentBytes: 1300, bdpPackets: 2, reorderShare: null, upstreamLossShare: null, needlessResendShare: null, bifMethod: 'exact' })]);
    const c = checkEnvelope(exact, lab({ transport: 'quic', segmentBytes: 1300, bdpPackets: 2, reorderShare: null, upstreamLossShare: null, needlessResendShare: null, bifMethod: 'estimated' }));
    expect(c.inside).toBe(false);
    expect(c.reason).toMatch(/bytes in flight estimated \(no keys\) \(trained exact\)/);
  });

  it('a model or a flow without conditions is not judged by them', () => {
    expect(checkEnvelope(undefined, lab()).inside).toBe(true);
    expect(checkEnvelope(env, undefined).inside).toBe(true);
  });
});
