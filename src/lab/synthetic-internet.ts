/**
 * The synthetic internet (issue 18): a lab of many sites (hostnames) spread over a few hosting
 * origins whose controllers are known, in three regions that differ the way real deployments
 * do: a whole origin switches controller in one region (a CDN's PoP tuned differently), and one
 * origin's sites move to an HTTP/3 origin in another (a CDN that turned QUIC on there). Built
 * deterministically from a seed, so the configuration a crawl is scored against is reproducible.
 *
 * Each origin serves /bytes/N on every hostname it hosts (lab origins ignore the Host header),
 * so every site has a large object to probe. Few origins, many hostnames: origin processes,
 * addresses and start-up time grow with origins x regions, not with sites.
 */
import { mulberry32 } from '../util/random.js';
import type { LabConfigInput } from './config.js';

/** The object a probe fetches from each site (the size crawls/lab-probe.ts uses: 30 s at 200 kbit/s). */
export const SYNTHETIC_OBJECT_BYTES = 750_000;
export const SYNTHETIC_DOMAIN = 'si.ccb.test';

interface Provider {
  name: string;
  serve: 'tcp' | 'h3';
  cca: string;
  /** Relative share of the sites it hosts (CUBIC hosts most of the web, BBR the big CDNs). */
  weight: number;
}

// Kernel CUBIC, BBR and Reno, two trained BPF controllers (Vegas, H-TCP), and quinn HTTP/3
// CUBIC and BBR: every one a class the shipped model is trained on.
const PROVIDERS: readonly Provider[] = [
  { name: 'edge-cubic-a', serve: 'tcp', cca: 'cubic', weight: 5 },
  { name: 'edge-cubic-b', serve: 'tcp', cca: 'cubic', weight: 4 },
  { name: 'edge-bbr-a', serve: 'tcp', cca: 'bbr', weight: 4 },
  { name: 'edge-bbr-b', serve: 'tcp', cca: 'bbr', weight: 2 },
  { name: 'host-reno', serve: 'tcp', cca: 'reno', weight: 2 },
  { name: 'host-vegas', serve: 'tcp', cca: 'vegas', weight: 1 },
  { name: 'host-htcp', serve: 'tcp', cca: 'htcp', weight: 1 },
  { name: 'quic-cubic', serve: 'h3', cca: 'cubic', weight: 2 },
  { name: 'quic-bbr', serve: 'h3', cca: 'bbr', weight: 2 },
];

/** The origin that takes over host-reno's sites in region "ap", over HTTP/3. */
const RENO_H3 = 'host-reno-h3';

export interface SyntheticInternetOptions {
  seed?: number;
  sites?: number;
  /** Lab name (the running lab's name; tests use their own). */
  name?: string;
}

export function syntheticSiteHost(i: number): string {
  return `site${String(i + 1).padStart(3, '0')}.${SYNTHETIC_DOMAIN}`;
}

/** Which provider hosts each site (index -> provider name), weighted, seeded; every provider gets at least one. */
export function assignSites(sites: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  const total = PROVIDERS.reduce((s, p) => s + p.weight, 0);
  const out: string[] = [];
  for (let i = 0; i < sites; i++) {
    // The first sites go one to each provider, so even a small sample covers them all.
    if (i < PROVIDERS.length) { out.push(PROVIDERS[i].name); continue; }
    let x = rnd() * total;
    const p = PROVIDERS.find((q) => (x -= q.weight) < 0) ?? PROVIDERS[PROVIDERS.length - 1];
    out.push(p.name);
  }
  // Shuffled (seeded) so the first sites of the list are not always the same providers in order.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function syntheticInternet(o: SyntheticInternetOptions = {}): LabConfigInput {
  const seed = o.seed ?? 18;
  const sites = o.sites ?? 240;
  const owner = assignSites(sites, seed);
  const hostsOf = (provider: string) => owner.flatMap((p, i) => (p === provider ? [syntheticSiteHost(i)] : []));
  const origins: LabConfigInput['origins'] = PROVIDERS.map((p) => (p.serve === 'tcp'
    ? { name: p.name, hosts: hostsOf(p.name), cca: p.cca as 'cubic' }
    : { name: p.name, hosts: hostsOf(p.name), serve: 'h3' as const, stack: 'quinn' as const, cca: p.cca }));
  origins.push({ name: RENO_H3, hosts: hostsOf('host-reno'), serve: 'h3', stack: 'quinn', cca: 'newreno' });
  const everywhere = PROVIDERS.map((p) => p.name);
  return {
    name: o.name ?? 'synth',
    // The configuration is the truth: no tcp_info sampling (27 samplers at 10 ms would take a core).
    tcpInfoIntervalMs: 0,
    origins,
    regions: [
      { name: 'us', rttMs: 10, jitterMs: 1, origins: everywhere },
      // edge-bbr-b's European PoP runs CUBIC.
      { name: 'eu', rttMs: 40, jitterMs: 2, origins: everywhere, cca: { 'edge-bbr-b': 'cubic' } },
      // In Asia edge-cubic-b runs BBR, and host-reno's sites are served over HTTP/3 (quinn NewReno).
      { name: 'ap', rttMs: 150, jitterMs: 5, origins: [...everywhere.filter((n) => n !== 'host-reno'), RENO_H3], cca: { 'edge-cubic-b': 'bbr' } },
    ],
  };
}

/** The site list of a synthetic internet: each site's large object, one URL a line. */
export function syntheticSiteList(cfg: LabConfigInput, bytes = SYNTHETIC_OBJECT_BYTES): string[] {
  const hosts = [...new Set(cfg.origins.flatMap((o) => o.hosts))].sort();
  return hosts.map((h) => `https://${h}/bytes/${bytes}`);
}
