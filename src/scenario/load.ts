/**
 * Loading scenario files: TypeScript straight from disk (tsx, no build step), validated
 * against the schema with errors naming the file, the field and (where it can be found)
 * the line. checkScenarioTypes() type-checks them with the TypeScript compiler API, so a
 * dry run catches what a real run would only hit minutes in.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { BadInputError, MissingPrerequisiteError } from '../util/errors.js';
import { repoRoot } from '../util/paths.js';
import { ccbrowseEntryForTypes, loadUserFile, loadUserFileAs, type UserFileKind } from '../util/user-file.js';
import { scenarioSchema, type Scenario } from './schema.js';
import { expectationsSchema, type Expectations } from './expectations.js';

const SCENARIO_FILE: UserFileKind<Scenario> = {
  what: 'scenario', helper: 'defineScenario', example: 'scenarios/lab/static.ts (docs/scenarios.md)', schema: scenarioSchema as z.ZodType<Scenario>,
};

/** Validates an already-loaded value; `file` names the file in errors. */
export function parseScenario(value: unknown, file: string): Scenario {
  const parsed = scenarioSchema.safeParse(value);
  if (!parsed.success) throw new BadInputError(`invalid scenario ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Loads a scenario file (.ts/.mts/.js/.mjs) exporting `export default defineScenario({...})` (util/user-file.ts). */
export async function loadScenario(path: string): Promise<Scenario> {
  return loadUserFile(path, SCENARIO_FILE);
}

const EXPECTATIONS_FILE: UserFileKind<Expectations> = {
  what: 'expectations file', helper: 'defineExpectations', example: 'docs/check.md', schema: expectationsSchema as z.ZodType<Expectations>, json: true,
};

/** What `ccbrowse check` was given: a scenario (perhaps with `expect`) or an expectations file. */
export type CheckInput =
  | { kind: 'scenario'; scenario: Scenario; path: string; source: string }
  | { kind: 'expectations'; expectations: Expectations; path: string; source: string };

/**
 * Loads a file given to `ccbrowse check`, through the one loader: an expectations file
 * (its default export names `scenarios`) or else a scenario.
 */
export async function loadCheckInput(path: string): Promise<CheckInput> {
  const either = { ...EXPECTATIONS_FILE, what: 'expectations or scenario file', helper: 'defineExpectations' } as UserFileKind<Expectations | Scenario>;
  const isExpectations = (v: unknown) => typeof v === 'object' && v !== null && 'scenarios' in v;
  const loaded = await loadUserFileAs<Expectations | Scenario>(path, either,
    (v) => (isExpectations(v) ? EXPECTATIONS_FILE : SCENARIO_FILE) as UserFileKind<Expectations | Scenario>);
  return loaded.kind === (EXPECTATIONS_FILE as unknown)
    ? { kind: 'expectations', expectations: loaded.value as Expectations, path: loaded.path, source: loaded.source }
    : { kind: 'scenario', scenario: loaded.value as Scenario, path: loaded.path, source: loaded.source };
}

export interface ScenarioTypeIssue {
  /** As given to checkScenarioTypes (or '' for a problem with the compiler options). */
  file: string;
  /** 1-based; 0 when the problem has no position. */
  line: number;
  col: number;
  message: string;
}

type Ts = typeof import('typescript');
type Program = import('typescript').Program;

// One Program reused across calls: the next check only re-reads what changed.
let cached: { key: string; program: Program } | undefined;

function compilerOptions(ts: Ts): import('typescript').CompilerOptions {
  const root = repoRoot();
  const configPath = resolve(root, 'tsconfig.json');
  let options: import('typescript').CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true, skipLibCheck: true, esModuleInterop: true, types: ['node'],
  };
  if (existsSync(configPath)) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (!read.error) options = ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
  }
  // Checking only: nothing is written, and project-wide settings that need emit are off.
  // rootDir/outDir only matter for emit, and would reject a scenario outside the repository.
  const { rootDir: _rootDir, outDir: _outDir, ...rest } = options;
  return {
    ...rest,
    // Resolve imports as tsx (the loader) does: ESM anywhere, "./x.js" or "./x.ts" or
    // "./x" -> x.ts, whatever the nearest package.json says about "type".
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    // `from 'ccbrowse'` is this package, wherever the scenario lives (as the loader resolves it).
    paths: { ...(rest.paths ?? {}), ccbrowse: [ccbrowseEntryForTypes()] },
    // Type packages (node) from the project, not from the scenario's folder.
    typeRoots: [resolve(root, 'node_modules', '@types')],
    noEmit: true, declaration: false, sourceMap: false, incremental: false, composite: false, skipLibCheck: true,
  };
}

/**
 * Type-checks scenario files (no emit) against the project's compiler options, in one
 * Program so shared imports (playwright-core, zod) are checked once. Returns the errors
 * located in the given files, with 1-based line and column; [] when all is well.
 */
export async function checkScenarioTypes(paths: string[]): Promise<ScenarioTypeIssue[]> {
  let ts: Ts;
  try {
    ts = ((await import('typescript')) as { default: Ts }).default;
  } catch {
    throw new MissingPrerequisiteError('the TypeScript compiler is not installed: cannot type-check scenarios',
      'run `npm install` (typescript is a development dependency)');
  }
  const issues: ScenarioTypeIssue[] = [];
  const files = paths.map((p) => ({ given: p, abs: resolve(p) }));
  for (const f of files) {
    if (!existsSync(f.abs)) issues.push({ file: f.given, line: 0, col: 0, message: 'file not found' });
  }
  const present = files.filter((f) => existsSync(f.abs));
  if (present.length === 0) return issues;
  const options = compilerOptions(ts);
  const key = JSON.stringify(options);
  const program = ts.createProgram({
    rootNames: present.map((f) => f.abs),
    options,
    oldProgram: cached?.key === key ? cached.program : undefined,
  });
  cached = { key, program };
  const flatten = (m: string | import('typescript').DiagnosticMessageChain) => ts.flattenDiagnosticMessageText(m, '\n');
  for (const d of program.getOptionsDiagnostics()) {
    issues.push({ file: '', line: 0, col: 0, message: flatten(d.messageText) });
  }
  for (const f of present) {
    const sf = program.getSourceFile(f.abs);
    if (!sf) {
      issues.push({ file: f.given, line: 0, col: 0, message: 'not a TypeScript source the compiler accepts' });
      continue;
    }
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    for (const d of diags) {
      if (d.category !== ts.DiagnosticCategory.Error) continue;
      const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      issues.push({ file: f.given, line: pos ? pos.line + 1 : 0, col: pos ? pos.character + 1 : 0, message: flatten(d.messageText) });
    }
  }
  return issues;
}

/** "file:line:col: message" lines, as compilers print them. */
export function formatTypeIssues(issues: ScenarioTypeIssue[]): string {
  return issues.map((i) => `${i.file || '(compiler options)'}${i.line ? `:${i.line}:${i.col}` : ''}: ${i.message}`).join('\n');
}
