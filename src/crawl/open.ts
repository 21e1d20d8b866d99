/**
 * Opens the crawl backend a `--store` names: an SQLite file (the one-machine default) or a
 * postgres:// URL (many machines). The Postgres modules (pg, pg-boss) are imported only for
 * a Postgres store, so SQLite crawls never load them.
 */
import { isPostgresUrl, type CrawlBackend } from './backend.js';
import type { PostgresCrawlBackend } from './postgres/backend.js';

export async function openCrawlBackend(store: string): Promise<CrawlBackend> {
  if (isPostgresUrl(store)) return openPostgresBackend(store);
  const [{ openStore }, { SqliteCrawlBackend }] = await Promise.all([import('../store/index.js'), import('./sqlite-backend.js')]);
  const s = openStore(store);
  const backend = SqliteCrawlBackend.open(s);
  backend.close = async () => s.close();
  return backend;
}

export async function openPostgresBackend(url: string): Promise<PostgresCrawlBackend> {
  const { PostgresCrawlBackend: Backend } = await import('./postgres/backend.js');
  return Backend.open(url);
}

/** Copies a Postgres crawl store (one crawl or all) into an SQLite results store file. */
export async function exportPostgresStore(url: string, sqlitePath: string, crawlId?: string) {
  const [{ openStore }, { exportToSqlite }] = await Promise.all([import('../store/index.js'), import('./postgres/export.js')]);
  const pg = await openPostgresBackend(url);
  const store = openStore(sqlitePath);
  try {
    return await exportToSqlite(pg, store, crawlId);
  } finally {
    store.close();
    await pg.close();
  }
}
