/** Where a running lab publishes its state, and how clients find and check it. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../net/cleanup.js';
import { isSameProcess, processStartTime } from '../net/resources.js';
import type { LabState } from './lab.js';

export type RunningLab = LabState & { pid: number };

export function labStateDir(): string {
  return join(stateDir(), 'lab');
}

export function labStatePath(name = 'default'): string {
  return join(labStateDir(), `${name}.json`);
}

/** The running lab of that name, or undefined (no state file, or its supervisor is gone). */
export function readRunningLab(name = 'default'): RunningLab | undefined {
  const path = labStatePath(name);
  if (!existsSync(path)) return undefined;
  try {
    const lab = JSON.parse(readFileSync(path, 'utf8')) as RunningLab;
    const start = processStartTime(lab.pid);
    return start !== undefined && isSameProcess(lab.pid, start) ? lab : undefined;
  } catch {
    return undefined;
  }
}
