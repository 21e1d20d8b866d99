/**
 * `run --stop-when-stable` for real (issue 20): the lab VOD page in region "tcp" of the vod-mix
 * lab (video from a kernel BBR origin, page from CUBIC, thumbnails over HTTP/3 from CUBIC), both
 * Nebby profiles as a full run has them (one profile's verdict alone is often withheld below the
 * model's minimum answer: fusing the two is what names the video). While the 40 s activity runs, the watcher judges the growing capture; the
 * activity ends once every flow that matters has a stable verdict (the HTTP/3 thumbnails hold it
 * until they finish loading): in at least one profile; a profile whose video verdict never
 * settles runs to the activity's length and says which flow held it. The run is complete, its artefacts are all there, and the video
 * is still named BBR, as a full run names it (tests/integration/vod-verdicts.test.ts).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { unwindLab } from '../helpers/lab.js';
import { loadLabConfig } from '../../src/lab/config.js';
import { startLab } from '../../src/lab/lab.js';
import type { RunningLab } from '../../src/lab/state.js';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenarioSession } from '../../src/session/run.js';
import { labUpstream } from '../../src/session/lab-upstream.js';
import { readRunDir } from '../../src/results/read.js';
import { loadModel } from '../../src/classify/index.js';
import { DEFAULT_STOP_RULE } from '../../src/classify/early-stop.js';
import { isRoot } from '../helpers/system.js';

const PROFILES = ['nebby-50', 'nebby-100'];

describe.skipIf(!isRoot)('run --stop-when-stable: lab VOD, video from BBR', () => {
  const stack = new CleanupStack(`test-run-earlystop-${process.pid}`);
  let lab: RunningLab;
  const out = mkdtempSync(join(tmpdir(), 'ccb-run-earlystop-'));

  beforeAll(async () => {
    lab = { ...(await startLab(stack, await loadLabConfig('tests/fixtures/labs/vod-mix.ts'))), pid: process.pid };
  }, 300_000);
  afterAll(() => unwindLab(stack, lab), 120_000);

  // One retry, as vod-verdicts has: a verdict is a measurement through a shared, noisy host (both
  // profiles ran to their length in no run of 5 here, but nebby-50 alone did in 2 of 3).
  it('ends the activity before its length, stays complete, and still names the video BBR', { timeout: 300_000, retry: 1 }, async () => {
    const file = 'scenarios/lab/vod.ts';
    const scenario = await loadScenario(file);
    const model = loadModel('models/ccbrowse-model.json');
    const rule = { ...DEFAULT_STOP_RULE, minConfidence: model.calibration?.minAnswer ?? DEFAULT_STOP_RULE.minConfidence };
    const o = await runScenarioSession({
      scenario, scenarioFile: file, upstream: labUpstream(lab, 'tcp'), region: 'tcp', profiles: PROFILES, outDir: out,
      stopWhenStable: { rule, model }, progress: (m) => console.log(m), onProgress: () => {},
    });
    expect(o.status, o.incompleteReason).toBe('complete');
    const data = readRunDir(o.dir);
    const video = o.byAssetType.find((r) => r.assetType === 'video')!;
    expect(video, 'no video row').toBeDefined();
    for (const [k, profile] of PROFILES.entries()) {
      const es = data.run.profiles[k].earlyStop!;
      console.log(profile, JSON.stringify({ ...es, flows: es.flows.map((f) => ({ ...f, checkpoints: f.checkpoints.map((c) => `${c.seconds}:${c.label}:${c.confidence}`).join(' ') })) }, null, 1));
      expect(es, 'run.json keeps the early stop per profile').toBeDefined();

      // Every artefact of a full run is there, however the activity ended.
      for (const f of ['capture.pcap', 'session.har', 'netlog.json', 'requests.json']) expect(existsSync(join(o.dir, profile, f)), `${profile}/${f}`).toBe(true);
      const videoFlow = data.flows.find((f) => f.id === video.perProfile[profile].flowId)!;
      const watched = es.flows.find((f) => f.serverIp === videoFlow.server.ip && f.protocol === 'tcp');
      expect(watched, `${profile}: the video flow was one that mattered`).toBeDefined();
      if (es.endedActivity) {
        // Ended early, through the activity's own end, nothing holding; the video flow stable
        // on BBR after at least the rule's earliest stop.
        expect(es.why).toBe('stable');
        expect(es.holding).toEqual([]);
        expect(es.activitySeconds!).toBeLessThan(scenario.activitySeconds - 2);
        expect(watched!.standing).toBe('stable');
        expect(watched!.label).toMatch(/^BBR/);
        expect(watched!.neededSeconds!).toBeGreaterThanOrEqual(rule.floorSeconds + (rule.stableCheckpoints - 1) * rule.stepSeconds);
      } else {
        // A video flow whose verdict never held 4 checkpoints in a row keeps the activity to its
        // length (nebby-50 did so in 2 of 3 benchmark runs): the record says it held it.
        expect(es.why).toBe('ceiling');
        expect(es.holding.map((h) => h.flow)).toContain(watched!.flow);
        expect(es.activitySeconds!).toBeGreaterThanOrEqual(scenario.activitySeconds - 1);
      }
    }
    const early = data.run.profiles.filter((p) => p.earlyStop?.endedActivity).map((p) => p.name);
    expect(early.length, 'no profile\'s activity ended before its length').toBeGreaterThan(0);
    // The run's verdict (analysis of the whole, shorter capture) is a full run's: BBR.
    expect(video.label, `video: ${video.reason}`).toMatch(/^BBR/);
  });
});
