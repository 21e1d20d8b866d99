/**
 * What a probe crawl found, read back from its run directories: each job's probes (one per
 * profile) traced as the training datasets trace them (dataset.ts entryFromProbe: the bulk
 * flow from the origin, key log for HTTP/3, the profile's known bottleneck, the host's
 * disturbance), each classified, and fused over the profiles with the model's calibration.
 * The crawl's own detail is not trusted for the answer: the verdict is recomputed here with
 * the model being scored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyFlow, fuseProfiles, type Model, type Verdict } from '../classify/index.js';
import { disturbedReason } from '../classify/disturbance.js';
import type { ObservedCell, ObservedVerdict } from './census-score.js';
import { entryFromProbe, toSeries } from './dataset.js';
import type { ProbeOutcome } from './probes.js';

/** One stored crawl result, as much of it as this needs. */
export interface ProbeJobResult { region: string; url: string; dirs: string[] }

const asObserved = (v: Verdict): ObservedVerdict => ({ label: v.label, confidence: v.confidence });

/** The verdicts of one probe job (null when none of its directories holds a readable flow). */
export async function observeProbeJob(job: ProbeJobResult, model: Model): Promise<ObservedCell | null> {
  const raw: Verdict[] = [];
  let disturbedFlows = 0;
  for (const dir of job.dirs) {
    const pj = join(dir, 'probe.json');
    if (!existsSync(pj) || !existsSync(join(dir, 'capture.pcap'))) continue;
    const result = JSON.parse(readFileSync(pj, 'utf8')) as NonNullable<ProbeOutcome['result']>;
    const protocol = result.origin.serve === 'tcp' ? 'tcp' : 'quic';
    const target = { origin: result.origin.name, protocol, stack: result.origin.stack ?? 'tcp', cca: result.origin.cca, label: '', host: '' } as const;
    const entry = await entryFromProbe({ target, region: result.region, profile: result.profile, path: '', rep: 0, result });
    if (!entry) continue;
    const series = toSeries(entry);
    if (disturbedReason(entry.disturbance, series.rttSeconds)) disturbedFlows++;
    raw.push(classifyFlow({ ...series, transport: protocol }, model, { disturbance: entry.disturbance ?? null }));
  }
  if (raw.length === 0) return null;
  return {
    host: new URL(job.url).hostname,
    region: job.region,
    verdict: asObserved(fuseProfiles(raw, { calibration: model.calibration })),
    flows: raw.map((v) => asObserved(fuseProfiles([v], { calibration: model.calibration }))),
    disturbedFlows,
  };
}

/** A crawl's stored results, as much as this needs (crawl/backend.ts StoredResult fits). */
export interface StoredProbeResult { status: string; region: string; dirs: string[]; detail: unknown }

/**
 * The cells a probe crawl found: its complete probe results classified; one per site and
 * region (a later round or repeat of the same cell is left out: the census is one matrix).
 */
export async function observeCrawl(results: readonly StoredProbeResult[], model: Model): Promise<ObservedCell[]> {
  const out = new Map<string, ObservedCell>();
  for (const r of results) {
    const detail = r.detail as { mode?: string; url?: string } | null;
    if (r.status !== 'complete' || detail?.mode !== 'probe' || !detail.url) continue;
    const key = `${new URL(detail.url).hostname}\t${r.region}`;
    if (out.has(key)) continue;
    const o = await observeProbeJob({ region: r.region, url: detail.url, dirs: r.dirs }, model);
    if (o) out.set(key, o);
  }
  return [...out.values()];
}
