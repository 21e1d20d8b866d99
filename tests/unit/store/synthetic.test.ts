import { afterAll, describe, expect, it } from 'vitest';
import { readRunDir } from '../../../src/results/index.js';
import { openStore, storeSummary } from '../../../src/store/index.js';
import { fillSyntheticStore, HOSTILE_PAYLOADS, rng, syntheticEvidence, syntheticRuns, writeSyntheticRunDirs } from '../../../src/store/synthetic/index.js';
import { tempDir, removeTempDirs } from './helpers.js';

afterAll(removeTempDirs);

describe('synthetic runs', () => {
  it('the same seed gives the same runs, another seed other runs', () => {
    const a = [...syntheticRuns({ seed: 3, sites: 4, evidencePoints: 32 })];
    const b = [...syntheticRuns({ seed: 3, sites: 4, evidencePoints: 32 })];
    const c = [...syntheticRuns({ seed: 4, sites: 4, evidencePoints: 32 })];
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
    expect(a).toHaveLength(4 * 5);
  });

  it('writes run directories that pass the readers’ validation', () => {
    const root = tempDir();
    const dirs = writeSyntheticRunDirs(root, { seed: 1, sites: 3, regions: ['eu', 'sg'], dates: ['2025-01-01', '2025-02-01'], evidencePoints: 64 });
    expect(dirs).toHaveLength(12);
    for (const d of dirs) {
      const r = readRunDir(d);
      expect(r.assets.length).toBeGreaterThan(0);
      expect(r.verdicts.length).toBe(r.flows.length);
    }
  });

  it('has realistic proportions: most flows judged or short, a few regional differences, media only on media sites', () => {
    const s = openStore(':memory:');
    fillSyntheticStore(s, { seed: 11, sites: 200, evidencePoints: 0 });
    const kinds = Object.fromEntries((s.db.prepare('SELECT kind, COUNT(*) AS n FROM verdicts GROUP BY kind').all() as Array<{ kind: string; n: number }>).map((r) => [r.kind, r.n]));
    const total = Object.values(kinds).reduce((a, b) => a + b, 0);
    expect(kinds['cca'] / total).toBeGreaterThan(0.4);
    expect(kinds['short-flow'] / total).toBeGreaterThan(0.05);
    const mediaOnStatic = s.db.prepare("SELECT COUNT(*) FROM assets a JOIN runs r USING (run_pk) WHERE r.scenario_kind = 'static' AND a.asset_type = 'video'").pluck().get();
    expect(mediaOnStatic).toBe(0);
    expect(storeSummary(s).incompleteRuns).toBeGreaterThan(0);
  });

  it('hostile mode puts payloads in site names, URLs, hosts, MIME types, reasons and labels', () => {
    const runs = [...syntheticRuns({ seed: 1, sites: 6, hostile: true, evidencePoints: 16 })];
    const text = JSON.stringify(runs);
    for (const p of HOSTILE_PAYLOADS.slice(0, 4)) expect(text).toContain(JSON.stringify(p).slice(1, -1));
    expect(runs.some((r) => r.run.site.includes('<'))).toBe(true);
    expect(runs.some((r) => r.assets.some((a) => a.mime.includes('<')))).toBe(true);
  });
});

describe('synthetic evidence', () => {
  const ev = (label: string) => syntheticEvidence(rng(5), label, { rttSeconds: 0.12, durationSeconds: 30, points: 256, levelBytes: 8000 });
  it('CUBIC: judged segments fitted by cubics, back-offs between them', () => {
    const e = ev('CUBIC');
    const judged = e.segments.filter((s) => s.usable);
    expect(judged.length).toBeGreaterThanOrEqual(3);
    expect(judged.every((s) => s.polynomial?.degree === 3 && s.match === 'CUBIC')).toBe(true);
    expect(e.backoffs.length).toBe(e.segments.length - 1);
    // a concave-then-convex curve: c3 > 0 and c2 < 0 in the normalised fit
    const c = judged[0].polynomial!.coefficients;
    expect(c[3]).toBeGreaterThan(0);
    expect(c[2]).toBeLessThan(0);
  });
  it('BBRv1: ProbeBW bumps every 8 RTTs and ProbeRTT dips every 10 s, visible in the curve', () => {
    const e = ev('BBRv1');
    const bw = e.periods.find((p) => p.kind === 'probe-bw')!;
    expect(bw.periodRtts).toBe(8);
    expect(bw.periodSeconds).toBeCloseTo(0.96);
    expect(e.periods.find((p) => p.kind === 'probe-rtt')!.marks).toEqual([10, 20]);
    const at = (t: number) => e.smoothed.bif[Math.round((t - e.smoothed.t0) / e.smoothed.dt)];
    const median = [...e.smoothed.bif].sort((a, b) => a - b)[e.smoothed.bif.length >> 1];
    expect(Math.max(...bw.marks.slice(0, 5).map(at))).toBeGreaterThan(median * 1.1);
    expect(at(10.1)).toBeLessThan(median * 0.5);
    expect(e.segments.every((s) => !s.usable)).toBe(true);
  });
  it('keeps the smoothed series within the drawing budget', () => {
    for (const l of ['CUBIC', 'NewReno', 'BBRv2', 'AkamaiCC-like', 'Copa', 'Unknown']) expect(ev(l).smoothed.bif.length).toBeLessThanOrEqual(256);
  });
});
