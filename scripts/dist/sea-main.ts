/**
 * The single executable's entry (Node's single-executable-application main; esbuild makes it
 * one CommonJS file at `make dist`). The executable carries ccbrowse's runtime tree (the
 * compiled CLI, its production node_modules, the model, the report bundle, the lab's sites
 * and the native helpers) as one gzip'd archive. Native helpers must be real files (tc and
 * bpftool load BPF objects by path, LD_PRELOAD takes a .so, namespaces exec binaries), and
 * so must the user-file loader's esbuild binary and SQLite's .node: so the whole tree is
 * written once, at first use, to ~/.cache/ccbrowse/<version>-<hash>/, and every later run
 * only checks a marker and imports the CLI from there, as `node bin/ccbrowse.js` would.
 *
 * The same executable is also the `node` for ccbrowse's own child scripts (lab origins and
 * the like are spawned as `process.execPath script.js`): a first argument naming a .js file
 * inside the extracted tree runs that file instead of the CLI.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { getAsset } from 'node:sea';

// Set by esbuild's `define` at build time (scripts/dist/build.ts).
declare const CCB_TREE_ID: string;

/** One archive entry: relative path, file mode, byte length (contents follow the index in order). */
type Entry = [path: string, mode: number, size: number];
const MARKER = '.ccb-complete';

function cacheRoot(): string {
  if (process.env.CCB_CACHE_DIR) return resolve(process.env.CCB_CACHE_DIR);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ccbrowse');
}

/** Writes the archive into a fresh folder beside `tree`, then renames it into place (two first runs at once: one wins). */
function extract(tree: string): void {
  const data = gunzipSync(new Uint8Array(getAsset('tree.gz')));
  const indexLength = data.readUInt32LE(0);
  const entries = JSON.parse(data.subarray(4, 4 + indexLength).toString('utf8')) as Entry[];
  const tmp = `${tree}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  let at = 4 + indexLength;
  for (const [path, mode, size] of entries) {
    const file = join(tmp, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, data.subarray(at, at + size));
    chmodSync(file, mode);
    at += size;
  }
  writeFileSync(join(tmp, MARKER), `${CCB_TREE_ID}\n`);
  try {
    renameSync(tmp, tree);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(tree, MARKER))) throw err;
  }
}

function main(): Promise<unknown> {
  const tree = join(cacheRoot(), CCB_TREE_ID);
  if (!existsSync(join(tree, MARKER))) {
    mkdirSync(dirname(tree), { recursive: true });
    extract(tree);
  }
  // argv as the SEA runtime gives it: [executable, how it was invoked, ...arguments].
  const args = process.argv.slice(2);
  const first = args[0] ? resolve(args[0]) : '';
  const childScript = first.startsWith(tree + sep) && /\.(m?js|cjs)$/.test(first);
  const script = childScript ? first : join(tree, 'bin', 'ccbrowse.js');
  process.argv = [process.execPath, script, ...(childScript ? args.slice(1) : args)];
  // The SEA main's own require reaches only built-in modules; a require rooted in the tree
  // loads a file from disk whose import() goes through Node's ordinary ESM loader.
  const load = createRequire(join(tree, 'package.json'))('./bin/sea-import.cjs') as (url: string) => Promise<unknown>;
  return load(pathToFileURL(script).href);
}

main().catch((err: unknown) => {
  process.stderr.write(`ccbrowse: could not start: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(70);
});
