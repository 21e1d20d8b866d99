/** Shared by the store tests: temp directories (removed after each file) and fixture copies. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURE_RUN = join(import.meta.dirname, '..', '..', 'fixtures', 'results', 'run-minimal');
export const FIXTURE_LAB = join(import.meta.dirname, '..', '..', 'fixtures', 'results', 'lab-bench.json');

const made: string[] = [];

export function tempDir(prefix = 'ccb-store-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Call from afterAll in each test file that used tempDir(). */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function copyFixture(): string {
  const dir = join(tempDir(), 'run');
  cpSync(FIXTURE_RUN, dir, { recursive: true });
  return dir;
}

/** Edit one JSON file of a run directory in place. */
export function editJson(dir: string, file: string, edit: (o: any) => void): void {
  const p = join(dir, file);
  const o = JSON.parse(readFileSync(p, 'utf8'));
  edit(o);
  writeFileSync(p, JSON.stringify(o));
}
