/** Public surface of the results store. */
export { openStore, migrate, type Store, type OpenOptions } from './open.js';
export { MIGRATIONS, STORE_SCHEMA_VERSION, type Migration } from './migrations.js';
export { ingestRun, ingestRuns, ingestRunDir, ingestLabBench, ingestVote, deleteRun, dayOf, type IngestInput, type IngestResult } from './ingest.js';
export { dominantLabel, mergeTallies, type Dominant, type LabelTally } from './dominant.js';
export { cellsOfRun, type RunCell } from './cells.js';
export {
  storeSummary,
  snapshot,
  landscape,
  landscapeOf,
  matrix,
  matrixOf,
  differsAcrossRegions,
  siteRuns,
  listSites,
  changes,
  labBenchmarks,
  type StoreSummary,
  type Snapshot,
  type SnapshotCell,
  type Landscape,
  type LabelCounts,
  type Matrix,
  type MatrixRow,
  type MatrixCell,
  type SiteRun,
  type SiteFlow,
  type Change,
  type Changes,
  type LabelAt,
} from './queries.js';
export { iterateRuns, iterateFlows, iterateAssets, RUN_COLUMNS, FLOW_COLUMNS, ASSET_COLUMNS, type ExportValue } from './export.js';
export { listVotes, type StoredVote, type StoredVoteGroup } from './votes.js';
