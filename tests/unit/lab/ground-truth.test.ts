/**
 * A run's ground truth from a lab origin's ever-growing sample file (src/lab/ground-truth.ts):
 * the window found by binary search gives exactly the lines a whole read would, on files of
 * ten megabytes, with both JSON spellings the origins write, and odd lines in its way.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractGroundTruth, offsetBefore } from '../../../src/lab/ground-truth.js';

const dir = mkdtempSync(join(tmpdir(), 'ccb-gt-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = 1_795_000_000;
const RUNS = ['10.203.1.2', '10.203.9.77', '10.203.1.20'];

/** One sample line per 5 ms, the three runs in turn, a little padding like real samples. */
function sampleFile(name: string, seconds: number, spaced = false): string {
  const path = join(dir, name);
  const lines: string[] = [];
  for (let i = 0; i < seconds * 200; i++) {
    const t = (T0 + i * 0.005).toFixed(6);
    const remote = `${RUNS[i % 3]}:${40000 + (i % 7)}`;
    lines.push(spaced
      ? `{"t": ${t}, "stack": "aioquic", "remote": "${remote}", "cwnd": ${i % 5000}, "pad": "${'x'.repeat(60)}"}`
      : `{"t":${t},"local":"10.203.128.18:443","remote":"${remote}","cc":"cubic","cwnd":${i % 5000},"pad":"${'x'.repeat(60)}"}`);
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** What a whole read of the file keeps (the old way). */
function wholeRead(source: string, t0: number, t1: number, addr: string): string[] {
  return readFileSync(source, 'utf8').split('\n').filter((line) => {
    const t = Number(/"t":\s*([0-9.]+)/.exec(line)?.[1]);
    return t >= t0 && t <= t1 && new RegExp(`"remote":\\s*"${addr.replace(/\./g, '\\.')}:`).test(line);
  });
}

const kept = (dest: string) => readFileSync(dest, 'utf8').split('\n').filter(Boolean);

describe('extractGroundTruth', () => {
  const big = sampleFile('big.jsonl', 300); // 60,000 lines, ~10 MB: the search has work to do
  const spaced = sampleFile('spaced.jsonl', 60, true);

  it.each([
    ['window from the first line', 0, 2],
    ['early window', 10, 30],
    ['middle window', 140, 171.5],
    ['last seconds', 290, 400],
    ['before the first sample', -50, -1],
    ['after the last sample', 400, 500],
  ])('keeps exactly the lines a whole read keeps (%s)', (_what, from, to) => {
    for (const addr of RUNS.slice(0, 2)) {
      const dest = join(dir, `out-${from}-${addr}.jsonl`);
      const n = extractGroundTruth(big, T0 + from, T0 + to, addr, dest);
      const expected = wholeRead(big, T0 + from, T0 + to, addr);
      expect(n).toBe(expected.length);
      expect(kept(dest)).toEqual(expected);
    }
  });

  it('starts reading before every sample of the window, and not far before it', () => {
    const text = readFileSync(big, 'utf8');
    const fd = openSync(big, 'r');
    try {
      for (let s = 0; s <= 300; s += 7.3) {
        const at = offsetBefore(fd, statSync(big).size, T0 + s);
        // The first whole line after the offset is older than the window less the slack (5 s) ...
        const next = at === 0 ? T0 : Number(/"t":([0-9.]+)/.exec(text.slice(text.indexOf('\n', at) + 1))?.[1]);
        expect(next).toBeLessThanOrEqual(T0 + s - 5 + 1e-6 + (at === 0 ? 5 : 0));
        // ... and not by much more than the search's last step (1 MiB, ~30 s of these samples).
        expect(T0 + s - next).toBeLessThan(60);
      }
    } finally {
      closeSync(fd);
    }
  });

  it('does not take one address for a longer one that starts with it', () => {
    const dest = join(dir, 'prefix.jsonl');
    extractGroundTruth(big, T0 + 100, T0 + 110, '10.203.1.2', dest);
    expect(kept(dest).every((l) => l.includes('"remote":"10.203.1.2:'))).toBe(true);
  });

  it('reads the spaced spelling (Python json.dumps)', () => {
    const dest = join(dir, 'spaced-out.jsonl');
    const n = extractGroundTruth(spaced, T0 + 20, T0 + 25, RUNS[1], dest);
    expect(n).toBe(wholeRead(spaced, T0 + 20, T0 + 25, RUNS[1]).length);
    expect(n).toBeGreaterThan(300);
  });

  it('leaves out a last line the writer has not finished, and keeps it once finished', () => {
    const path = sampleFile('growing.jsonl', 10);
    const last = `{"t":${(T0 + 9.999).toFixed(6)},"remote":"${RUNS[0]}:40000","cwnd":7}`;
    appendFileSync(path, last.slice(0, -1)); // all but its closing brace
    const dest = join(dir, 'growing-out.jsonl');
    const before = extractGroundTruth(path, T0, T0 + 20, RUNS[0], dest);
    expect(kept(dest).some((l) => l.includes('"cwnd":7}'))).toBe(false);
    appendFileSync(path, last.slice(-1));
    expect(extractGroundTruth(path, T0, T0 + 20, RUNS[0], dest)).toBe(before + 1);
  });

  it('keeps a sample written out of order behind later ones of the same run, within the slack', () => {
    const path = join(dir, 'unordered.jsonl');
    const lines = [];
    for (let i = 0; i < 40_000; i++) lines.push(`{"t":${(T0 + i * 0.01).toFixed(6)},"remote":"10.0.0.9:1","pad":"${'y'.repeat(80)}"}`);
    // The run's own samples 1-4.9 s past its window's end, then one of its window written late
    // (a writer's clock stepped back), then one 5.1 s past the end.
    const own = (t: number, extra = '') => `{"t":${(T0 + t).toFixed(6)},"remote":"${RUNS[2]}:5"${extra}}`;
    lines.splice(20_600, 0, own(201.5), own(204.9), own(200, ',"late":true'), own(205.6), own(200.2, ',"tooLate":true'));
    writeFileSync(path, lines.join('\n') + '\n');
    const dest = join(dir, 'unordered-out.jsonl');
    expect(extractGroundTruth(path, T0 + 199.5, T0 + 200.5, RUNS[2], dest)).toBe(1);
    expect(kept(dest)[0]).toContain('"late":true');
  });

  it('finds its window past lines without a time, very long lines and other scripts', () => {
    const path = join(dir, 'odd.jsonl');
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 3.2e6; i++) {
      const t = (T0 + i * 0.01).toFixed(6);
      let line = `{"t":${t},"remote":"${RUNS[i % 2]}:7","note":"café ☕","pad":"${'z'.repeat(60)}"}`;
      if (i % 997 === 0) line = '';                                          // a blank line
      else if (i % 1009 === 0) line = `{"hello":"no time here","remote":"${RUNS[0]}:7"}`;
      else if (i % 1511 === 0) line = `{"t":${t},"remote":"${RUNS[1]}:7","blob":"${'q'.repeat(20_000)}"}`; // longer than a probe read
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    writeFileSync(path, lines.join('\n') + '\n');
    for (const [from, to] of [[0, 5], [20, 40], [150, 200], [300, 500]]) {
      for (const addr of RUNS.slice(0, 2)) {
        const dest = join(dir, `odd-${from}-${addr}.jsonl`);
        const expected = wholeRead(path, T0 + from, T0 + to, addr);
        expect(extractGroundTruth(path, T0 + from, T0 + to, addr, dest)).toBe(expected.length);
        expect(kept(dest)).toEqual(expected); // the multi-byte characters whole at every chunk's edge
      }
    }
  });

  it('keeps a character whole when a chunk of the read (1 MiB) ends inside it', () => {
    const path = join(dir, 'split-char.jsonl');
    const lines: string[] = [];
    let bytes = 0;
    let i = 0;
    const line = (k: number, note: string) => `{"t":${(T0 + k * 0.01).toFixed(6)},"remote":"${RUNS[0]}:9","note":"${note}"}`;
    while (bytes + 200 < 1 << 20) { const l = line(i++, 'x'.repeat(80)); lines.push(l); bytes += l.length + 1; }
    // Pad the next line so its three-byte character starts one byte before the chunk's end.
    const head = line(i, '').length - 2; // up to and including the note's opening quote
    const pad = (1 << 20) - 1 - bytes - head;
    lines.push(line(i++, `${'p'.repeat(pad)}☕`));
    for (let k = 0; k < 2000; k++) lines.push(line(i++, 'after'));
    writeFileSync(path, lines.join('\n') + '\n');
    expect(readFileSync(path).subarray((1 << 20) - 1, (1 << 20) + 2).toString('utf8')).toBe('☕');
    const dest = join(dir, 'split-char-out.jsonl');
    extractGroundTruth(path, T0, T0 + 1000, RUNS[0], dest);
    expect(kept(dest)).toEqual(wholeRead(path, T0, T0 + 1000, RUNS[0]));
  });

  it('writes an empty file for an origin whose file is still empty', () => {
    const path = join(dir, 'empty.jsonl');
    writeFileSync(path, '');
    const dest = join(dir, 'empty-out.jsonl');
    expect(extractGroundTruth(path, T0, T0 + 1, RUNS[0], dest)).toBe(0);
    expect(readFileSync(dest, 'utf8')).toBe('');
  });

  it('writes an empty file when the origin has no samples yet', () => {
    const dest = join(dir, 'none.jsonl');
    expect(extractGroundTruth(join(dir, 'missing.jsonl'), T0, T0 + 1, RUNS[0], dest)).toBe(0);
    expect(readFileSync(dest, 'utf8')).toBe('');
  });
});
