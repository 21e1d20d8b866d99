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
}

export async function reap(): Promise<ReapReport> {
  const report: ReapReport = { ownersReaped: [], resourcesRemoved: [], liveOwnersSkipped: [] };
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
    for (const r of [...record.resources].reverse()) {
      await undo(r);
      report.resourcesRemoved.push(describe(r));
    }
    rmSync(path, { force: true });
    report.ownersReaped.push(record.ownerId);
  }
  return report;
}
