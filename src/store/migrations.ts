/**
 * The store's schema, as ordered migrations. A store records the version it is at; opening
 * it applies the missing steps in one transaction. Never edit a shipped step: add one.
 *
 * Shape (one row per): runs (site, region, date = UTC day of the start), flows (per run and
 * profile), verdicts (per flow), evidence (per flow, deflated JSON: kept out of the verdict
 * rows so scans by label stay small), assets (per HAR entry), and cells: per run x asset type
 * x label, the bytes/flows/assets and confidence-weighted bytes. Cells are what the landscape,
 * matrix and changes queries add up, so those never touch the (much larger) assets table.
 * Version 2 adds the majority votes of `run --repeat N` (votes: one row per vote file,
 * vote_groups: per asset type and per host) and runs.repeat_group, the vote id a run took part in.
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, flows, verdicts, evidence, assets, cells, lab benchmarks',
    sql: `
CREATE TABLE runs (
  run_pk INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  site TEXT NOT NULL,
  region TEXT NOT NULL,
  date TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('complete', 'incomplete')),
  incomplete_reason TEXT,
  scenario_name TEXT NOT NULL,
  scenario_kind TEXT NOT NULL,
  scenario_file TEXT NOT NULL,
  start_url TEXT NOT NULL,
  mode TEXT NOT NULL,
  profiles TEXT NOT NULL,
  repeat_index INTEGER,
  repeat_of INTEGER,
  tool_version TEXT NOT NULL,
  browser_version TEXT NOT NULL,
  model TEXT,
  source_dir TEXT,
  ingested_at TEXT NOT NULL
);
CREATE INDEX runs_site_region_date ON runs (site, region, date);
CREATE INDEX runs_region_date ON runs (region, date);
CREATE INDEX runs_date ON runs (date);

CREATE TABLE flows (
  flow_pk INTEGER PRIMARY KEY,
  run_pk INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  flow_id TEXT NOT NULL,
  profile TEXT NOT NULL,
  protocol TEXT NOT NULL,
  transport TEXT NOT NULL,
  client_ip TEXT NOT NULL,
  client_port INTEGER NOT NULL,
  server_ip TEXT NOT NULL,
  server_port INTEGER NOT NULL,
  server_name TEXT,
  bytes_down INTEGER NOT NULL,
  bytes_up INTEGER NOT NULL,
  packets_down INTEGER NOT NULL,
  packets_up INTEGER NOT NULL,
  start_ms REAL NOT NULL,
  duration_ms REAL NOT NULL,
  rtt_ms REAL,
  bif_method TEXT NOT NULL,
  retransmissions INTEGER,
  UNIQUE (run_pk, flow_id)
);

CREATE TABLE verdicts (
  flow_pk INTEGER PRIMARY KEY REFERENCES flows (flow_pk) ON DELETE CASCADE,
  run_pk INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  label TEXT NOT NULL,
  kind TEXT NOT NULL,
  confidence REAL NOT NULL,
  reason TEXT NOT NULL,
  posterior TEXT NOT NULL,
  shape_cluster TEXT
);
CREATE INDEX verdicts_run ON verdicts (run_pk);
CREATE INDEX verdicts_label ON verdicts (label);

CREATE TABLE evidence (
  flow_pk INTEGER PRIMARY KEY REFERENCES flows (flow_pk) ON DELETE CASCADE,
  run_pk INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  deflated BLOB NOT NULL
);
CREATE INDEX evidence_run ON evidence (run_pk);

CREATE TABLE assets (
  asset_pk INTEGER PRIMARY KEY,
  run_pk INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  flow_pk INTEGER REFERENCES flows (flow_pk) ON DELETE CASCADE,
  har_index INTEGER NOT NULL,
  profile TEXT NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  asset_type TEXT NOT NULL,
  mime TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  status INTEGER,
  protocol TEXT,
  start_ms REAL NOT NULL,
  end_ms REAL NOT NULL
);
CREATE INDEX assets_run ON assets (run_pk);
CREATE INDEX assets_flow ON assets (flow_pk);

CREATE TABLE cells (
  run_pk INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  asset_type TEXT NOT NULL,
  label TEXT NOT NULL,
  kind TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  flows INTEGER NOT NULL,
  assets INTEGER NOT NULL,
  conf_bytes REAL NOT NULL,
  PRIMARY KEY (run_pk, asset_type, label)
) WITHOUT ROWID;
CREATE INDEX cells_label ON cells (label);

CREATE TABLE lab_benchmarks (
  bench_pk INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (name, created_at)
);
`,
  },
  {
    version: 2,
    description: 'majority votes of --repeat runs (votes, vote_groups) and the repeat group of each run',
    // Additive: a new nullable column and two new tables; nothing existing changes meaning.
    sql: `
ALTER TABLE runs ADD COLUMN repeat_group TEXT;
CREATE INDEX runs_repeat_group ON runs (repeat_group);

CREATE TABLE votes (
  vote_pk INTEGER PRIMARY KEY,
  vote_id TEXT NOT NULL UNIQUE,
  site TEXT NOT NULL,
  region TEXT NOT NULL,
  date TEXT NOT NULL,
  created_at TEXT NOT NULL,
  scenario_name TEXT NOT NULL,
  scenario_kind TEXT NOT NULL,
  mode TEXT NOT NULL,
  profiles TEXT NOT NULL,
  model TEXT NOT NULL,
  repeat_of INTEGER NOT NULL,
  runs TEXT NOT NULL,
  rule TEXT NOT NULL,
  source_file TEXT,
  ingested_at TEXT NOT NULL
);
CREATE INDEX votes_site_region_date ON votes (site, region, date);

CREATE TABLE vote_groups (
  vote_pk INTEGER NOT NULL REFERENCES votes (vote_pk) ON DELETE CASCADE,
  dimension TEXT NOT NULL CHECK (dimension IN ('asset-type', 'host')),
  key TEXT NOT NULL,
  label TEXT NOT NULL,
  kind TEXT NOT NULL,
  confidence REAL NOT NULL,
  ballots INTEGER NOT NULL,
  answers INTEGER NOT NULL,
  winner_votes INTEGER NOT NULL,
  votes TEXT NOT NULL,
  reason TEXT NOT NULL,
  related TEXT NOT NULL,
  protocols TEXT NOT NULL,
  per_run TEXT NOT NULL,
  PRIMARY KEY (vote_pk, dimension, key)
) WITHOUT ROWID;
CREATE INDEX vote_groups_label ON vote_groups (label);
`,
  },
];

export const STORE_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
