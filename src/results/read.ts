/**
 * Reading a run directory back: parse each file against its schema, then check the files
 * against each other (same run id, flow ids that exist, profiles that run.json names).
 * Errors name the file and the field, say what is wrong and what to do.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { BadInputError } from '../util/errors.js';
import {
  assetsFileSchema,
  flowsFileSchema,
  runSchema,
  verdictsFileSchema,
  type AssetRecord,
  type FlowRecord,
  type RunInfo,
  type VerdictRecord,
} from './schema.js';
import { labBenchSchema, type LabBench } from './labBench.js';

export const RUN_FILES = { run: 'run.json', flows: 'flows.json', verdicts: 'verdicts.json', assets: 'assets.json' } as const;

export class ResultsFileError extends BadInputError {
  constructor(
    readonly file: string,
    problems: string[],
    fix = 'the file was not written by this version of ccbrowse or was edited by hand: re-run `ccbrowse analyze RUN` to rewrite derived files',
  ) {
    super(`${file}: ${problems.length === 1 ? problems[0] : '\n  - ' + problems.join('\n  - ')}`, fix);
    this.name = 'ResultsFileError';
  }
}

/** A run directory, parsed and cross-checked. */
export interface RunData {
  dir: string;
  run: RunInfo;
  flows: FlowRecord[];
  verdicts: VerdictRecord[];
  /** Model named by verdicts.json (null when the run has no verdicts yet). */
  model: string | null;
  assets: AssetRecord[];
  /** Files absent from an incomplete run (allowed there, an error for a complete one). */
  missing: string[];
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.slice(0, 8).map((i) => {
    const where = i.path.length ? i.path.map(String).join('.') : '(top level)';
    return `${where}: ${i.message}`;
  });
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ResultsFileError(path, [`cannot read: ${(err as Error).message}`], 'check the path and permissions');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ResultsFileError(path, [`not valid JSON (${(err as Error).message})`], 'the run was probably interrupted while writing: re-run `ccbrowse analyze RUN`');
  }
}

/** Parse one JSON file against a schema; throws ResultsFileError with field paths. */
export function parseFile<S extends z.ZodType>(path: string, schema: S): z.infer<S> {
  const raw = readJson(path);
  const r = schema.safeParse(raw);
  if (!r.success) {
    const extra = r.error.issues.length > 8 ? [`... and ${r.error.issues.length - 8} more`] : [];
    throw new ResultsFileError(path, [...describeIssues(r.error.issues), ...extra]);
  }
  return r.data;
}

/** Read and cross-check a run directory. */
export function readRunDir(dir: string): RunData {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new BadInputError(`${dir}: not a directory`, 'pass a run directory (it holds run.json)');
  }
  const runPath = join(dir, RUN_FILES.run);
  if (!existsSync(runPath)) {
    throw new BadInputError(`${dir}: no run.json, so not a run directory`, 'pass a directory written by `ccbrowse run`');
  }
  const run = parseFile(runPath, runSchema);
  const missing: string[] = [];
  const optional = <S extends z.ZodType>(name: string, schema: S): z.infer<S> | null => {
    const p = join(dir, name);
    if (existsSync(p)) return parseFile(p, schema);
    missing.push(name);
    return null;
  };
  const flowsFile = optional(RUN_FILES.flows, flowsFileSchema);
  const verdictsFile = optional(RUN_FILES.verdicts, verdictsFileSchema);
  const assetsFile = optional(RUN_FILES.assets, assetsFileSchema);
  if (missing.length && run.status === 'complete') {
    throw new ResultsFileError(runPath, [`says complete but ${missing.join(', ')} missing`], 'run `ccbrowse analyze RUN` to write the derived files');
  }

  const data: RunData = {
    dir,
    run,
    flows: flowsFile?.flows ?? [],
    verdicts: verdictsFile?.verdicts ?? [],
    model: verdictsFile?.model ?? null,
    assets: assetsFile?.assets ?? [],
    missing,
  };
  for (const [name, f] of [
    [RUN_FILES.flows, flowsFile],
    [RUN_FILES.verdicts, verdictsFile],
    [RUN_FILES.assets, assetsFile],
  ] as const) {
    if (f && f.runId !== run.runId) {
      throw new ResultsFileError(join(dir, name), [`runId "${f.runId}" differs from run.json's "${run.runId}"`], 'the file belongs to another run: re-run `ccbrowse analyze RUN`');
    }
  }
  const problems = crossCheck(data);
  if (problems.length) throw new ResultsFileError(dir, problems);
  return data;
}

/** Consistency between files (pure, so tests can feed it objects). */
export function crossCheck(d: Pick<RunData, 'run' | 'flows' | 'verdicts' | 'assets'>): string[] {
  const problems: string[] = [];
  const profiles = new Set(d.run.profiles.map((p) => p.name));
  const flowIds = new Set<string>();
  for (const [i, f] of d.flows.entries()) {
    if (flowIds.has(f.id)) problems.push(`flows.json: flows.${i}.id: duplicate flow id "${f.id}"`);
    flowIds.add(f.id);
    if (!profiles.has(f.profile)) problems.push(`flows.json: flows.${i}.profile: "${f.profile}" is not a profile of run.json`);
  }
  const judged = new Set<string>();
  for (const [i, v] of d.verdicts.entries()) {
    if (!flowIds.has(v.flowId)) problems.push(`verdicts.json: verdicts.${i}.flowId: no flow "${v.flowId}" in flows.json`);
    if (judged.has(v.flowId)) problems.push(`verdicts.json: verdicts.${i}.flowId: second verdict for "${v.flowId}"`);
    judged.add(v.flowId);
  }
  for (const [i, a] of d.assets.entries()) {
    if (a.flowId !== null && !flowIds.has(a.flowId)) problems.push(`assets.json: assets.${i}.flowId: no flow "${a.flowId}" in flows.json`);
    if (!profiles.has(a.profile)) problems.push(`assets.json: assets.${i}.profile: "${a.profile}" is not a profile of run.json`);
  }
  return problems.slice(0, 20);
}

/** Read a lab benchmark result file (the Lab page). */
export function readLabBench(path: string): LabBench {
  return parseFile(path, labBenchSchema);
}
