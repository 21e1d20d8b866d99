/**
 * `make dist`: ccbrowse as one executable, dist/ccbrowse.
 *   npx tsx scripts/dist/build.ts        (after `npm run build` and the set-up's native builds)
 *
 * How: Node 20's single-executable-application (SEA) support, driven by @yao-pkg/pkg's SEA
 * mode with the local node binary. pkg's classic mode needs base binaries that pkg-fetch
 * downloads from GitHub releases or builds from a nodejs.org source archive, neither of
 * which this machine (nor CI) can reach; pkg 6.16 and later need Node 22 to run at all, so
 * 6.14.2 (the last for Node 20) is pinned. The SEA main (scripts/dist/sea-main.ts, one
 * CommonJS file made here by esbuild) carries the runtime tree as an asset and writes it to
 * a cache folder at first use: see that file for why it is extracted whole.
 *
 * The tree: package.json, bin/, the compiled CLI (dist/, with the report's prebuilt front
 * end), the production node_modules that the CLI can reach (d3 is left out: only the report
 * build uses it; tsx and its esbuild stay: users' .ts scenarios, profiles and labs are
 * loaded with them), the model, the shipped scenarios, profiles, labs and crawls, the lab's
 * page sources, built sites and certificates, and the native helpers built at set-up.
 * Rebuilds only when the tree changed (its hash is the cache folder's name).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { build as esbuild } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..', '..');
const OUT = join(ROOT, 'dist', 'ccbrowse');
const STAMP = join(ROOT, 'dist', '.ccbrowse-tree-id');
const WORK = join(ROOT, 'build', 'dist');
const t0 = performance.now();
const say = (msg: string) => process.stderr.write(`[dist] ${msg} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);

interface FileEntry { rel: string; abs?: string; text?: string; mode: number }
const files = new Map<string, FileEntry>();

function addFile(abs: string, rel = relative(ROOT, abs)): void {
  const st = lstatSync(abs);
  if (!st.isFile()) return; // symlinks (node_modules/.bin) and the like are not carried
  files.set(rel, { rel, abs, mode: st.mode & 0o777 });
}

/** Every file under `dir` (relative to the repo) that `keep` accepts (given its path relative to `dir`). */
function addTree(dir: string, keep: (rel: string) => boolean = () => true): void {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) throw new Error(`${dir} is missing: run ./setup.sh first`);
  for (const e of readdirSync(abs, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = join(e.parentPath, e.name);
    if (keep(relative(abs, file))) addFile(file);
  }
}

function addIfBuilt(rel: string): void {
  if (existsSync(join(ROOT, rel))) addFile(join(ROOT, rel), rel);
  else say(`not built, left out: ${rel}`);
}

// --- the compiled CLI and the shipped files -------------------------------------------------
for (const need of ['dist/cli/main.js', 'dist/report/frontend/main.js']) {
  if (!existsSync(join(ROOT, need))) throw new Error(`${need} is missing: run \`npm run build\` first`);
}
addFile(join(ROOT, 'package.json'));
addFile(join(ROOT, 'bin', 'ccbrowse.js'));
files.set('bin/sea-import.cjs', { rel: 'bin/sea-import.cjs', text: 'module.exports = (url) => import(url);\n', mode: 0o644 });
addTree('dist', (f) => !/\.(map|d\.ts)$/.test(f) && !f.startsWith('ccbrowse') && !f.startsWith('.'));
for (const dir of ['models', 'scenarios', 'shapers', 'labs', 'crawls', 'src/lab/sites/www']) addTree(dir);

// --- native helpers and lab assets built at set-up ------------------------------------------
for (const f of ['ccb-delayline', 'ccb-udpprobe', 'ccb-pace.so', 'ccb-tcpinfo']) addIfBuilt(`build/native/${f}`);
addTree('build/bpf', (f) => !f.endsWith('.h'));
addTree('build/lab/sites');
addTree('build/lab/certs');
for (const f of ['ccb-h3-origin', 'ccb-quiche-origin']) {
  const abs = join(ROOT, 'build', 'cargo-target', 'release', f);
  if (existsSync(abs)) addFile(abs, `build/cargo-target/release/${f}`);
  else say(`not built, left out: ${f}`);
}

// --- production node_modules reachable from the CLI -----------------------------------------
const pkgJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
/** Only the report's build uses these (the front end is bundled at `npm run build`). */
const BUILD_ONLY = new Set(['d3']);
/** Per package, files the runtime never reads (sources and build intermediates of native addons). */
const SKIP: Record<string, RegExp> = { 'better-sqlite3': /^(deps|src|build\/(?!Release\/better_sqlite3\.node$))/ };
const GENERIC_SKIP = /(\.(map|d\.ts|d\.mts|d\.cts|md|markdown)$)|(^|\/)(\.bin|test|tests|docs?)\//i;

function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || dirname(dir) === dir) return undefined;
  }
}
const seen = new Set<string>();
function addPackage(name: string, from: string): void {
  const dir = packageDir(name, from);
  if (!dir || seen.has(dir)) return; // an optional dependency for another platform is simply absent
  seen.add(dir);
  const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  const skip = SKIP[name];
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = join(e.parentPath, e.name);
    const rel = relative(dir, file);
    if (rel.startsWith('node_modules') || !e.isFile() || GENERIC_SKIP.test(rel) || skip?.test(rel)) continue;
    addFile(file);
  }
  for (const dep of Object.keys({ ...pj.dependencies, ...pj.optionalDependencies })) addPackage(dep, dir);
}
for (const dep of Object.keys(pkgJson.dependencies)) if (!BUILD_ONLY.has(dep)) addPackage(dep, ROOT);

// --- the archive: [u32 index length][index JSON][contents in index order] -------------------
const sorted = [...files.values()].sort((a, b) => a.rel.localeCompare(b.rel));
const contents = sorted.map((f) => (f.text !== undefined ? Buffer.from(f.text) : readFileSync(f.abs!)));
const index = Buffer.from(JSON.stringify(sorted.map((f, i) => [f.rel, f.mode, contents[i].length])));
const header = Buffer.alloc(4);
header.writeUInt32LE(index.length);
const archive = Buffer.concat([header, index, ...contents]);
const treeId = `${pkgJson.version}-${createHash('sha256').update(archive).digest('hex').slice(0, 16)}`;
say(`tree ${treeId}: ${sorted.length} files, ${(archive.length / 1e6).toFixed(1)} MB`);
if (existsSync(OUT) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === treeId) {
  say(`dist/ccbrowse is up to date`);
  process.exit(0);
}

rmSync(WORK, { recursive: true, force: true });
mkdirSync(join(WORK, 'tmp'), { recursive: true });
const treeGz = join(WORK, 'tree.gz');
writeFileSync(treeGz, gzipSync(archive, { level: 6 }));
say(`compressed: ${(statSync(treeGz).size / 1e6).toFixed(1)} MB`);

const main = join(WORK, 'sea-main.cjs');
await esbuild({
  entryPoints: [join(ROOT, 'scripts', 'dist', 'sea-main.ts')],
  outfile: main,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { CCB_TREE_ID: JSON.stringify(treeId) },
  logLevel: 'warning',
});

// pkg's SEA mode runs `node --experimental-sea-config` and `npx postject` from a folder under
// the temporary directory: one under the repository lets npx find the postject installed here.
process.env.TMPDIR = join(WORK, 'tmp');
process.env.PATH = `${join(ROOT, 'node_modules', '.bin')}:${dirname(process.execPath)}:${process.env.PATH}`;
const require = createRequire(import.meta.url);
const { default: sea } = require('@yao-pkg/pkg/lib-es5/sea.js') as { default: (entry: string, opts: object) => Promise<void> };
rmSync(OUT, { force: true });
await sea(main, {
  targets: [{ nodeRange: `node${process.versions.node.split('.')[0]}`, platform: 'linux', arch: process.arch, output: OUT }],
  useLocalNode: true,
  seaConfig: { useCodeCache: true, assets: { 'tree.gz': treeGz } },
});
if (!existsSync(OUT)) throw new Error('pkg produced no executable (see its messages above)');
writeFileSync(STAMP, `${treeId}\n`);
rmSync(join(WORK, 'tmp'), { recursive: true, force: true });
say(`dist/ccbrowse: ${(statSync(OUT).size / 1e6).toFixed(1)} MB`);
