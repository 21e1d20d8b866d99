/**
 * The probe's watcher on a real lab capture (tests/fixtures/early-stop: a kernel BBR probe through
 * nebby-50 that `probe --stop-when-stable` ended after 18.6 s, under the grid's base path): one
 * late look at the whole capture judges every checkpoint of the rule's schedule the capture has
 * reached, each on the series cut there, exactly as the offline replay does.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/classify/index.js';
import { replayStopOn, type StopRule } from '../../../src/classify/early-stop.js';
import { growingSeries, stableVerdictWatch } from '../../../src/train/stop-when-stable.js';

const DIR = 'tests/fixtures/early-stop/tcp-bbr-nebby-50-stopped';
const probe = JSON.parse(readFileSync(`${DIR}/probe.json`, 'utf8')) as { origin: { ip: string }; profile: { rateKbit: number } };
// Recorded captures are looked at as if the transfer had run its length (the watcher skips looks
// that come before the next checkpoint could be in the trace).
const later = () => Number.POSITIVE_INFINITY;
const flow = { originIp: probe.origin.ip, protocol: 'tcp' as const, rateKbit: probe.profile.rateKbit, now: later };

describe('stableVerdictWatch', () => {
  const model = loadModel('models/ccbrowse-model.json');

  it('a late look catches up on the schedule and agrees with the offline replay, checkpoint by checkpoint', async () => {
    // A rule that cannot settle on this flow (K beyond its checkpoints): every checkpoint is judged.
    const rule: StopRule = { floorSeconds: 4, stepSeconds: 2, stableCheckpoints: 99, ceilingSeconds: 30, minConfidence: 0.8 };
    const watch = stableVerdictWatch({ ...flow, model, rule });
    expect(await watch.look(`${DIR}/capture.pcap`)).toBe(false);
    const rec = watch.record();
    expect(rec.checkpoints.map((c) => c.seconds)).toEqual([4, 6, 8, 10, 12, 14, 16, 18]);
    // What the live probe saw: BBRv1 at 12, 14, 16 and 18 s.
    expect(rec.checkpoints.slice(-4).map((c) => c.label)).toEqual(['BBRv1', 'BBRv1', 'BBRv1', 'BBRv1']);
    expect(rec).toMatchObject({ stoppedTransfer: false, why: 'transfer-ended', neededSeconds: null });
    expect(rec.bytesSeen).toBeGreaterThan(50_000);
    const g = (await growingSeries(`${DIR}/capture.pcap`, flow))!;
    const offline = replayStopOn(g.series, model, rule).history.slice(0, 8);
    expect(rec.checkpoints.map((c) => `${c.seconds} ${c.label}`)).toEqual(offline.map((c) => `${c.seconds} ${c.label}`));
    // A second look at the same capture judges nothing new.
    await watch.look(`${DIR}/capture.pcap`);
    expect(watch.record().checkpoints).toHaveLength(8);
  }, 60_000);

  it('a look sooner after the watcher was made than the next checkpoint traces nothing (the trace cannot be that long yet)', async () => {
    const rule: StopRule = { floorSeconds: 12, stepSeconds: 2, stableCheckpoints: 4, ceilingSeconds: 30, minConfidence: 0.8 };
    const made = Date.now() / 1000;
    let now = made + 11;
    const watch = stableVerdictWatch({ ...flow, model, rule, now: () => now });
    expect(await watch.look(`${DIR}/capture.pcap`)).toBe(false);
    expect(watch.record()).toMatchObject({ checkpoints: [], bytesSeen: 0 });
    now = made + 13;
    await watch.look(`${DIR}/capture.pcap`);
    // 13 s on, the 12 s checkpoint may be in the trace: the look traces, and judges every
    // checkpoint the (recorded, 18 s) capture holds.
    expect(watch.record().checkpoints.map((c) => c.seconds)).toEqual([12, 14, 16, 18]);
  }, 60_000);

  it('with the default K (4) stops at 18 s, as the live probe did; with K = 1 at the first confident answer', async () => {
    const base: StopRule = { floorSeconds: 12, stepSeconds: 2, stableCheckpoints: 4, ceilingSeconds: 30, minConfidence: 0.8 };
    const four = stableVerdictWatch({ ...flow, model, rule: base });
    expect(await four.look(`${DIR}/capture.pcap`)).toBe(true);
    expect(four.record()).toMatchObject({ stoppedTransfer: true, why: 'stable', label: 'BBRv1', neededSeconds: 18 });
    const one = stableVerdictWatch({ ...flow, model, rule: { ...base, stableCheckpoints: 1 } });
    expect(await one.look(`${DIR}/capture.pcap`)).toBe(true);
    expect(one.record()).toMatchObject({ why: 'stable', label: 'BBRv1', neededSeconds: 12 });
    expect(one.record().checkpoints).toHaveLength(1);
    // Once stopped, it says so at every later look and judges nothing more.
    expect(await one.look(`${DIR}/capture.pcap`)).toBe(true);
    expect(one.record().checkpoints).toHaveLength(1);
  }, 60_000);
});

/**
 * An HTTP/3 probe (tests/fixtures/early-stop/quic-bbr-nebby-50-stopped: quinn's BBR through
 * nebby-50 under the train lab's near region, stopped live after 20 s of trace): Chromium writes
 * its TLS key log as keys are made, so the watcher reads the flow exactly while it grows.
 */
describe('stableVerdictWatch on an HTTP/3 probe', () => {
  const model = loadModel('models/ccbrowse-model.json');
  const Q = 'tests/fixtures/early-stop/quic-bbr-nebby-50-stopped';
  const q = JSON.parse(readFileSync(`${Q}/probe.json`, 'utf8')) as { origin: { ip: string }; profile: { rateKbit: number } };
  const quic = { originIp: q.origin.ip, protocol: 'quic' as const, rateKbit: q.profile.rateKbit, now: later };
  const rule: StopRule = { floorSeconds: 14, stepSeconds: 2, stableCheckpoints: 4, ceilingSeconds: 30, minConfidence: 0.8 };

  it('with the key log stops where the live probe did, naming quinn\'s BBR as the offline replay does', async () => {
    const watch = stableVerdictWatch({ ...quic, model, rule });
    expect(await watch.look(`${Q}/capture.pcap.gz`, `${Q}/keylog.txt`)).toBe(true);
    expect(watch.record()).toMatchObject({ stoppedTransfer: true, why: 'stable', label: 'BBRv1', neededSeconds: 20 });
    // Delivered, not sent: the origin sent 2.7 MB in these 21 s, most of it lost at 200 kbit/s.
    expect(watch.record().bytesSeen).toBeGreaterThan(300_000);
    expect(watch.record().bytesSeen).toBeLessThan(800_000);
    const g = (await growingSeries(`${Q}/capture.pcap.gz`, quic, `${Q}/keylog.txt`))!;
    const offline = replayStopOn(g.series, model, rule).history;
    expect(watch.record().checkpoints.map((c) => `${c.seconds} ${c.label}`)).toEqual(offline.map((c) => `${c.seconds} ${c.label}`));
  }, 60_000);

  it('without the key log (not written yet, or gone) judges nothing rather than Nebby\'s estimate', async () => {
    const watch = stableVerdictWatch({ ...quic, model, rule });
    expect(await watch.look(`${Q}/capture.pcap.gz`)).toBe(false);
    expect(await watch.look(`${Q}/capture.pcap.gz`, `${Q}/no-such-keylog.txt`)).toBe(false);
    expect(watch.record().checkpoints).toEqual([]);
    expect(await growingSeries(`${Q}/capture.pcap.gz`, quic, `${Q}/no-such-keylog.txt`)).toBeNull();
  }, 60_000);

  it('with a key log Chromium created but has written no keys to yet (the normal state at launch) judges nothing', async () => {
    const empty = join(mkdtempSync(join(tmpdir(), 'ccb-test-keylog-')), 'keylog.txt');
    writeFileSync(empty, '');
    const watch = stableVerdictWatch({ ...quic, model, rule });
    expect(await watch.look(`${Q}/capture.pcap.gz`, empty)).toBe(false);
    expect(watch.record().checkpoints).toEqual([]);
    expect(await growingSeries(`${Q}/capture.pcap.gz`, quic, empty)).toBeNull();
  }, 60_000);
});
