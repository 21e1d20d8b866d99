import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectedCensus, regionDependentHosts } from '../../../src/lab/census-truth.js';
import { labConfigSchema } from '../../../src/lab/config.js';
import { assignSites, syntheticInternet, syntheticSiteList } from '../../../src/lab/synthetic-internet.js';
import { parseSiteList } from '../../../src/crawl/sites.js';

const cfg = labConfigSchema.parse(syntheticInternet({ seed: 18, sites: 240, name: 'synth' }));

describe('the synthetic internet', () => {
  it('is the same for the same seed and another for another seed', () => {
    expect(assignSites(240, 18)).toEqual(assignSites(240, 18));
    expect(assignSites(240, 19)).not.toEqual(assignSites(240, 18));
  });

  it('serves every one of its 240 sites in every region, from exactly one origin per region', () => {
    const cells = expectedCensus(cfg);
    expect(cells).toHaveLength(240 * 3);
    for (const r of cfg.regions) {
      const counts = new Map<string, number>();
      for (const o of cfg.origins) if (!r.origins || r.origins.includes(o.name)) for (const h of o.hosts) counts.set(h, (counts.get(h) ?? 0) + 1);
      expect(counts.size).toBe(240);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    }
  });

  it('differs per region: a controller override and an origin that moves to HTTP/3', () => {
    const cells = expectedCensus(cfg);
    const at = (host: string, region: string) => cells.find((c) => c.host === host && c.region === region)!;
    const renoHost = cfg.origins.find((o) => o.name === 'host-reno')!.hosts[0];
    expect(at(renoHost, 'us')).toMatchObject({ protocol: 'tcp', cca: 'reno' });
    expect(at(renoHost, 'ap')).toMatchObject({ protocol: 'quic', cca: 'newreno', origin: 'host-reno-h3' });
    const bbrB = cfg.origins.find((o) => o.name === 'edge-bbr-b')!.hosts[0];
    expect([at(bbrB, 'us').cca, at(bbrB, 'eu').cca]).toEqual(['bbr', 'cubic']);
    const differ = regionDependentHosts(cells);
    expect(differ.size).toBeGreaterThan(24);
    expect(differ.size).toBeLessThan(120);
  });

  it('the committed site lists are what the generator gives', () => {
    const all = parseSiteList(readFileSync('crawls/sites/synthetic-internet.txt', 'utf8'), false);
    expect(all).toEqual(syntheticSiteList(cfg));
    const sample = parseSiteList(readFileSync('crawls/sites/synthetic-internet-sample.txt', 'utf8'), false);
    const providers = new Set(sample.map((u) => cfg.origins.find((o) => o.name !== 'host-reno-h3' && o.hosts.includes(new URL(u).hostname))!.name));
    expect(providers.size).toBe(9);
  });
});
