/**
 * The one loader for every TypeScript (or JSON) file a user writes: scenarios, network
 * profiles, lab configurations, and the crawl and expectation files to come. One rule for
 * all of them: the file's default export is the value (what its define* helper returns);
 * `import { defineScenario } from 'ccbrowse'` works wherever the file lives; and every error
 * names the file and, where it can be found, the line.
 */
import { existsSync, readFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { extname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { BadInputError } from './errors.js';
import { repoRoot } from './paths.js';

export interface UserFileKind<T> {
  /** What it is, in messages: "scenario", "network profile", "lab configuration". */
  what: string;
  /** Its helper, for the fix: "defineScenario". */
  helper: string;
  /** A valid example in the repository: "scenarios/lab/static.ts". */
  example: string;
  schema: z.ZodType<T>;
  /** JSON files are accepted too (profiles, lab configurations). */
  json?: boolean;
}

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Path as the user sees it: relative to the working directory when inside it. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/** Loads, checks the default export of, and validates a user file; errors are BadInputErrors (exit 2). */
export async function loadUserFile<T>(path: string, kind: UserFileKind<T>): Promise<T> {
  return (await loadUserFileAs(path, kind, () => kind)).value;
}

/** A user file loaded as one of several kinds. */
export interface LoadedUserFile<T> {
  value: T;
  kind: UserFileKind<T>;
  /** Absolute path, and the source text (for the lines of what it holds). */
  path: string;
  source: string;
}

/**
 * As loadUserFile, for a command that takes files of more than one kind (`check` takes
 * expectation files and scenarios): the file is loaded once and `pick` chooses its kind
 * from the raw default export (e.g. by a field only one kind has), then it is validated.
 * `expected` names the kinds in messages before the kind is known.
 */
export async function loadUserFileAs<T>(path: string, expected: UserFileKind<T>, pick: (value: unknown) => UserFileKind<T>): Promise<LoadedUserFile<T>> {
  const abs = resolve(path);
  const file = shownPath(abs);
  if (!existsSync(abs)) throw new BadInputError(`${expected.what} not found: ${path}`, `see ${expected.example} for an example`);
  const isJson = extname(abs) === '.json';
  if (!(CODE.test(abs) || (expected.json && isJson))) {
    throw new BadInputError(`${expected.what} ${file} is not a TypeScript${expected.json ? ', JavaScript or JSON' : ' or JavaScript'} file`, `see ${expected.example}`);
  }
  const source = readFileSync(abs, 'utf8');
  let value: unknown;
  if (isJson) {
    try {
      value = JSON.parse(source);
    } catch (err) {
      throw new BadInputError(`${expected.what} ${file}: not valid JSON: ${(err as Error).message}`, `see ${expected.example}`);
    }
  } else {
    value = await importDefault(abs, file, expected);
  }
  const kind = pick(value);
  if (isJson && !kind.json) throw new BadInputError(`${kind.what} ${file} must be a TypeScript or JavaScript file`, `see ${kind.example}`);
  return { value: validate(value, file, source, kind), kind, path: abs, source };
}

async function importDefault<T>(abs: string, file: string, kind: UserFileKind<T>): Promise<unknown> {
  resolveCcbrowseForUserFiles();
  let mod: Record<string, unknown>;
  try {
    const { tsImport } = await import('tsx/esm/api');
    mod = (await tsImport(pathToFileURL(abs).href, import.meta.url)) as Record<string, unknown>;
  } catch (err) {
    const line = errorLine(err, abs);
    throw new BadInputError(`could not load ${kind.what} ${file}${line ? `:${line}` : ''}: ${firstLines((err as Error).message ?? String(err))}`,
      `the file must be valid TypeScript ending in \`export default ${kind.helper}({...})\``);
  }
  const value = defaultExport(mod);
  if (value === undefined) {
    throw new BadInputError(`${kind.what} ${file} has no default export`, `end the file with \`export default ${kind.helper}({...})\``);
  }
  return value;
}

/**
 * The default export, whether tsx loaded the file as ESM or (outside a "type": "module"
 * package) as CommonJS, where it arrives as { default: { __esModule, default } } or
 * { default: { default } }. A file without `export default` comes back from tsx as a
 * default holding its named exports: that is no default export.
 */
function defaultExport(mod: Record<string, unknown>): unknown {
  let d = mod.default as Record<string, unknown> | undefined;
  const named = Object.keys(mod).filter((k) => k !== 'default');
  if (named.length > 0 && d && typeof d === 'object' && named.every((k) => k in d!)) return undefined;
  if (d && typeof d === 'object' && (d.__esModule === true || (Object.keys(d).length === 1 && 'default' in d))) {
    d = d.default as Record<string, unknown> | undefined;
  }
  return d;
}

function validate<T>(value: unknown, file: string, source: string, kind: UserFileKind<T>): T {
  const parsed = kind.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.flatMap((i) => {
    // An unknown key (strict objects) is named as the field itself: usually a typo.
    const keys = i.code === 'unrecognized_keys' ? i.keys : [undefined];
    return keys.map((key) => {
      const path = key === undefined ? i.path.map(String) : [...i.path.map(String), key];
      const line = lineOf(source, path);
      const message = key === undefined ? i.message : 'unknown field (a typo?)';
      return `  - ${file}${line ? `:${line}` : ''}: ${path.join('.') || `(${kind.what})`}: ${message}`;
    });
  });
  throw new BadInputError(`invalid ${kind.what} ${file}:\n${lines.join('\n')}`, `see ${kind.example} for a valid example`);
}

/** 1-based line of the deepest named field of `path` found in the source (after its parents). */
export function lineOf(source: string, path: string[]): number | undefined {
  const lines = source.split('\n');
  let from = 0;
  let found: number | undefined;
  for (const key of path) {
    if (!/^[A-Za-z_$][\w$]*$/.test(key)) continue; // array indices: keep looking for the next name
    const re = new RegExp(`(^|[\\s{,])['"]?${key}['"]?\\s*[:(,}]`);
    const i = lines.findIndex((l, n) => n >= from && re.test(l));
    if (i < 0) break;
    found = i + 1;
    from = i;
  }
  return found;
}

/** The line in `abs` an import error points at: esbuild's "file:line:col", or a stack frame in the file. */
function errorLine(err: unknown, abs: string): number | undefined {
  const text = `${(err as Error)?.message ?? ''}\n${(err as Error)?.stack ?? ''}`;
  for (const name of [abs, pathToFileURL(abs).href]) {
    const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const m = new RegExp(`${esc}(?:\\?[^:\\s]*)?:(\\d+)(?::\\d+)?`).exec(text);
    if (m) return Number(m[1]);
  }
  return undefined;
}

function firstLines(msg: string): string {
  return msg.split('\n').filter((l) => l.trim()).slice(0, 4).join(' | ');
}

let resolving = false;

/**
 * Makes `import ... from 'ccbrowse'` resolve to this very package in user files anywhere on
 * disk (a file outside the repository has no node_modules/ccbrowse above it): ESM imports
 * through a resolve hook, CommonJS ones (tsx loads a .ts file outside a "type": "module"
 * package as CommonJS) through the CommonJS resolver. Running from dist/ it is dist/index.js;
 * from the sources (tsx, tests), src/index.ts.
 */
export function resolveCcbrowseForUserFiles(): void {
  if (resolving) return;
  resolving = true;
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = resolve(repoRoot(), fromSource ? 'src/index.ts' : 'dist/index.js');
  const entryUrl = pathToFileURL(entry).href;
  const hook = `export async function resolve(s, c, next) {
    if (s === 'ccbrowse') return { url: ${JSON.stringify(entryUrl)}, shortCircuit: true };
    return next(s, c);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  const cjs = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = cjs._resolveFilename;
  cjs._resolveFilename = function (request: string, ...rest: unknown[]) {
    return original.call(this, request === 'ccbrowse' ? entry : request, ...rest);
  };
}

/** The package entry a user file's `from 'ccbrowse'` gets (for the type-checker's paths). */
export function ccbrowseEntryForTypes(): string {
  return resolve(repoRoot(), 'src/index.ts');
}
