/**
 * Loading scenario files: TypeScript straight from disk (tsx, no build step), validated
 * against the schema with errors naming the file, the field and (where it can be found)
 * the line. checkScenarioTypes() type-checks them with the TypeScript compiler API, so a
 * dry run catches what a real run would only hit minutes in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { BadInputError, MissingPrerequisiteError } from '../util/errors.js';
import { repoRoot } from '../util/paths.js';
import { scenarioSchema, type Scenario } from './schema.js';

const FIX_EXAMPLE = 'see scenarios/lab/static.ts and docs/scenarios.md for a valid example';

/** Path as the user sees it: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/** 1-based line of the first `key:` in the source, to point at a top-level field. */
function lineOf(source: string | undefined, key: PropertyKey | undefined): number | undefined {
  if (source === undefined || typeof key !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(key)) return undefined;
  const re = new RegExp(`(^|[\\s{,])['"]?${key}['"]?\\s*[:(,}]`);
  const lines = source.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : undefined;
}

function formatIssues(err: z.ZodError, file: string, source?: string): string {
  return err.issues
    .flatMap((i) => {
      // An unknown key (strict objects) is named as the field itself: usually a typo.
      const keys = i.code === 'unrecognized_keys' ? i.keys : [undefined];
      return keys.map((key) => {
        const path = key === undefined ? i.path.map(String) : [...i.path.map(String), key];
        const line = lineOf(source, path.length === 1 ? path[0] : i.path[0]);
        const message = key === undefined ? i.message : 'unknown field (a typo?)';
        return `  - ${file}${line ? `:${line}` : ''}: ${path.join('.') || '(scenario)'}: ${message}`;
      });
    })
    .join('\n');
}

/** Validates an already-loaded value; `source` names the file in errors. */
export function parseScenario(value: unknown, file: string, sourceText?: string): Scenario {
  const parsed = scenarioSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadInputError(`invalid scenario ${file}:\n${formatIssues(parsed.error, file, sourceText)}`, FIX_EXAMPLE);
  }
  return parsed.data;
}

/** Loads a scenario file (.ts/.mts/.js/.mjs) exporting `export default defineScenario({...})`. */
export async function loadScenario(path: string): Promise<Scenario> {
  const abs = resolve(path);
  const file = shown(abs);
  if (!existsSync(abs)) {
    throw new BadInputError(`scenario not found: ${path}`, 'give the path to a scenario file, e.g. scenarios/lab/vod.ts');
  }
  if (!/\.(ts|mts|cts|js|mjs|cjs)$/.test(abs)) {
    throw new BadInputError(`scenario ${file} is not a TypeScript or JavaScript file`, 'scenario files end in .ts');
  }
  let mod: Record<string, unknown>;
  try {
    const { tsImport } = await import('tsx/esm/api');
    mod = (await tsImport(pathToFileURL(abs).href, import.meta.url)) as Record<string, unknown>;
  } catch (err) {
    throw new BadInputError(`could not load scenario ${file}: ${(err as Error).message}`,
      'the file must be valid TypeScript ending in `export default defineScenario({...})`; ' +
      `\`ccbrowse run --dry-run ${file}\` shows type errors with their lines`);
  }
  const value = defaultExport(mod);
  if (value === undefined) {
    throw new BadInputError(`scenario ${file} has no default export`, 'end the file with `export default defineScenario({...})`');
  }
  let source: string | undefined;
  try {
    source = readFileSync(abs, 'utf8');
  } catch {
    source = undefined;
  }
  return parseScenario(value, file, source);
}

/**
 * The default export, whether tsx loaded the file as ESM or (outside a "type": "module"
 * package) as CommonJS, where it arrives as { default: { __esModule, default } }.
 */
function defaultExport(mod: Record<string, unknown>): unknown {
  let d = mod.default as Record<string, unknown> | undefined;
  if (d && typeof d === 'object' && d.__esModule === true) d = d.default as Record<string, unknown> | undefined;
  // tsx exposes a file without `export default` as a default holding its named exports.
  const named = Object.keys(mod).filter((k) => k !== 'default');
  if (named.length > 0 && d && typeof d === 'object' && named.every((k) => k in d!)) return undefined;
  return d;
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
