/**
 * `run --stop-when-stable`: which flows hold a scenario's activity (pure), and the watcher on a
 * real lab capture (tests/fixtures/early-stop: a kernel BBR flow through nebby-50, client
 * 10.203.1.2 as in every run's topology) judged as if the capture were still growing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/classify/index.js';
import { DEFAULT_STOP_RULE } from '../../../src/classify/early-stop.js';
import { traceFile } from '../../../src/trace/index.js';
import { allSettled, standings, toJudge, type ActivityStopOptions, type LiveFlow } from '../../../src/session/activity-stop.js';
import { activityWatch } from '../../../src/session/activity-watch.js';
import { activityEarlyStopSchema } from '../../../src/results/schema.js';

const o: ActivityStopOptions = { floorSeconds: 12, minBytes: 50_000, quietSeconds: 6 };
const flow = (tuple: string, x: Partial<LiveFlow> = {}): LiveFlow => ({
  tuple, serverIp: '10.0.0.1', protocol: 'tcp', readExactly: true, bytesDown: 500_000, traceSeconds: 20, quietSeconds: 0, ...x,
});

describe('which flows hold the activity', () => {
  it('an active TCP flow not yet stable holds it; once stable it does not', () => {
    const f = [flow('a')];
    const judging = standings(f, new Set(), o);
    expect(judging.get('a')).toBe('judging');
    expect(toJudge(f, judging).map((x) => x.tuple)).toEqual(['a']);
    expect(allSettled(judging)).toBe(false);
    const stable = standings(f, new Set(['a']), o);
    expect(stable.get('a')).toBe('stable');
    expect(toJudge(f, stable)).toEqual([]);
    expect(allSettled(stable)).toBe(true);
  });

  it('a flow that went quiet or stayed a trickle past the floor holds nothing; a young small flow still does', () => {
    const f = [
      flow('done', { quietSeconds: 6 }),
      flow('trickle', { serverIp: '10.0.0.2', bytesDown: 49_000, traceSeconds: 12 }),
      flow('young', { serverIp: '10.0.0.3', bytesDown: 5_000, traceSeconds: 3 }),
    ];
    const s = standings(f, new Set(), o);
    expect(Object.fromEntries(s)).toEqual({ done: 'quiet', trickle: 'trickle', young: 'judging' });
    expect(allSettled(s)).toBe(false);
    expect(allSettled(standings(f.slice(0, 2), new Set(), o))).toBe(true);
  });

  it('per server address only the largest active flow matters (the summary takes each host\'s largest)', () => {
    const f = [flow('small', { bytesDown: 100_000 }), flow('big', { bytesDown: 900_000 }), flow('big-but-quiet', { bytesDown: 2_000_000, quietSeconds: 30 })];
    const s = standings(f, new Set(), o);
    expect(Object.fromEntries(s)).toEqual({ small: 'not-largest', big: 'judging', 'big-but-quiet': 'quiet' });
    expect(allSettled(standings(f, new Set(['big']), o))).toBe(true);
  });

  it('an HTTP/3 flow carrying data without keys cannot be judged live and holds the activity until it goes quiet', () => {
    const h3 = flow('q', { protocol: 'quic', readExactly: false, serverIp: '10.0.0.9' });
    const s = standings([flow('a'), h3], new Set(['a']), o);
    expect(s.get('q')).toBe('not-judged-live');
    expect(toJudge([flow('a'), h3], s)).toEqual([]);
    expect(allSettled(s)).toBe(false);
    expect(allSettled(standings([flow('a'), { ...h3, quietSeconds: 7 }], new Set(['a']), o))).toBe(true);
  });

  it('an HTTP/3 flow the key log lets us read is judged like a TCP flow', () => {
    const h3 = flow('q', { protocol: 'quic', serverIp: '10.0.0.9' });
    const s = standings([flow('a'), h3], new Set(['a']), o);
    expect(s.get('q')).toBe('judging');
    expect(toJudge([flow('a'), h3], s).map((x) => x.tuple)).toEqual(['q']);
    expect(allSettled(standings([flow('a'), h3], new Set(['a', 'q']), o))).toBe(true);
  });

  it('nothing carrying data: nothing holds (a static page that finished loading)', () => {
    expect(allSettled(standings([], new Set(), o))).toBe(true);
  });
});

describe('activityWatch on a real capture', () => {
  const DIR = 'tests/fixtures/early-stop/tcp-bbr-nebby-50-stopped';
  const model = loadModel('models/ccbrowse-model.json');

  it('judges the flow at the rule\'s checkpoints and is settled once its verdict is stable, recording why', async () => {
    const tr = await traceFile(`${DIR}/capture.pcap`);
    const end = tr.captureStart + tr.durationSeconds;
    // The fixture was stopped at 18 s of trace by the rule of its day (floor 12 s): judged with
    // that floor, as the capture holds no checkpoint of today's (14 s, earliest stop 20 s).
    const rule = { ...DEFAULT_STOP_RULE, floorSeconds: 12, minConfidence: model.calibration?.minAnswer ?? DEFAULT_STOP_RULE.minConfidence };
    // "Now" is the capture's last packet: the flow is still carrying data.
    const w = activityWatch({ model, rule, rateKbit: 200, minBytes: 50_000, quietSeconds: 6, now: () => end });
    expect(w.settled()).toBe(false);
    await w.look(`${DIR}/capture.pcap`);
    expect(w.settled()).toBe(true);
    const rec = activityEarlyStopSchema.parse(w.record({ endedEarly: true, seconds: 20.4, ceilingSeconds: 40 }));
    expect(rec).toMatchObject({ endedActivity: true, why: 'stable', holding: [], looks: 1, ceilingSeconds: 40 });
    expect(rec.flows).toHaveLength(1);
    expect(rec.flows[0]).toMatchObject({ standing: 'stable', label: 'BBRv1', neededSeconds: 18, protocol: 'tcp' });
    expect(rec.flows[0].checkpoints.map((c) => c.seconds)).toEqual([12, 14, 16, 18]);

    // The same capture judged with a K it cannot reach: the flow holds the activity to its ceiling.
    const never = activityWatch({ model, rule: { ...rule, stableCheckpoints: 99 }, rateKbit: 200, minBytes: 50_000, quietSeconds: 6, now: () => end });
    await never.look(`${DIR}/capture.pcap`);
    expect(never.settled()).toBe(false);
    const ran = never.record({ endedEarly: false, seconds: 40, ceilingSeconds: 40 });
    expect(ran).toMatchObject({ endedActivity: false, why: 'ceiling' });
    expect(ran.holding).toEqual([{ flow: rec.flows[0].flow, standing: 'judging' }]);
    expect(ran.flows[0].neededSeconds).toBeUndefined();

    // Long after its last packet, the flow is over: nothing holds, nothing is judged.
    const later = activityWatch({ model, rule, rateKbit: 200, minBytes: 50_000, quietSeconds: 6, now: () => end + 60 });
    await later.look(`${DIR}/capture.pcap`);
    expect(later.settled()).toBe(true);
    expect(later.record({ endedEarly: true, seconds: 5, ceilingSeconds: 40 })).toMatchObject({ why: 'nothing-held', flows: [] });
  }, 60_000);

  it('an HTTP/3 flow is judged live with the key log as Chromium has written it; without keys it holds the activity', async () => {
    // quinn's BBR through nebby-50, stopped live by the probe watcher after 20 s of trace.
    const Q = 'tests/fixtures/early-stop/quic-bbr-nebby-50-stopped';
    const tr = await traceFile(`${Q}/capture.pcap.gz`);
    const end = tr.captureStart + tr.durationSeconds;
    const rule = { ...DEFAULT_STOP_RULE, minConfidence: model.calibration?.minAnswer ?? DEFAULT_STOP_RULE.minConfidence };
    const keyed = activityWatch({ model, rule, rateKbit: 200, minBytes: 50_000, quietSeconds: 6, now: () => end });
    await keyed.look(`${Q}/capture.pcap.gz`, `${Q}/keylog.txt`);
    expect(keyed.settled()).toBe(true);
    const rec = keyed.record({ endedEarly: true, seconds: 22, ceilingSeconds: 40 });
    expect(rec.flows).toHaveLength(1);
    expect(rec.flows[0]).toMatchObject({ protocol: 'quic', standing: 'stable', label: 'BBRv1', neededSeconds: 20 });

    // No key log, or one Chromium created but has written no keys to yet.
    const empty = join(mkdtempSync(join(tmpdir(), 'ccb-test-keylog-')), 'keylog.txt');
    writeFileSync(empty, '');
    for (const keylog of [`${Q}/no-such-keylog.txt`, empty]) {
      const blind = activityWatch({ model, rule, rateKbit: 200, minBytes: 50_000, quietSeconds: 6, now: () => end });
      await blind.look(`${Q}/capture.pcap.gz`, keylog);
      expect(blind.settled()).toBe(false);
      expect(blind.record({ endedEarly: false, seconds: 40, ceilingSeconds: 40 })).toMatchObject({ why: 'ceiling', holding: [{ standing: 'not-judged-live' }] });
    }
  }, 60_000);
});
