/**
 * Start-up benchmark: `npx tsx bench/startup.ts [--runs 20] [--out build/bench/startup.json]
 * [--exe dist/ccbrowse] [--only REGEX]`.
 *
 * --exe times a ccbrowse executable (the single executable, `make dist`) instead of the
 * compiled CLI under node; --only keeps the commands whose name matches.
 *
 * Runs each command as a user would (`node bin/ccbrowse.js ...`, the compiled CLI: run
 * `npm run build` first) `--runs` times, one after another, and prints the median and the
 * fastest wall time from spawn to exit, beside `node -e 0` (what any Node program pays). The
 * target (issue 20) is `--help` and `doctor --json` under 150 ms. The machine is shared: the
 * figures are one run's medians, not a guarantee, and no test times anything.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(arg('--runs', '20'));
const OUT = arg('--out', 'build/bench/startup.json')!;
const BIN = join(ROOT, 'bin/ccbrowse.js');
const EXE = arg('--exe') ? resolve(arg('--exe')!) : undefined;
const ONLY = arg('--only') ? new RegExp(arg('--only')!) : undefined;
const CAPTURE = join(ROOT, 'tests/fixtures/lab-traces/tcp-cubic-nebby-50/capture.pcap');
if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(2);
}

const ALL_CASES: { name: string; args: string[] }[] = [
  { name: 'node -e 0 (baseline)', args: ['-e', '0'] },
  { name: 'ccbrowse --help', args: [BIN, '--help'] },
  { name: 'ccbrowse --version', args: [BIN, '--version'] },
  { name: 'ccbrowse doctor --json', args: [BIN, 'doctor', '--json'] },
  { name: 'ccbrowse classify --help', args: [BIN, 'classify', '--help'] },
  { name: 'ccbrowse run --help', args: [BIN, 'run', '--help'] },
  { name: 'ccbrowse trace <one capture> --json', args: [BIN, 'trace', CAPTURE, '--json'] },
  { name: 'ccbrowse classify <one capture> --json', args: [BIN, 'classify', CAPTURE, '--json'] },
];
/** With --exe: the executable itself, with the same arguments. */
const CASES = ALL_CASES
  .map((c) => (EXE && c.args[0] === BIN ? { ...c, cmd: EXE, args: c.args.slice(1) } : { ...c, cmd: process.execPath }))
  .filter((c) => !ONLY || ONLY.test(c.name));
if (EXE) process.stderr.write(`timing ${EXE}\n`);

/**
 * CPU time (user + system) of this process's waited children, in ms: what a command costs the
 * machine whatever else runs on it (the wall time on a loaded host is mostly waiting for a
 * core). /proc/self/stat fields 16-17, clock ticks of 10 ms: a mean over the runs.
 */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const rows: { name: string; medianMs: number; minMs: number; cpuMs: number; exit: number | null }[] = [];
for (const c of CASES) {
  const ms: number[] = [];
  let exit: number | null = 0;
  const cpu0 = childrenCpuMs();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(c.cmd, c.args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    ms.push(performance.now() - t0);
    exit = r.status;
  }
  rows.push({ name: c.name, medianMs: median(ms), minMs: Math.min(...ms), cpuMs: (childrenCpuMs() - cpu0) / RUNS, exit });
  process.stderr.write(`${c.name}: median ${median(ms).toFixed(0)} ms\n`);
}
console.log(`| command | median of ${RUNS} (ms) | fastest (ms) | CPU per run, mean (ms) | exit |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) console.log(`| \`${r.name}\` | ${r.medianMs.toFixed(0)} | ${r.minMs.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${r.exit} |`);
mkdirSync(dirname(resolve(ROOT, OUT)), { recursive: true });
writeFileSync(resolve(ROOT, OUT), JSON.stringify({ runs: RUNS, node: process.version, exe: EXE ?? null, rows }, null, 2));
console.log(`load average at the end (1/5/15 min): ${loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${availableParallelism()} cores`);
console.log(`\nwritten ${OUT}`);
