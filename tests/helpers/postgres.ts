/**
 * A throw-away PostgreSQL cluster for tests (Debian's `postgresql` package, set up by
 * setup.sh): initdb + pg_ctl in a temp dir, listening only on a unix socket in that dir.
 * initdb refuses to run as root, so the cluster runs as `nobody`; clients (root) connect as
 * the cluster's superuser `ccb` with trust authentication (the socket is the only way in).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  /** postgres:// URL for pg and the ccbrowse CLI (`--store`). */
  url: string;
  dir: string;
  stop(): void;
}

/** initdb/pg_ctl of the newest installed major version (the path names the version: never hard-coded). */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

const USER = 'nobody';

function asUser(bin: string, args: string[]): string {
  return execFileSync('runuser', ['-u', USER, '--', bin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

export function startPostgres(): TestPostgres {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (setup.sh installs Debian\'s postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'ccb-pg-'));
  const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const stop = () => {
    try { if (existsSync(join(data, 'postmaster.pid'))) asUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']); } catch { /* already gone */ }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    asUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'ccb', '-E', 'UTF8', '--no-sync']);
    // Socket only (no TCP), in the temp dir; fsync off: a throw-away cluster.
    asUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-k ${dir} -c listen_addresses='' -c fsync=off -c max_connections=100`, 'start']);
  } catch (err) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
    stop();
    throw new Error(`test PostgreSQL did not start: ${(err as Error).message}\n${log}`);
  }
  return { url: `postgres://ccb@localhost/postgres?host=${encodeURIComponent(dir)}`, dir, stop };
}
