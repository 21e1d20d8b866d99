/**
 * The reaper: at start-up, undo what runs that died without cleaning up (SIGKILL, power
 * cut of the process) left behind. It reads only owner records written by ccbrowse and
 * acts only on the resources listed there, and never on a record whose owner is alive.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ownersDir, type OwnerRecord } from './cleanup.js';
import { describe, isSameProcess, undo } from './resources.js';

export interface ReapReport {
  ownersReaped: string[];
  resourcesRemoved: string[];
  liveOwnersSkipped: string[];
  /** Resources that could not be undone (their record is kept). */
  failures: string[];
}

export async function reap(): Promise<ReapReport> {
  const report: ReapReport = { ownersReaped: [], resourcesRemoved: [], liveOwnersSkipped: [], failures: [] };
  let files: string[];
  try {
    files = readdirSync(ownersDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return report;
  }
  for (const file of files) {
    const path = join(ownersDir(), file);
    let record: OwnerRecord;
    try {
      record = JSON.parse(readFileSync(path, 'utf8')) as OwnerRecord;
    } catch {
      continue; // unreadable: written by something else or mid-write; leave it alone
    }
    if (record.pid === process.pid) continue;
    if (isSameProcess(record.pid, record.pidStartTime)) {
      report.liveOwnersSkipped.push(record.ownerId);
      continue;
    }
    const failed: string[] = [];
    for (const r of [...record.resources].reverse()) {
      try {
        await undo(r);
        report.resourcesRemoved.push(describe(r));
      } catch (err) {
        failed.push(`${describe(r)}: ${(err as Error).message}`);
      }
    }
    if (failed.length) {
      // Kept for a reaper that can undo them (the next start through the CLI).
      report.failures.push(...failed.map((f) => `${record.ownerId}: ${f}`));
      continue;
    }
    rmSync(path, { force: true });
    report.ownersReaped.push(record.ownerId);
  }
  return report;
}
