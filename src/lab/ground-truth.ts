/**
 * A run's share of a lab origin's ground truth: the origin appends one JSON line per sample
 * (tcp_info, or its QUIC stack's own stats) for every connection, for as long as the lab is up,
 * so over a crawl the file grows without bound (~1 MB per HTTP/3 probe). Reading it whole for
 * each run made every probe slower than the last and, past V8's longest string (~512 MB), read
 * nothing at all. Each origin's one sampling loop stamps its lines in time order, so the run's
 * window is found by a binary search on byte offsets, and the file is read from just before it.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * How far out of time order a sample may be and still be found: the writers stamp wall-clock
 * time, which a clock step (NTP's first fix on a fresh VM) can move back. A larger step than
 * this while the lab runs can hide a run's samples.
 */
const ORDER_SLACK_SECONDS = 5;
const PROBE_BYTES = 8192;
/** How far past a probe point to look for a line with a time before giving up on that point. */
const PROBE_REACH_BYTES = 256 * 1024;
const CHUNK_BYTES = 1 << 20;

const timeOf = (line: string): number => Number(/"t":\s*([0-9.]+)/.exec(line)?.[1]);

/**
 * The time of the first whole line after `offset` that has one (lines without a time are
 * skipped), or null when none starts within reach. The lines are ASCII JSON.
 */
function firstTimeAfter(fd: number, offset: number, end: number): number | null {
  const buf = Buffer.alloc(PROBE_BYTES);
  let text = '';
  let skippedFragment = false;
  for (let at = offset; at < end && at - offset < PROBE_REACH_BYTES; at += PROBE_BYTES) {
    const n = readSync(fd, buf, 0, Math.min(PROBE_BYTES, end - at), at);
    if (n <= 0) break;
    text += buf.toString('latin1', 0, n);
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      // The first piece is the tail of the line the offset fell in: not a whole line.
      if (!skippedFragment) { skippedFragment = true; continue; }
      const t = timeOf(line);
      if (Number.isFinite(t)) return t;
    }
  }
  return null;
}

/** A byte offset at or before the first line of time >= t (less the slack); 0 when unsure. */
export function offsetBefore(fd: number, size: number, t: number): number {
  const target = t - ORDER_SLACK_SECONDS;
  let lo = 0;
  let hi = size;
  while (hi - lo > CHUNK_BYTES) {
    const mid = Math.floor((lo + hi) / 2);
    const tm = firstTimeAfter(fd, mid, hi);
    if (tm === null) break; // no readable time near mid: read on from lo (correct, only slower)
    if (tm < target) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Copies the origin's ground-truth lines of this run (the origin sees the run's own address after
 * the upstream NAT) that fall in [t0, t1] (epoch seconds) into `dest`; returns how many.
 * A missing source (no samples yet) gives an empty file.
 */
export function extractGroundTruth(source: string, t0: number, t1: number, runAddr: string, dest: string): number {
  const ours = (line: string) => line.includes(`"remote":"${runAddr}:`) || line.includes(`"remote": "${runAddr}:`);
  const kept: string[] = [];
  /** Keeps a line of this run inside the window; 'past' for one well after it (the rest of the file is later still). */
  const consider = (line: string): 'past' | void => {
    if (!ours(line)) return;
    const t = timeOf(line);
    if (t > t1 + ORDER_SLACK_SECONDS) return 'past';
    if (t >= t0 && t <= t1) kept.push(line);
  };
  let fd: number;
  try { fd = openSync(source, 'r'); } catch { fd = -1; }
  if (fd >= 0) {
    try {
      // The size now: lines appended while this reads are later samples than the run's end.
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(CHUNK_BYTES);
      const utf8 = new StringDecoder('utf8'); // a character cut by a chunk's end is kept whole
      let at = offsetBefore(fd, size, t0);
      let rest = '';
      let first = at > 0; // a read that starts mid-file starts mid-line: drop that fragment
      let past = false;
      while (at < size && !past) {
        const n = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, size - at), at);
        if (n <= 0) break;
        at += n;
        const lines = (rest + utf8.write(buf.subarray(0, n))).split('\n');
        rest = lines.pop() ?? '';
        if (first && lines.length) { lines.shift(); first = false; }
        for (const line of lines) {
          if (consider(line) === 'past') { past = true; break; }
        }
      }
      // The file's last line is whole once the writer has finished it (a sample ends with '}').
      rest += utf8.end();
      if (!past && !first && rest.endsWith('}')) consider(rest);
    } finally {
      closeSync(fd);
    }
  }
  writeFileSync(dest, kept.join('\n') + (kept.length ? '\n' : ''));
  return kept.length;
}
