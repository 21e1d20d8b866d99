/**
 * `ccbrowse classify` on a probe run directory uses what the probe recorded: its key log (exact
 * QUIC bytes in flight and loss counts), its client address and profile. A bare capture without
 * a key log falls back to the keyless method and reports no loss share. Runs on the committed
 * quinn-cubic capture (tests/fixtures/quic-keylog/), without the lab.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureInputs, classifyCapture } from '../../src/cli/classifyCapture.js';
import { SHIPPED_MODEL_PATH } from '../unit/classify/shippedModel.js';

const DIR = join(import.meta.dirname, '../fixtures/quic-keylog/quinn-cubic-nebby-50');

describe('classify a capture or a probe run directory', () => {
  it('a run directory brings its own key log, client address and profile', () => {
    const i = captureInputs(DIR, { model: SHIPPED_MODEL_PATH });
    expect(i.pcap).toBe(join(DIR, 'capture.pcap'));
    expect(i.keylog).toBe(join(DIR, 'keylog.txt'));
    expect(i.clientIps?.length).toBe(1);
    expect(i.bottleneck).toBeDefined();
  });

  it('with it the QUIC flow is exact and carries its loss share (quinn counted 11 lost packets of ~70)', async () => {
    const r = await classifyCapture(DIR, { model: SHIPPED_MODEL_PATH });
    const quic = r.flows.filter((f) => f.protocol === 'quic').sort((a, b) => b.bytes - a.bytes)[0];
    expect(quic.bifMethod).toBe('quic-keylog-exact');
    expect(quic.lossShare).toBeGreaterThan(0.1);
    expect(quic.lossShare).toBeLessThan(0.35);
  });

  it('the bare capture without a key log: keyless bytes in flight, loss share unknown', async () => {
    const r = await classifyCapture(join(DIR, 'capture.pcap'), { model: SHIPPED_MODEL_PATH });
    const quic = r.flows.filter((f) => f.protocol === 'quic').sort((a, b) => b.bytes - a.bytes)[0];
    expect(quic.bifMethod).not.toBe('quic-keylog-exact');
    expect(quic.lossShare).toBeNull();
    expect(r.keylog).toBeNull();
  });
});
