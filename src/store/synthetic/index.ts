/** Synthetic results: as run directories on disk (fixtures) or straight into a store (benchmarks). */
import { join } from 'node:path';
import { writeRunFiles } from '../../results/write.js';
import { RESULTS_SCHEMA_VERSION } from '../../results/schema.js';
import { ingestRuns, type IngestInput } from '../ingest.js';
import type { Store } from '../open.js';
import { syntheticRuns, type SyntheticOptions } from './runs.js';

export { syntheticRuns, HOSTILE_PAYLOADS, DEFAULT_REGIONS, type SyntheticOptions } from './runs.js';
export { syntheticEvidence } from './evidence.js';
export { rng, subSeed, type Rng } from './prng.js';

/** A directory name for a run id (ids may hold characters a file system or shell dislikes). */
export function runDirName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Write one run as a run directory (validated by the writer, as a real run is). */
export function writeRunData(dir: string, d: IngestInput): void {
  const runId = d.run.runId;
  writeRunFiles(dir, {
    run: d.run,
    flows: { schemaVersion: RESULTS_SCHEMA_VERSION, runId, flows: d.flows },
    verdicts: { schemaVersion: RESULTS_SCHEMA_VERSION, runId, model: d.model ?? d.run.versions.model, analysedAt: d.run.endedAt ?? d.run.startedAt, verdicts: d.verdicts },
    assets: { schemaVersion: RESULTS_SCHEMA_VERSION, runId, assets: d.assets },
  });
}

/** Writes every synthetic run under root/<run id>/; returns the directories. */
export function writeSyntheticRunDirs(root: string, opts: SyntheticOptions): string[] {
  const dirs: string[] = [];
  for (const d of syntheticRuns(opts)) {
    const dir = join(root, runDirName(d.run.runId));
    writeRunData(dir, d);
    dirs.push(dir);
  }
  return dirs;
}

/** Ingests every synthetic run, `batch` runs per transaction; returns the number of runs. */
export function fillSyntheticStore(store: Store, opts: SyntheticOptions, batch = 500, onProgress?: (runs: number) => void): number {
  let n = 0;
  let pending: IngestInput[] = [];
  for (const d of syntheticRuns(opts)) {
    pending.push(d);
    if (pending.length >= batch) {
      n += ingestRuns(store, pending).length;
      pending = [];
      onProgress?.(n);
    }
  }
  if (pending.length) n += ingestRuns(store, pending).length;
  return n;
}
