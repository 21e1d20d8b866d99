/**
 * A run's ground truth out of a lab origin's sample file as it grows over a crawl (an HTTP/3
 * origin appends ~1 MB per probe): the time one run's extraction takes, and how many lines it
 * finds, by the binary search (src/lab/ground-truth.ts) and by reading the file whole (before).
 *   npx tsx bench/ground-truth.ts [sizes in MB, default 10,100,600] [--dir DIR]
 * Each file: one sample every 5 ms from 50 connections in turn; the run asked for is the last
 * 30 s of one connection (a probe that just ended). Figures: docs/benchmarks/crawl.md.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractGroundTruth } from '../src/lab/ground-truth.js';

const T0 = 1_795_000_000;
const LINE_EVERY = 0.005;

function writeSamples(path: string, mb: number): { lines: number; lastT: number } {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let i = 0;
  try {
    while (bytes < mb * 1e6) {
      const chunk: string[] = [];
      for (let k = 0; k < 10_000; k++, i++) {
        const t = (T0 + i * LINE_EVERY).toFixed(6);
        chunk.push(`{"bytes_in_flight":${i % 90_000},"cc":"cubic","conn":${i % 50},"cwnd":246138,"local":"10.203.128.18:443","lost_bytes":0,"min_rtt_ms":112.363,"remote":"10.203.${i % 50}.2:38914","rtt_ms":168.23,"sent_packets":${i},"stack":"quinn","t":${t},"udp_tx_bytes":7835}\n`);
      }
      const s = chunk.join('');
      writeSync(fd, s);
      bytes += Buffer.byteLength(s);
    }
  } finally {
    closeSync(fd);
  }
  return { lines: i, lastT: T0 + (i - 1) * LINE_EVERY };
}

/** The extraction before session 40: the whole file as one string, a regular expression per line. */
function wholeRead(source: string, t0: number, t1: number, runAddr: string): number {
  let text = '';
  try { text = readFileSync(source, 'utf8'); } catch { /* what it did on any error: no samples */ }
  return text.split('\n').filter((line) => {
    const t = Number(/"t":\s*([0-9.]+)/.exec(line)?.[1]);
    return t >= t0 && t <= t1 && new RegExp(`"remote":\\s*"${runAddr.replace(/\./g, '\\.')}:`).test(line);
  }).length;
}

function timed<T>(f: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = f();
  return { ms: performance.now() - t, value };
}

function main(): void {
  const args = process.argv.slice(2);
  const dirAt = args.indexOf('--dir');
  const base = dirAt >= 0 ? args[dirAt + 1] : tmpdir();
  const sizes = (args.find((a, i) => !a.startsWith('--') && i !== dirAt + 1) ?? '10,100,600').split(',').map(Number);
  const dir = mkdtempSync(join(base, 'ccb-gt-bench-'));
  try {
    console.log('| file (MB) | lines | binary search (ms) | lines found | whole read (ms) | lines found |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const mb of sizes) {
      const path = join(dir, `gt-${mb}.jsonl`);
      const { lines, lastT } = writeSamples(path, mb);
      const addr = '10.203.7.2';
      const [t0, t1] = [lastT - 30, lastT];
      const fast = timed(() => extractGroundTruth(path, t0, t1, addr, join(dir, 'out.jsonl')));
      const whole = timed(() => wholeRead(path, t0, t1, addr));
      console.log(`| ${mb} | ${lines} | ${fast.ms.toFixed(1)} | ${fast.value} | ${whole.ms.toFixed(1)} | ${whole.value} |`);
      rmSync(path);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
