/**
 * The synthetic internet (issue 18), real lab and real crawl: the lab comes up with all of its
 * 240 hostnames (one leaf certificate names them, every region maps each to one origin), a
 * probe crawl of two of its sites from two regions runs, and the census is scored against the
 * configuration: every cell is scored, and a site whose controller or protocol differs
 * between regions is recorded per region. No accuracy figure is asserted (bench/census.ts
 * measures it); a fast profile keeps the file short.
 */
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLabConfig } from '../../src/lab/config.js';
import { labDown, labUp } from '../../src/lab/control.js';
import { readRunningLab } from '../../src/lab/state.js';
import type { CensusScore } from '../../src/train/census-score.js';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { isRoot } from '../helpers/system.js';

const LAB_FILE = 'tests/fixtures/labs/synthetic-internet.ts';
const LAB = 'ccb-synth-it';
// site002: edge-cubic-b, CUBIC in us and BBR in ap; site039: host-reno, TCP Reno in us and
// HTTP/3 (quinn NewReno) in ap.
const SITES = ['site002.si.ccb.test', 'site039.si.ccb.test'];
const REGIONS = ['us', 'ap'];

describe.skipIf(!isRoot)('census crawl of the synthetic internet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-census-it-'));
  const store = join(dir, 'ccbrowse.sqlite');
  const file = join(dir, 'crawl.ts');

  beforeAll(async () => {
    await labUp({ config: LAB_FILE });
    writeFileSync(file, `import { defineCrawl } from 'ccbrowse';
export default defineCrawl({
  name: 'census-it', lab: '${LAB}', regions: ${JSON.stringify(REGIONS)}, profiles: ['fast-20m'], retries: 1, backoffSeconds: 1,
  targets: [${SITES.map((h) => `{ url: 'https://${h}/bytes/2000000', mode: 'probe' }`).join(', ')}],
});
`);
  }, 300_000);

  afterAll(async () => { await labDown(LAB); }, 300_000);

  it('comes up with all its hostnames', async () => {
    const cfg = await loadLabConfig(LAB_FILE);
    const lab = readRunningLab(LAB)!;
    expect(lab).toBeDefined();
    const hosts = new Set(cfg.origins.flatMap((o) => o.hosts));
    expect(hosts.size).toBe(240);
    for (const r of cfg.regions) {
      const served = new Set(lab.origins.filter((o) => o.region === r.name).flatMap((o) => o.hosts));
      expect([...hosts].filter((h) => !served.has(h))).toEqual([]);
    }
    const san = new X509Certificate(readFileSync(lab.certs.cert)).subjectAltName ?? '';
    expect([...hosts].filter((h) => !san.includes(`DNS:${h}`))).toEqual([]);
  });

  it('crawls two sites from two regions and scores every cell against the configuration', async () => {
    const cli = nodeModuleCommand('cli/main.ts');
    const r = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'run', file, '--store', store, '--out', dir, '--json'], { encoding: 'utf8', timeout: 240_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).progress).toMatchObject({ total: 4, done: 4, failed: 0 });

    // Each region's probes went to that region's origin for the site (recorded per result).
    const db = new Database(store, { readonly: true });
    const origins = (db.prepare('SELECT region, detail FROM crawl_results ORDER BY target_key, region').all() as Array<{ region: string; detail: string }>)
      .map((x) => { const d = JSON.parse(x.detail) as { url: string; probes: Array<{ origin: string; serve: string }> }; return `${new URL(d.url).hostname} ${x.region} ${d.probes.map((p) => `${p.origin}/${p.serve}`).join(',')}`; });
    db.close();
    expect(origins.sort()).toEqual([
      'site002.si.ccb.test ap edge-cubic-b/tcp', 'site002.si.ccb.test us edge-cubic-b/tcp',
      'site039.si.ccb.test ap host-reno-h3/h3', 'site039.si.ccb.test us host-reno/tcp',
    ]);

    // The command users run: ccbrowse crawl score, against the lab's configuration.
    const sc = spawnSync(cli[0], [...cli.slice(1), 'crawl', 'score', file, '--store', store, '--config', LAB_FILE, '--json'], { encoding: 'utf8', timeout: 120_000 });
    expect(sc.status, sc.stderr).toBe(0);
    const { score } = JSON.parse(sc.stdout) as { score: CensusScore };
    expect(score.cells.map((c) => `${c.host} ${c.region} ${c.expected}/${c.protocol}`)).toEqual([
      'site002.si.ccb.test us CUBIC/tcp', 'site002.si.ccb.test ap BBRv1/tcp',
      'site039.si.ccb.test us NewReno/tcp', 'site039.si.ccb.test ap NewReno/quic',
    ]);
    // Every cell measured (a verdict, right or not), each from its own region's probes.
    expect(score.cells.filter((c) => c.outcome === 'missing')).toEqual([]);
    expect(score.total.cells).toBe(4);
    expect(Object.keys(score.perRegion).sort()).toEqual(['ap', 'us']);
    expect(score.regionDependent.cells).toBe(4);
    expect(score.perFlow.cells).toBe(4);
    expect(score.unexpected).toEqual([]);
  }, 300_000);
});
