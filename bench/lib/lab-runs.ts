/**
 * What the lab-scenario wall-time benchmarks share (bench/concurrent-profiles.ts,
 * bench/stop-when-stable.ts): run `ccbrowse run` once against a running lab, timed from spawn
 * to exit, and keep its fused verdicts, how the host held each profile's bottleneck back, and
 * each profile's early stop (run.json) before the run directory is removed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** The lab scenarios named by --scenarios, or every one in scenarios/lab/. */
export function scenariosArg(): string[] {
  return (arg('--scenarios') ?? readdirSync(join(ROOT, 'scenarios/lab')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).join(','))
    .split(',').filter(Boolean);
}

interface Row { host: string; label: string; confidence: number }
interface TypeRow { assetType: string; label: string; confidence: number }
interface Outcome { dir: string; status: string; incompleteReason?: string; summary: Row[]; byAssetType: TypeRow[] }
export interface Disturbed { profile: string; stalledShare: number; maxStallMs: number; loadAverage: number | null }
export interface ProfileStop { profile: string; endedActivity: boolean; why: string; activitySeconds: number | null; ceilingSeconds: number; flows: Array<{ flow: string; standing: string; label?: string; neededSeconds?: number }> }
export interface Measured {
  seconds: number; status: string; reason?: string; hosts: Record<string, string>; types: Record<string, string>;
  disturbance?: Disturbed[]; disturbedVerdicts?: number; earlyStops?: ProfileStop[];
}

/** How the host held each profile's bottleneck back, and how many verdicts say "disturbed". */
function disturbanceIn(dir: string): { disturbance: Disturbed[]; disturbedVerdicts: number } {
  const disturbance: Disturbed[] = [];
  for (const p of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const f = join(dir, p.name, 'disturbance.json');
    if (!existsSync(f)) continue;
    const d = JSON.parse(readFileSync(f, 'utf8')) as { windowSeconds: number; stalledMs: number; maxStallMs: number; loadAverage: number | null };
    disturbance.push({ profile: p.name, stalledShare: d.windowSeconds ? d.stalledMs / 1000 / d.windowSeconds : 0, maxStallMs: d.maxStallMs, loadAverage: d.loadAverage });
  }
  const v = join(dir, 'verdicts.json');
  const disturbedVerdicts = existsSync(v) ? (readFileSync(v, 'utf8').match(/a disturbed trace/g) ?? []).length : 0;
  return { disturbance, disturbedVerdicts };
}

/** Each profile's `earlyStop` from run.json (empty without --stop-when-stable). */
function earlyStopsIn(dir: string): ProfileStop[] {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { profiles: Array<{ name: string; earlyStop?: Omit<ProfileStop, 'profile'> }> };
  return run.profiles.filter((p) => p.earlyStop).map((p) => ({ profile: p.name, ...p.earlyStop! }));
}

/** One `ccbrowse run` of a lab scenario with extra flags, timed; its directory is removed after reading. */
export function runOnce(scenario: string, opts: { lab: string; runsDir: string; extra?: string[] }): Measured {
  const args = [join(ROOT, 'bin/ccbrowse.js'), 'run', join(ROOT, 'scenarios/lab', `${scenario}.ts`), '--lab', opts.lab, '--out', opts.runsDir, '--json', '-q', ...(opts.extra ?? [])];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  let o: Outcome | undefined;
  try { o = (JSON.parse(r.stdout) as { runs: Outcome[] }).runs[0]; } catch { /* reported below */ }
  if (!o) return { seconds, status: `failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' ')}`, hosts: {}, types: {} };
  const seen = disturbanceIn(o.dir);
  const earlyStops = earlyStopsIn(o.dir);
  rmSync(o.dir, { recursive: true, force: true });
  return {
    seconds, status: o.status, reason: o.incompleteReason, ...seen, ...(earlyStops.length ? { earlyStops } : {}),
    hosts: Object.fromEntries(o.summary.map((x) => [x.host, x.label])),
    types: Object.fromEntries(o.byAssetType.map((x) => [x.assetType, x.label])),
  };
}

/** The keys whose labels differ, as "key: a -> b". */
export function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k] ?? '-'} -> ${b[k] ?? '-'}`);
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One line per run: how the host held each profile's bottleneck back. */
export function disturbanceLine(m: Measured): string {
  return `${(m.disturbance ?? []).map((d) => `${d.profile} held back ${(100 * d.stalledShare).toFixed(2)}% (longest ${d.maxStallMs.toFixed(0)} ms, load ${d.loadAverage?.toFixed(1) ?? '?'})`).join(', ')}; ${m.disturbedVerdicts ?? 0} verdict record(s) marked disturbed`;
}
