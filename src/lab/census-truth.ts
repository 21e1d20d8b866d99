/**
 * The census a lab configuration implies: for every hostname and region, the origin that
 * serves it there, over which protocol, with which controller. A crawl's recovered
 * site x region matrix is scored against this (train/census-score.ts). The lab configuration
 * is the truth, so nothing here reads a running lab.
 */
import { deployment, type LabConfig } from './config.js';

export interface ExpectedCell {
  host: string;
  region: string;
  origin: string;
  protocol: 'tcp' | 'quic';
  /** The lab's controller name (cubic, bbr, newreno, ...). */
  cca: string;
  /** The origin never answers there: no controller can be read. */
  silent: boolean;
}

/**
 * One cell per (hostname, region) where some origin serves it. Where two origins of a region
 * list the same hostname, the first in the configuration wins, as a probe resolves it
 * (probe/probe.ts: the first origin of the region, origins in address = configuration order).
 */
export function expectedCensus(cfg: LabConfig): ExpectedCell[] {
  const cells = new Map<string, ExpectedCell>();
  for (const d of deployment(cfg)) {
    for (const host of d.origin.hosts) {
      const key = `${host}\t${d.region}`;
      if (cells.has(key)) continue;
      cells.set(key, { host, region: d.region, origin: d.origin.name, protocol: d.origin.serve === 'tcp' ? 'tcp' : 'quic', cca: d.cca, silent: d.silent });
    }
  }
  return [...cells.values()];
}

/** Hostnames whose controller or protocol is not the same in every region they are served in. */
export function regionDependentHosts(cells: readonly ExpectedCell[]): Set<string> {
  const seen = new Map<string, string>();
  const differ = new Set<string>();
  for (const c of cells) {
    const what = `${c.protocol}:${c.cca}`;
    const before = seen.get(c.host);
    if (before === undefined) seen.set(c.host, what);
    else if (before !== what) differ.add(c.host);
  }
  return differ;
}
