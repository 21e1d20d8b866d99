/**
 * Batch analysis benchmark: `npx tsx bench/batch.ts [--copies 100] [--python python3] [--nebby-sample 20] [--out build/bench/batch.json]`.
 *
 * Lays out `--copies` copies of the three TCP lab fixtures (tests/fixtures/lab-traces: run
 * directories of ~165 kB captures, with probe.json) under /tmp, then, in the same run, times:
 *   1. `ccbrowse classify DIR --jsonl` over all of them: one process, the worker pool, every
 *      flow classified (captures/s = captures / wall time);
 *   2. `ccbrowse classify FILE --json`, one process per capture, on a sample (the old way);
 *   3. Nebby's published front end on the same sample, one Python process per trace:
 *      `tshark -T fields` (time, addresses, ports, seq, ack, length) read into pandas
 *      (`--python` must have pandas; the scikit-learn step after it is not counted, so the
 *      ratio understates ccbrowse's lead).
 * Prints medians per capture and the ratio. Needs `npm run build` (uses bin/ccbrowse.js).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const ROOT = resolve(import.meta.dirname, '..');
const COPIES = Number(arg('--copies', '100'));
const SAMPLE = Number(arg('--nebby-sample', '20'));
const PYTHON = arg('--python', 'python3')!;
const OUT = arg('--out', 'build/bench/batch.json')!;
const BIN = join(ROOT, 'bin/ccbrowse.js');
const FIXTURES = ['tcp-cubic-nebby-50', 'tcp-bbr-nebby-50', 'tcp-reno-nebby-100'];

const NEBBY_READ = `
import io, subprocess, sys
import pandas as pd
out = subprocess.run(['tshark', '-r', sys.argv[1], '-T', 'fields', '-E', 'separator=,', '-e', 'frame.time_epoch',
  '-e', 'ip.src', '-e', 'ip.dst', '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'tcp.seq', '-e', 'tcp.ack', '-e', 'frame.len'],
  capture_output=True, check=True).stdout
df = pd.read_csv(io.BytesIO(out), header=None, names=['time', 'src', 'dst', 'sport', 'dport', 'seq', 'ack', 'len'])
print(len(df))
`;

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const time = (cmd: string, args: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  return { s: (performance.now() - t0) / 1000, r };
};

const dir = mkdtempSync('/tmp/ccb20-batch-');
try {
  const captures: string[] = [];
  for (let i = 0; i < COPIES; i++) {
    for (const f of FIXTURES) {
      const d = join(dir, `${String(i).padStart(4, '0')}-${f}`);
      cpSync(join(ROOT, 'tests/fixtures/lab-traces', f), d, { recursive: true });
      rmSync(join(d, 'ground-truth.jsonl'), { force: true });
      captures.push(join(d, 'capture.pcap'));
    }
  }
  const n = captures.length;

  // 1. One process, the worker pool.
  const batch = time(process.execPath, [BIN, 'classify', dir, '--jsonl']);
  const lines = batch.r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { input?: string; error?: string });
  const inputs = new Set(lines.map((l) => l.input)).size;
  const errors = lines.filter((l) => l.error).length;
  process.stderr.write(`batch: ${n} captures in ${batch.s.toFixed(2)} s (exit ${batch.r.status}, ${lines.length} lines, ${inputs} inputs, ${errors} errors)\n`);

  // 2. and 3. on the same sample, interleaved so that the machine's load hits both alike.
  const sample = captures.slice(0, SAMPLE);
  const single: number[] = [];
  const nebby: number[] = [];
  let nebbyFailed = '';
  for (const c of sample) {
    single.push(time(process.execPath, [BIN, 'classify', c, '--json']).s);
    const p = time(PYTHON, ['-c', NEBBY_READ, c]);
    if (p.r.status !== 0) nebbyFailed = p.r.stderr.trim().split('\n').at(-1) ?? `exit ${p.r.status}`;
    nebby.push(p.s);
  }
  const perCapture = batch.s / n;
  const rows = {
    cores: availableParallelism(), captures: n, batchSeconds: batch.s, capturesPerSecond: n / batch.s, batchExit: batch.r.status, errors,
    perCaptureBatchMs: perCapture * 1000, perCaptureOneProcessMs: median(single) * 1000, perCaptureNebbyReadMs: nebbyFailed ? null : median(nebby) * 1000,
    ratioVsNebbyRead: nebbyFailed ? null : median(nebby) / perCapture, nebbyFailed: nebbyFailed || undefined,
  };
  console.log(`| how | captures | per capture (ms) | captures/s |`);
  console.log('| --- | ---: | ---: | ---: |');
  console.log(`| \`ccbrowse classify DIR --jsonl\` (one process, ${rows.cores} cores) | ${n} | ${rows.perCaptureBatchMs.toFixed(1)} | ${rows.capturesPerSecond.toFixed(1)} |`);
  console.log(`| \`ccbrowse classify FILE --json\`, a process per capture (median) | ${sample.length} | ${rows.perCaptureOneProcessMs.toFixed(0)} | ${(1000 / rows.perCaptureOneProcessMs).toFixed(1)} |`);
  console.log(nebbyFailed
    ? `| Nebby's tshark -T fields + pandas read | - | failed: ${nebbyFailed} | - |`
    : `| Nebby's \`tshark -T fields\` + pandas read, a process per capture (median) | ${sample.length} | ${rows.perCaptureNebbyReadMs!.toFixed(0)} | ${(1000 / rows.perCaptureNebbyReadMs!).toFixed(1)} |`);
  if (!nebbyFailed) console.log(`\nbatch classify is ${rows.ratioVsNebbyRead!.toFixed(1)}x faster per capture than Nebby's read step alone (target >= 20x)`);
  mkdirSync(dirname(resolve(ROOT, OUT)), { recursive: true });
  writeFileSync(resolve(ROOT, OUT), JSON.stringify(rows, null, 2));
  console.log(`load average at the end (1/5/15 min): ${loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${availableParallelism()} cores`);
  console.log(`written ${OUT}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
