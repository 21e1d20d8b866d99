/**
 * `ccbrowse lab grid`: measures every lab controller under every condition of a grid file
 * (src/train/grid.ts). Conditions are taken a few at a time: their server-side paths become the
 * regions of one lab brought up for them (more regions would make one lab's tcp_info samplers
 * load a 2-core host), then each condition's probes run with its host settings (probes at
 * once, busy processes beside them) and its bottleneck changes, and its traces are written to
 * <out>/<condition>.json as they finish. A condition whose dataset exists is skipped, so an
 * interrupted grid resumes where it stopped.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CleanupStack } from '../net/cleanup.js';
import { processStartTime } from '../net/resources.js';
import { startProcess } from '../net/launch.js';
import { labDown, labUp } from '../lab/control.js';
import { loadLabConfig, parseLabConfig, type LabConfig } from '../lab/config.js';
import { BadInputError, CcbError } from '../util/errors.js';
import { abortableSleep, throwIfInterrupted } from '../util/interrupt.js';
import { tcpPayloadBytes, type Profile } from '../shaper/profile.js';
import { bdpBytes, bufferBytes } from '../shaper/profile.js';
import { loadDataset, saveDataset } from './dataset.js';
import { resolveCondition, type EntryConditions, type Grid, type ResolvedCondition } from './grid.js';
import { collect } from './train.js';

/** Regions per lab: each region runs one origin (and a tcp_info sampler) per controller. */
const REGIONS_PER_LAB = 3;
/** Frame bytes per TCP segment beyond its payload: IP 20 + TCP 20 + timestamps 12 + Ethernet 14. */
const TCP_FRAME_OVERHEAD = 66;
/** QUIC payload share of a frame at the lab's ~1250-1350-byte datagrams. */
const QUIC_EFFICIENCY = 0.9;

/** Bytes that take about `seconds` at the profile's rate, counting each transport's framing. */
export function bytesForSeconds(profile: Profile, protocol: 'tcp' | 'quic', seconds: number): number {
  const payload = tcpPayloadBytes(profile);
  const efficiency = protocol === 'tcp' ? payload / (payload + TCP_FRAME_OVERHEAD) : QUIC_EFFICIENCY;
  return Math.round((profile.rateKbit * 1000 / 8) * efficiency * seconds / 1000) * 1000;
}

export function entryConditions(c: ResolvedCondition, p: Profile): EntryConditions {
  const r = c.region;
  return {
    id: c.id,
    axis: c.axis,
    value: c.value,
    path: {
      rttMs: r.rttMs ?? 0,
      jitterMs: r.jitterMs ?? 0,
      jitterReorders: r.jitterReorders ?? false,
      reorder: r.reorder && r.reorder.percent > 0 ? { ...r.reorder } : null,
      loss: r.loss && r.loss.percent > 0 ? { percent: r.loss.percent, burstLen: r.loss.burstLen ?? null } : null,
      sender: { initcwnd: r.sender?.initcwnd ?? null, pacing: r.sender?.pacing ?? false, tso: r.sender?.tso ?? false },
    },
    bottleneck: {
      profile: p.name, rateKbit: p.rateKbit, delayMs: p.delayMs,
      bufferBdp: Math.round((bufferBytes(p) / Math.max(1, bdpBytes(p))) * 100) / 100,
      tcpMss: p.tcpMss ?? null, sack: p.sack, ackAggregationMs: p.ackAggregationMs, delayedAck: p.delayedAck,
      queue: c.crossTraffic ? 'shared' : p.queue,
    },
    host: { concurrency: c.concurrency, cpuLoad: c.cpuLoad },
    crossTraffic: c.crossTraffic,
  };
}

export interface GridRunOptions {
  outDir: string;
  /** Only these condition ids (default: all). */
  only?: string[];
  /** Measurements per controller, overriding the grid's and the conditions' own. */
  runs?: number;
  progress?: (m: string) => void;
  /** Ctrl-C: the condition in progress stops (its probes keep what they captured), none after it starts. */
  signal?: AbortSignal;
}

/** Runs the grid; returns the dataset files written (one per condition measured). */
export async function runGrid(grid: Grid, o: GridRunOptions): Promise<string[]> {
  const say = o.progress ?? (() => {});
  mkdirSync(o.outDir, { recursive: true });
  const baseLab = await loadLabConfig(resolve(grid.lab));
  const unknown = (o.only ?? []).filter((id) => !grid.conditions.some((c) => c.id === id));
  if (unknown.length) throw new BadInputError(`grid ${grid.name} has no condition ${unknown.join(', ')} (it has ${grid.conditions.map((c) => c.id).join(', ')})`);
  const wanted = grid.conditions.filter((c) => !o.only || o.only.includes(c.id)).map((c) => resolveCondition(grid, c));
  // A condition measured before keeps its dataset; only origins it lacks (added to the grid since) are measured.
  const todo = wanted.filter((c) => missingOrigins(grid, o.outDir, c).length > 0);
  if (todo.length < wanted.length) say(`grid ${grid.name}: ${wanted.length - todo.length} condition(s) already measured, skipped`);
  // Conditions with the same server-side path share a region; a lab carries a few regions.
  const byPath = new Map<string, ResolvedCondition[]>();
  for (const c of todo) {
    const key = JSON.stringify({ ...c.region, name: '' });
    byPath.set(key, [...(byPath.get(key) ?? []), c]);
  }
  const groups = [...byPath.values()];
  const written: string[] = [];
  for (let i = 0; i < groups.length; i += REGIONS_PER_LAB) {
    const batch = groups.slice(i, i + REGIONS_PER_LAB);
    const cfg = labFor(grid, baseLab, batch.map((g) => g[0].region));
    const cfgPath = join(o.outDir, `lab-${batch[0][0].id}.json`);
    writeFileSync(cfgPath, JSON.stringify(cfg, null, 1));
    say(`grid ${grid.name}: lab for ${batch.flat().map((c) => c.id).join(', ')}`);
    throwIfInterrupted(o.signal);
    // The lab's supervisor goes on a stack of ours too: Ctrl-C (or the reaper, after a kill)
    // takes the lab down with the grid. labUp itself stops it if Ctrl-C comes while it starts.
    const labStack = new CleanupStack(`grid-lab-${grid.name}-${process.pid}`);
    try {
      const lab = await labUp({ config: cfgPath, signal: o.signal }).catch(async (err: Error) => {
        if (o.signal?.aborted) throw err;
        // A loaded host can make an origin miss its start-up deadline: one more try before giving up.
        say(`grid ${grid.name}: the lab did not start (${err.message}); trying once more`);
        await abortableSleep(30_000, o.signal);
        return labUp({ config: cfgPath, signal: o.signal });
      });
      labStack.push({ kind: 'process', pid: lab.pid, startTime: lab.supervisorStartTime ?? processStartTime(lab.pid) ?? '', what: `lab ${cfg.name} supervisor` });
      for (const g of batch) {
        for (const c of g) {
          throwIfInterrupted(o.signal);
          written.push(await measureCondition(grid, lab, c, g[0].region.name, o, say));
        }
      }
    } finally {
      await labDown(cfg.name).catch(() => {});
      await labStack.unwind();
    }
  }
  return written;
}

export const datasetPath = (outDir: string, id: string) => join(outDir, `${id}.json`);

/** The grid's origins that a condition's dataset has no trace of yet (all when there is none). */
function missingOrigins(grid: Grid, outDir: string, c: ResolvedCondition): string[] {
  const path = datasetPath(outDir, c.id);
  if (!existsSync(path)) return grid.origins;
  const present = new Set(loadDataset(path).entries.map((e) => e.origin));
  // A TCP-only condition never has QUIC origins: not missing.
  const applicable = (name: string) => c.protocols.includes(name.startsWith('tcp-') ? 'tcp' : 'quic');
  return grid.origins.filter((n) => !present.has(n) && applicable(n));
}

/** One lab for a batch of server-side paths: the grid's origins, one region per path. */
function labFor(grid: Grid, base: LabConfig, regions: ResolvedCondition['region'][]): LabConfig {
  const origins = base.origins.filter((x) => grid.origins.includes(x.name));
  const missing = grid.origins.filter((n) => !origins.some((x) => x.name === n));
  if (missing.length) throw new CcbError(`grid ${grid.name}: origins not in ${grid.lab}: ${missing.join(', ')}`);
  // Ground truth every 100 ms is enough to check a condition took effect (initcwnd, pacing);
  // every 10 ms, 36 samplers took most of a core from the measurements.
  return parseLabConfig({ name: `grid-${grid.name}`.slice(0, 16), origins, regions, tcpInfoIntervalMs: 100 }, `grid ${grid.name}`);
}

async function measureCondition(grid: Grid, lab: Awaited<ReturnType<typeof labUp>>, c: ResolvedCondition, region: string, o: GridRunOptions,
  say: (m: string) => void): Promise<string> {
  const stack = new CleanupStack(`grid-${c.id}-${process.pid}`);
  try {
    startCpuLoad(stack, c.cpuLoad);
    const t0 = Date.now();
    say(`condition ${c.id} (${c.axis}: ${c.value}): ${c.concurrency} at once${c.cpuLoad ? `, ${c.cpuLoad} busy process(es)` : ''}`);
    const path = datasetPath(o.outDir, c.id);
    const missing = missingOrigins(grid, o.outDir, c);
    const earlier = existsSync(path) ? loadDataset(path).entries : [];
    const fresh = await collect(lab, {
      regions: [region], profiles: c.profiles, runs: o.runs ?? c.runs, bytes: 0, concurrency: c.concurrency,
      outDir: join('runs', 'grid', grid.name, c.id),
      only: missing, protocols: c.protocols,
      profileOverrides: c.profile,
      bytesFor: (p, protocol) => bytesForSeconds(p, protocol, grid.seconds),
      crossTraffic: c.crossTraffic ? { origin: c.crossTraffic, bytes: 50_000_000, leadSeconds: 3 } : undefined,
      conditionsOf: (p) => entryConditions(c, p) as unknown as Record<string, unknown>,
      progress: say, signal: o.signal,
    });
    const entries = [...earlier, ...fresh];
    saveDataset(path, entries);
    say(`condition ${c.id}: ${fresh.length} traces${earlier.length ? ` added to ${earlier.length}` : ''} in ${((Date.now() - t0) / 60000).toFixed(1)} min -> ${path}`);
    return path;
  } finally {
    await stack.unwind();
  }
}

/** Busy processes at normal priority beside the measurement, ended with the condition. */
function startCpuLoad(stack: CleanupStack, n: number): void {
  for (let i = 0; i < n; i++) startProcess('sh', ['-c', 'while :; do :; done'], { what: 'grid background CPU load', stack, stdio: 'ignore' });
}
