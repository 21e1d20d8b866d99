/**
 * Where a running lab publishes its state, and how clients (runs, probes) find, check and read
 * it. Loads nothing of the lab itself: a run imports this, not lab.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../net/cleanup.js';
import type { RegionPath } from './network.js';
import { isSameProcess, processStartTime } from '../net/resources.js';

/** What a started lab publishes: plain data, read by runs to attach and to map hostnames. */
export interface LabOriginState {
  region: string;
  name: string;
  hosts: string[];
  serve: 'tcp' | 'h3';
  stack?: string;
  cca: string;
  ip: string;
  port: number;
  netns: string;
  pid: number;
  /** Server-side ground truth, JSON lines (tcp_info samples or QUIC stats). */
  groundTruth: string;
  requestLog?: string;
  /** Accepts connections and never answers (the region's `silent`): no controller serves. */
  silent?: boolean;
}

export interface LabState {
  schemaVersion: 1;
  labId: string;
  name: string;
  routerNs: string;
  regions: { name: string; rttMs: number; jitterMs: number; index: number; path?: RegionPath }[];
  origins: LabOriginState[];
  certs: { ca: string; cert: string; key: string; spki: string };
  sitesRoot: string;
  dataDir: string;
  startedAt: string;
}

/** The supervisor's pid and start time (so a recycled pid is never taken for it). */
export type RunningLab = LabState & { pid: number; supervisorStartTime?: string };

export function labStateDir(): string {
  return join(stateDir(), 'lab');
}

export function labStatePath(name = 'default'): string {
  return join(labStateDir(), `${name}.json`);
}

/**
 * Written by `lab up` as soon as it started the supervisor, removed once the lab is up or gone:
 * a second `lab up` (after the first was killed) waits for that supervisor instead of starting
 * another lab of the same name.
 */
export function labStartingPath(name = 'default'): string {
  return join(labStateDir(), `${name}.starting.json`);
}

export interface StartingLab { pid: number; startTime: string; log: string }

/** The supervisor still starting the lab of that name, or undefined. */
export function readStartingLab(name = 'default'): StartingLab | undefined {
  try {
    const s = JSON.parse(readFileSync(labStartingPath(name), 'utf8')) as StartingLab;
    return isSameProcess(s.pid, s.startTime) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** The running lab of that name, or undefined (no state file, or its supervisor is gone). */
export function readRunningLab(name = 'default'): RunningLab | undefined {
  const path = labStatePath(name);
  if (!existsSync(path)) return undefined;
  try {
    const lab = JSON.parse(readFileSync(path, 'utf8')) as RunningLab;
    const start = lab.supervisorStartTime ?? processStartTime(lab.pid);
    return start !== undefined && isSameProcess(lab.pid, start) ? lab : undefined;
  } catch {
    return undefined;
  }
}

/** Hostname -> origin IP for one region: what Chromium's host-resolver rules need. */
export function regionHostMap(lab: LabState, region: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const o of lab.origins.filter((x) => x.region === region)) for (const h of o.hosts) map[h] = o.ip;
  return map;
}
