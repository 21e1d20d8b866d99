/**
 * End to end: real Chromium in the client namespace, real lab origins behind the
 * bottleneck, a real capture; every asset tied to its flow; bad scenarios end as labelled
 * outcomes with their data kept and nothing left behind.
 */
import { existsSync, readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack, ownersDir } from '../../src/net/cleanup.js';
import { deployment, loadLabConfig, type LabConfig } from '../../src/lab/config.js';
import { startLab } from '../../src/lab/lab.js';
import type { RunningLab } from '../../src/lab/state.js';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenarioSession } from '../../src/session/run.js';
import { labUpstream } from '../../src/session/lab-upstream.js';
import { readRunDir } from '../../src/results/read.js';
import type { AssetTypeRow } from '../../src/session/summary.js';
import { labelFor } from '../../src/train/labels.js';
import { isRoot } from '../helpers/system.js';

describe.skipIf(!isRoot)('ccbrowse run against the lab', () => {
  const stack = new CleanupStack(`test-run-${process.pid}`);
  let lab: RunningLab;
  let config: LabConfig;
  const out = mkdtempSync(join(tmpdir(), 'ccb-runs-'));

  beforeAll(async () => {
    config = await loadLabConfig('tests/fixtures/labs/small.ts');
    lab = { ...(await startLab(stack, config)), pid: process.pid };
  }, 300_000);
  afterAll(async () => { await stack.unwind(); }, 120_000);

  const run = async (file: string, profiles = ['nebby-50']) => runScenarioSession({
    scenario: await loadScenario(file), scenarioFile: file, upstream: labUpstream(lab, 'local'), region: 'local', profiles, outDir: out,
  });

  it('VOD with mixed origins: every asset tied to a flow, video on the media origin, images over HTTP/3', async () => {
    const o = await run('scenarios/lab/vod.ts');
    expect(o.status, o.incompleteReason).toBe('complete');
    expect(o.byteCoverage['nebby-50']).toBeGreaterThanOrEqual(0.99);
    const media = o.summary.find((r) => r.host === 'media.lab.ccb.test')!;
    expect(media.assetTypes).toContain('video');
    expect(media.protocol).toBe('tcp');
    const img = o.summary.find((r) => r.host === 'img.lab.ccb.test');
    expect(img?.protocol).toBe('quic');
    const data = readRunDir(o.dir);
    expect(data.run.status).toBe('complete');
    // Every non-background asset names its flow, and that flow exists in flows.json.
    const flowIds = new Set(data.flows.map((f) => f.id));
    for (const a of data.assets) expect(a.flowId === null || flowIds.has(a.flowId)).toBe(true);
    // The HAR is kept, and an annotated copy names each entry's flow.
    const har = JSON.parse(readFileSync(join(o.dir, 'nebby-50', 'session.ccb.har'), 'utf8')) as { log: { entries: { _ccbrowse: { flowId: string | null } }[] } };
    expect(har.log.entries.length).toBeGreaterThan(5);
    expect(har.log.entries.filter((e) => e._ccbrowse.flowId).length / har.log.entries.length).toBeGreaterThan(0.9);
    // The servers' ground truth for this run's connections is kept with it (media: BBR).
    const gt = readFileSync(join(o.dir, 'nebby-50', 'ground-truth', 'media.jsonl'), 'utf8').trim().split('\n');
    expect(gt.length).toBeGreaterThan(100);
    expect(new Set(gt.map((l) => (JSON.parse(l) as { cc: string }).cc))).toEqual(new Set(['bbr']));
    // The key log is secret material: gone unless --keep-keys.
    expect(existsSync(join(o.dir, 'nebby-50', 'keylog.txt'))).toBe(false);
  }, 300_000);

  /** host -> the classifier label of the controller the lab serves it with (region local). */
  function truthByHost(): Map<string, string> {
    const m = new Map<string, string>();
    for (const d of deployment(config)) {
      if (d.region !== 'local') continue;
      for (const h of d.origin.hosts) m.set(h, labelFor(d.origin.serve === 'h3' ? 'quic' : 'tcp', d.cca));
    }
    return m;
  }

  /**
   * The other lab kinds, both Nebby profiles fused as a run fuses them: every asset type gets a
   * row with a verdict, the page's bytes are tied to flows, the asset that the activity is about
   * comes out as its origin's controller (where the flow shows one, `mainNamed`), and no asset type gets a confident label naming a
   * controller its hosts don't run (Unknown, Short flow and Application-limited are honest).
   */
  // `mainNamed` false: the main asset's verdict is printed, and must not be wrong, but may be
  // Unknown or Application-limited. The lab's audio is a 64 kbit/s stream fetched segment by
  // segment through a 200 kbit/s bottleneck: each 2 s segment is on the wire for ~3 RTTs with a
  // window of ~3 packets, then the flow idles. That request-limited flow shows back-offs (Reno's
  // halving) but no growth curve: NewReno from nebby-50 alone in 4 of 5 runs of session 4,
  // Unknown in both attempts of one CI run; the classifier now calls it request-limited
  // (Application-limited) when no controller is named (docs/benchmarks/classifier.md).
  const KINDS: { file: string; types: string[]; main: string; mainNamed: boolean }[] = [
    { file: 'scenarios/lab/static.ts', types: ['document', 'script', 'style', 'image'], main: 'image', mainNamed: true },
    { file: 'scenarios/lab/live.ts', types: ['document', 'manifest', 'video'], main: 'video', mainNamed: true },
    { file: 'scenarios/lab/audio.ts', types: ['document', 'manifest', 'audio'], main: 'audio', mainNamed: false },
  ];
  for (const k of KINDS) {
    // One retry: a verdict is a measurement through a shared, noisy host.
    it(`${k.file}: a verdict per asset type, ${k.main} ${k.mainNamed ? 'named right' : 'never named wrong'}, none confidently wrong`, { timeout: 600_000, retry: 1 }, async () => {
      const o = await run(k.file, ['nebby-50', 'nebby-100']);
      const rows = (r: AssetTypeRow) => `${r.assetType} ${r.hosts.join(',')}: ${r.label} (${r.kind}, ${r.confidence.toFixed(2)}) ${r.reason}`;
      console.log(`${k.file}: ${o.dir}\n  ${o.byAssetType.map(rows).join('\n  ')}`);
      expect(o.status, o.incompleteReason).toBe('complete');
      for (const p of ['nebby-50', 'nebby-100']) expect(o.byteCoverage[p], p).toBeGreaterThanOrEqual(0.99);
      expect(o.byAssetType.map((r) => r.assetType)).toEqual(expect.arrayContaining(k.types));
      const truth = truthByHost();
      for (const r of o.byAssetType) {
        expect(r.label, rows(r)).toBeTruthy();
        expect(Object.keys(r.perProfile).length, rows(r)).toBeGreaterThan(0);
        if (r.kind !== 'cca') continue;
        const expected = new Set(r.hosts.map((h) => truth.get(h)));
        expect([...expected].some((t) => t === r.label || (t === 'BBRv1' && r.label.startsWith('BBR'))), rows(r)).toBe(true);
      }
      const main = o.byAssetType.find((r) => r.assetType === k.main)!;
      if (k.mainNamed) expect(main.kind, rows(main)).toBe('cca');
      else expect(['cca', 'unknown', 'application-limited'], rows(main)).toContain(main.kind);
    });
  }

  it('a video call: media flows both ways are recognised as WebRTC media, not forced into a TCP class', async () => {
    const o = await run('scenarios/lab/call.ts', ['video']);
    expect(o.status, o.incompleteReason).toBe('complete');
    const media = o.summary.filter((r) => r.protocol === 'udp-rtp');
    expect(media.length).toBeGreaterThan(0);
    for (const m of media) expect(m.label).toBe('WebRTC media');
    const data = readRunDir(o.dir);
    const rtp = data.flows.filter((f) => f.protocol === 'udp-rtp');
    expect(rtp.some((f) => f.bytes.down > 50_000 && f.bytes.up > 50_000)).toBe(true);
  }, 300_000);

  it('a scenario that throws: incomplete, reason recorded, capture kept', async () => {
    const o = await run('tests/fixtures/scenarios/throws.ts');
    expect(o.status).toBe('incomplete');
    expect(o.incompleteReason).toMatch(/steps-failed.*scripted failure/);
    expect(existsSync(join(o.dir, 'nebby-50', 'capture.pcap'))).toBe(true);
    const data = readRunDir(o.dir);
    expect(data.run.status).toBe('incomplete');
    expect(data.flows.length).toBeGreaterThan(0);
  }, 180_000);

  it('a site that never answers: navigation-failed outcome, run still written', async () => {
    const o = await run('tests/fixtures/scenarios/never-answers.ts');
    expect(o.status).toBe('incomplete');
    expect(o.incompleteReason).toMatch(/navigation-failed/);
    expect(readRunDir(o.dir).run.status).toBe('incomplete');
  }, 180_000);

  it('a renderer crash: labelled outcome, data kept, no leftovers', async () => {
    const o = await run('tests/fixtures/scenarios/crashes.ts');
    expect(o.status).toBe('incomplete');
    expect(o.incompleteReason).toMatch(/crash/i);
    expect(existsSync(join(o.dir, 'nebby-50', 'capture.pcap'))).toBe(true);
    // Every resource of the run was unwound: its cleanup records are gone (they go last).
    expect(readdirSync(ownersDir()).filter((f) => f.startsWith(`run-${o.runId}`))).toEqual([]);
  }, 180_000);
});
