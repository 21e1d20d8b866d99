/**
 * `ccbrowse lab train`: probe every lab controller under both nebby profiles (in every region
 * given), trace the captures, keep the labelled series (build/train/), train the model and write
 * it (models/ccbrowse-model.json, provenance 'lab').
 */
import type { CrossTrafficSpec } from './probes.js';
import type { BifSeries } from '../trace/types.js';
import type { PipelineConfig } from '../classify/config.js';
import { existsSync } from 'node:fs';
import { trainModel, saveModel, type Model } from '../classify/index.js';
import type { RunningLab } from '../lab/state.js';
import { loadProfile, withOverrides, type Profile, type ProfileOverrides } from '../shaper/profile.js';
import { entryFromProbe, labelledFrom, loadDataset, loadDatasets, saveDataset, type DatasetEntry } from './dataset.js';
import { labTargets, runProbes, type ProbeJob } from './probes.js';

export interface CollectOptions {
  regions: string[];
  profiles: string[];
  runs: number;
  bytes: number;
  concurrency: number;
  outDir: string;
  only?: string[];
  /** Every probe competes with a download from this lab origin through a shared queue. */
  crossTraffic?: CrossTrafficSpec;
  progress?: (m: string) => void;
  /** Bytes per probe for a profile and transport (overrides `bytes`: the grid sizes transfers by time). */
  bytesFor?: (profile: Profile, protocol: 'tcp' | 'quic') => number;
  /** Changes applied to every profile (the grid's bottleneck axes). */
  profileOverrides?: ProfileOverrides;
  /** Only targets of these transports. */
  protocols?: Array<'tcp' | 'quic'>;
  /** The conditions recorded with each entry (the grid). */
  conditionsOf?: (profile: Profile) => Record<string, unknown>;
  /** Ctrl-C: stops the probes (their directories stay, marked incomplete) and throws. */
  signal?: AbortSignal;
  /** Per probe, a watcher that may end the transfer once its verdict is stable (runProbes). */
  watchFor?: Parameters<typeof runProbes>[2]['watchFor'];
}

/** Probes and traces: returns one dataset entry per completed probe with a usable flow. */
export async function collect(lab: RunningLab, o: CollectOptions): Promise<DatasetEntry[]> {
  const profiles = (await Promise.all(o.profiles.map((p) => loadProfile(p)))).map((p) => (o.profileOverrides ? withOverrides(p, o.profileOverrides) : p));
  const jobs: ProbeJob[] = [];
  // Interleave controllers so an interrupted run still covers every class.
  for (let rep = 0; rep < o.runs; rep++)
    for (const region of o.regions)
      for (const target of labTargets(lab, region, o.only).filter((t) => !o.protocols || o.protocols.includes(t.protocol)))
        for (const profile of profiles) {
          const bytes = o.bytesFor ? o.bytesFor(profile, target.protocol) : o.bytes;
          jobs.push({ target, region, profile, path: `/bytes/${bytes}`, rep });
        }
  const outcomes = await runProbes(lab, jobs, { outDir: o.outDir, concurrency: o.concurrency, progress: o.progress, crossTraffic: o.crossTraffic, signal: o.signal, watchFor: o.watchFor });
  const entries: DatasetEntry[] = [];
  for (const out of outcomes) {
    try {
      const e = await entryFromProbe(out);
      if (e) entries.push(o.conditionsOf ? { ...e, conditions: o.conditionsOf(out.profile) } : e);
    } catch (err) {
      o.progress?.(`trace failed for ${out.result?.dir}: ${(err as Error).message}`);
    }
  }
  return entries;
}

export interface TrainFromOptions {
  /** The series of an entry (benchmarks pass one object per entry so features are extracted once). */
  seriesOf?: (e: DatasetEntry) => BifSeries;
  /** Pipeline tunables (default: the shipped defaults). */
  pipeline?: PipelineConfig;
  /** Labels to leave out (hold-one-out). */
  exclude?: string[];
  /** Train on these protocols' traces only. */
  protocols?: Array<'tcp' | 'quic'>;
  source: string;
}

export function trainFromEntries(entries: DatasetEntry[], o: TrainFromOptions): Model {
  const used = entries.filter((e) => !(o.exclude ?? []).includes(e.label) && (!o.protocols || o.protocols.includes(e.protocol)));
  const version = new Date().toISOString();
  const origins = [...new Set(used.map((e) => e.origin))].sort();
  return trainModel(labelledFrom(used, o.seriesOf), {
    ...(o.pipeline ? { pipeline: o.pipeline } : {}),
    provenance: 'lab',
    source: o.source,
    note: `lab-trained ${version}: ${used.length} traces from ${origins.length} origins (${origins.join(', ')}), profiles ${[...new Set(used.map((e) => e.profile))].join('+')}, regions ${[...new Set(used.map((e) => e.region))].join('+')}${o.exclude?.length ? `; held out ${o.exclude.join(', ')}` : ''}`,
  });
}

export interface LabTrainOptions extends CollectOptions {
  datasetPath: string;
  modelPath: string;
  /** Reuse the saved dataset instead of probing (retrain only). */
  fromDataset?: boolean;
  /** Append new probes to an existing dataset instead of replacing it. */
  append?: boolean;
  protocols?: Array<'tcp' | 'quic'>;
}

export async function labTrain(lab: RunningLab | undefined, o: LabTrainOptions): Promise<{ model: Model; entries: DatasetEntry[] }> {
  let entries: DatasetEntry[];
  if (o.fromDataset) entries = loadDatasets(o.datasetPath);
  else {
    if (!lab) throw new Error('the lab is not running');
    const fresh = await collect(lab, o);
    entries = o.append && existsSync(o.datasetPath) ? [...loadDataset(o.datasetPath).entries, ...fresh] : fresh;
    saveDataset(o.datasetPath, entries);
  }
  const model = trainFromEntries(entries, { source: o.datasetPath, protocols: o.protocols });
  saveModel(model, o.modelPath);
  return { model, entries };
}
