/**
 * The learned model judges a flow against the classes trained on its own transport: a lab QUIC
 * class measures no growth per RTT or segment fits (quinn's steps are too fine), so it would
 * admit any TCP flow on those features (held out of training, TCP H-TCP fell into QUIC NewReno).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyFlow } from '../../../src/classify/index.js';
import { toSeries, type DatasetEntry } from '../../../src/train/dataset.js';
import { shippedModel } from './shippedModel.js';

const FIXTURE = new URL('../../fixtures/lab-series/fresh-near.json.gz', import.meta.url);
const entries = (JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as { entries: DatasetEntry[] }).entries;
const posteriorOf = (e: DatasetEntry, withTransport = true) => {
  const s = toSeries(e);
  if (!withTransport) delete s.transport;
  return classifyFlow(s, shippedModel()).evidence!.claims.find((c) => c.classifier === 'loss-based')?.posterior ?? {};
};

describe('classes of the flow\'s own transport', () => {
  it('a QUIC flow is weighed against the QUIC classes only (lab: CUBIC, NewReno, and BBRv1 from quinn\'s video flows)', () => {
    const e = entries.find((x) => x.origin === 'quinn-cubic')!;
    expect(toSeries(e).transport).toBe('quic');
    // quinn BBR's Nebby-profile flows are left to the loss-agnostic rule (heavy loss, large
    // window); its `video` flows lose little and have trained a QUIC BBRv1 class (session 32).
    expect(Object.keys(posteriorOf(e)).sort()).toEqual(['BBRv1', 'CUBIC', 'NewReno']);
    // A series that does not say its transport is weighed against every class, as before.
    expect(Object.keys(posteriorOf(e, false))).toContain('HTCP');
  });

  it('a TCP flow is weighed against the 16 TCP classes (the 12 lab controllers, BBRv2/v3, AkamaiCC-like, Copa)', () => {
    const e = entries.find((x) => x.origin === 'tcp-htcp')!;
    expect(Object.keys(posteriorOf(e)).sort()).toEqual(['AkamaiCC-like', 'BBRv1', 'BBRv2', 'BBRv3', 'BIC', 'CUBIC', 'Copa', 'HSTCP', 'HTCP', 'Illinois', 'NewReno', 'Scalable', 'Vegas', 'Veno', 'Westwood', 'YeAH']);
  });
});
