/**
 * The issue's end-to-end requirement: the lab VOD page whose video comes from a BBR origin
 * and whose page assets come from a CUBIC origin comes out as video -> BBR, static assets ->
 * CUBIC, under both Nebby profiles (fused as a run fuses them); and the same with HTTP/3 in
 * the mix: the thumbnails always come from an HTTP/3 CUBIC origin, and in the second case the
 * video too comes over HTTP/3 (quinn BBR, named from its losses: see checkVerdicts). Real Chromium, real lab, real bottleneck and
 * capture, the shipped classifier model.
 *
 * Besides the verdicts, it checks what the verdicts depend on and does not depend on the
 * classifier: the video flow lasts long enough to classify (>= 20 s of transfer at the
 * 200 kbit/s bottleneck), the servers really ran the controllers the test expects (their own
 * ground truth), correlation covers the page's bytes, and live progress counts bytes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { loadLabConfig } from '../../src/lab/config.js';
import { startLab } from '../../src/lab/lab.js';
import type { RunningLab } from '../../src/lab/state.js';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenarioSession, type AssetTypeRow, type ProgressSample, type RunOutcome } from '../../src/session/run.js';
import { labUpstream } from '../../src/session/lab-upstream.js';
import { readRunDir } from '../../src/results/read.js';
import { isRoot } from '../helpers/system.js';

const PROFILES = ['nebby-50', 'nebby-100'];
/** The page's static assets: everything that is not media or a manifest. */
const STATIC_TYPES = ['document', 'script', 'style', 'image', 'font', 'xhr'];

function report(name: string, o: RunOutcome): string {
  const lines = [`${name}: ${o.dir} (${o.status}${o.incompleteReason ? `: ${o.incompleteReason}` : ''})`];
  for (const r of o.byAssetType) {
    lines.push(`  ${r.assetType.padEnd(9)} fused ${r.label} (${r.confidence.toFixed(2)}) hosts ${r.hosts.join(',')} [${r.protocols.join(',')}]${r.label === 'Unknown' ? `: ${r.reason}` : ''}`);
    for (const [p, v] of Object.entries(r.perProfile)) {
      lines.push(`    ${p.padEnd(9)} ${v.label} (${v.kind}, ${v.confidence.toFixed(2)}) flow ${v.flowId}: ${(v.bytes / 1000).toFixed(1)} kB of it, ${(v.durationMs / 1000).toFixed(1)} s${v.notJudged ? `; not judged (${v.notJudged.cause}): ${v.notJudged.reason}` : v.kind === 'cca' ? '' : `: ${v.reason}`}`);
    }
  }
  return lines.join('\n');
}

describe.skipIf(!isRoot)('lab VOD: video from BBR, page from CUBIC, per asset type, both Nebby profiles', () => {
  const stack = new CleanupStack(`test-vod-verdicts-${process.pid}`);
  let lab: RunningLab;
  const out = mkdtempSync(join(tmpdir(), 'ccb-vod-verdicts-'));

  beforeAll(async () => {
    lab = { ...(await startLab(stack, await loadLabConfig('tests/fixtures/labs/vod-mix.ts'))), pid: process.pid };
  }, 300_000);
  afterAll(async () => { await stack.unwind(); }, 120_000);

  async function runVod(region: string): Promise<{ o: RunOutcome; progress: ProgressSample[] }> {
    const progress: ProgressSample[] = [];
    const file = 'scenarios/lab/vod.ts';
    const o = await runScenarioSession({
      scenario: await loadScenario(file), scenarioFile: file, upstream: labUpstream(lab, region), region, profiles: PROFILES, outDir: out,
      onProgress: (s) => progress.push(s),
    });
    console.log(report(`lab VOD, region ${region}`, o));
    return { o, progress };
  }

  function checkRun(o: RunOutcome, progress: ProgressSample[], videoProtocol: 'tcp' | 'quic'): AssetTypeRow {
    expect(o.status, o.incompleteReason).toBe('complete');
    const data = readRunDir(o.dir);
    for (const p of PROFILES) {
      expect(o.byteCoverage[p], p).toBeGreaterThanOrEqual(0.99);
      // Live progress counted the capture point's bytes, growing, in line with the capture.
      const mine = progress.filter((s) => s.profile === p);
      expect(mine.length, p).toBeGreaterThan(20);
      expect(mine.some((s) => s.phase === 'activity')).toBe(true);
      for (let i = 1; i < mine.length; i++) expect(mine[i].bytesDown).toBeGreaterThanOrEqual(mine[i - 1].bytesDown);
      const last = mine[mine.length - 1];
      const down = data.flows.filter((f) => f.profile === p).reduce((a, f) => a + f.bytes.down, 0);
      expect(last.bytesDown, `${p}: progress bytes vs ${down} B down in the capture`).toBeGreaterThan(0.5 * down);
      expect(last.bytesDown).toBeLessThan(3 * down);
      expect(last.flows).toBeGreaterThanOrEqual(2);
    }
    const video = o.byAssetType.find((r) => r.assetType === 'video');
    expect(video, 'no video asset type in the run').toBeDefined();
    expect(video!.hosts).toEqual(['media.lab.ccb.test']);
    expect(video!.protocols).toEqual([videoProtocol]);
    // Long enough to classify: each profile's video flow moved video for >= 20 s at 200 kbit/s.
    for (const p of PROFILES) {
      const v = video!.perProfile[p];
      expect(v, `${p}: no classified video flow`).toBeDefined();
      expect(v.durationMs, `${p}: video flow duration`).toBeGreaterThanOrEqual(20_000);
      expect(v.bytes, `${p}: video bytes`).toBeGreaterThan(300_000);
    }
    return video!;
  }

  function groundTruthCcas(o: RunOutcome, profile: string, origin: string): Set<string> {
    const lines = readFileSync(join(o.dir, profile, 'ground-truth', `${origin}.jsonl`), 'utf8').trim().split('\n');
    return new Set(lines.map((l) => { const j = JSON.parse(l) as { cc?: string; congestion?: string }; return String(j.cc ?? j.congestion); }));
  }

  /**
   * quinn's BBR (the HTTP/3 video case) shows no BBRv1 gain cycle on the wire (its pacer ignores
   * the pacing gain) and floods the bottleneck with its 240 kB initial window: it is named by
   * the loss-agnostic rule, which reads the losses the key-log replay counts (before that rule:
   * BBRv1 in 4 of 7 runs, Unknown in 2, Westwood in 1; with it, BBRv1 in 4 of 4, both profiles).
   */
  /**
   * Statics -> CUBIC, never another CCA. The page's connection stays open through the whole
   * activity and its nebby-50 trace reads outside every trained class in most runs (14 of 19 runs
   * of this file, 2026-11-25/26), so www is then named from nebby-100 alone, whose calibrated
   * one-profile confidence sat at 0.74-0.88: under the 0.8 minimum answer in 5 of those 14 (among
   * them both attempts of a case in each of two loaded CI runs), where it reads Unknown with CUBIC
   * withheld. That is the
   * classifier being honest about one look; a wrong CCA in any profile, or no profile naming CUBIC,
   * still fails.
   */
  function checkVerdicts(o: RunOutcome): boolean {
    const video = o.byAssetType.find((r) => r.assetType === 'video')!;
    const videoNamed = !hostDisturbedEverywhere(video);
    if (videoNamed) expect.soft(video.label, `video: ${video.reason}`).toMatch(/^BBR/);
    else expect(video.label).toBe('Unknown');
    const rows = o.byAssetType.filter((r) => STATIC_TYPES.includes(r.assetType));
    expect(rows.map((r) => r.assetType)).toEqual(expect.arrayContaining(['document', 'script', 'image']));
    for (const r of rows) {
      const what = `${r.assetType} (${r.hosts.join(',')}): ${r.reason}`;
      expect.soft(['CUBIC', 'Unknown'], what).toContain(r.label);
      if (r.label === 'Unknown') expect.soft(r.withheld?.label ?? 'CUBIC', `${what}: only CUBIC may be withheld`).toBe('CUBIC');
      const named = Object.values(r.perProfile).filter((v) => v.kind === 'cca').map((v) => v.label);
      expect.soft(named, `${what}: per profile`).toContain('CUBIC');
      expect.soft(named.filter((l) => l !== 'CUBIC'), `${what}: a profile named another CCA`).toEqual([]);
    }
    return videoNamed;
  }

  /**
   * Every profile's video trace was left unjudged because the host disturbed the bottleneck
   * (the delay line's stalls, which the trace itself shows): the run then reads Unknown and says
   * so, the honest answer on an overloaded host, not a classifier fault. Seen for the HTTP/3
   * video in both attempts of one CI run whose suite took a third longer than usual (stop 33);
   * any other Unknown, or a wrong name, still fails.
   */
  function hostDisturbedEverywhere(r: AssetTypeRow): boolean {
    const pp = Object.values(r.perProfile);
    const disturbed = r.label === 'Unknown' && pp.length > 0 && pp.every((v) => v.notJudged?.cause === 'host-disturbed');
    if (disturbed) console.warn(`video not judged, host disturbed in every profile: ${pp.map((v) => v.notJudged!.reason).join(' | ')}`);
    return disturbed;
  }

  // One retry: a verdict is a measurement through a shared, noisy host; a real regression
  // fails both attempts.
  it('over TCP, with an HTTP/3 thumbnails origin in the mix', { timeout: 900_000, retry: 1 }, async () => {
    const { o, progress } = await runVod('tcp');
    checkRun(o, progress, 'tcp');
    // The servers ran what the test expects (their own tcp_info): media BBR, pages CUBIC.
    expect(groundTruthCcas(o, 'nebby-50', 'media')).toEqual(new Set(['bbr']));
    expect(groundTruthCcas(o, 'nebby-50', 'www')).toEqual(new Set(['cubic']));
    expect(o.byAssetType.find((r) => r.assetType === 'image')?.protocols).toEqual(['quic']);
    checkVerdicts(o);
  });

  it('with the video over HTTP/3 from a QUIC BBR origin: video tied to its QUIC flow, statics -> CUBIC', { timeout: 900_000, retry: 1 }, async () => {
    const { o, progress } = await runVod('h3');
    checkRun(o, progress, 'quic');
    if (checkVerdicts(o)) {
      const video = o.byAssetType.find((r) => r.assetType === 'video')!;
      expect.soft(video.reason, 'quinn BBR is named from its losses').toMatch(/loss-agnostic/);
    }
  });
});
