/**
 * Opening the results store: one SQLite file (no server), migrated to the current schema on
 * open. WAL so the report can read while a crawl writes.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { CcbError, ExitCode } from '../util/errors.js';
import { MIGRATIONS, STORE_SCHEMA_VERSION } from './migrations.js';

export interface Store {
  readonly db: Database.Database;
  readonly path: string;
  readonly schemaVersion: number;
  close(): void;
}

export interface OpenOptions {
  /** Open read-only (the report): fails if the file is missing or needs a migration. */
  readonly?: boolean;
}

function currentVersion(db: Database.Database): number {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!has) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

export function migrate(db: Database.Database): number {
  const from = currentVersion(db);
  if (from > STORE_SCHEMA_VERSION) {
    throw new CcbError(
      `results store is at schema version ${from}, this ccbrowse knows up to ${STORE_SCHEMA_VERSION}`,
      'upgrade ccbrowse, or use a new store file',
      ExitCode.badInput,
    );
  }
  const pending = MIGRATIONS.filter((m) => m.version > from);
  if (pending.length === 0) return from;
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const record = db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)');
    for (const m of pending) {
      db.exec(m.sql);
      record.run(m.version, m.description, new Date().toISOString());
    }
  })();
  return STORE_SCHEMA_VERSION;
}

export function openStore(path: string, opts: OpenOptions = {}): Store {
  if (opts.readonly && !existsSync(path)) {
    throw new CcbError(`results store ${path} does not exist`, 'pass --store with the file `ccbrowse run` wrote, or run directories', ExitCode.badInput);
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: !!opts.readonly, fileMustExist: !!opts.readonly });
  } catch (err) {
    throw new CcbError(`cannot open results store ${path}: ${(err as Error).message}`, 'check the path and that it is an SQLite file', ExitCode.badInput);
  }
  let version: number;
  try {
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    if (opts.readonly) {
      version = currentVersion(db);
      if (version !== STORE_SCHEMA_VERSION) {
        throw new CcbError(
          `results store ${path} is at schema version ${version}, expected ${STORE_SCHEMA_VERSION}`,
          'open it once read-write (e.g. `ccbrowse analyze`) to migrate it',
          ExitCode.badInput,
        );
      }
    } else {
      version = migrate(db);
    }
  } catch (err) {
    db.close();
    if (err instanceof CcbError) throw err;
    throw new CcbError(`${path} is not a usable results store: ${(err as Error).message}`, 'pass an SQLite file written by ccbrowse', ExitCode.badInput);
  }
  return { db, path, schemaVersion: version, close: () => db.close() };
}
