/**
 * Every test file's scratch space in one directory per suite run, removed when the run ends.
 *
 * WHY: tests (and the CLI processes they start) make temp dirs with mkdtemp(tmpdir()) for
 * captures, stores and user files; a suite left ~70 of them in /tmp per run (1.2 GB after a day).
 * TMPDIR points every one of them here instead, so one removal covers all, and a run that was
 * killed is cleaned up by the next one (its pid is in the name).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'ccb-tests-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default function setup(): () => void {
  const parent = tmpdir();
  for (const name of readdirSync(parent)) {
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && pid > 0 && !alive(pid)) remove(join(parent, name));
  }
  const dir = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  // As /tmp: processes the tests run as another user (Chromium, PostgreSQL) make their dirs here too.
  chmodSync(dir, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    remove(dir);
  };
}

/** Best effort: a file still held by a process a test left behind must not fail the run. */
function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    console.warn(`could not remove ${dir}: ${(err as Error).message}`);
  }
}
