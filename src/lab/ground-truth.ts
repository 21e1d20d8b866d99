/**
 * A run's share of a lab origin's ground truth: the origin appends one JSON line per sample
 * (tcp_info, or its QUIC stack's own stats) for every connection, for as long as the lab is up,
 * so over a crawl the file grows without bound (~1 MB per HTTP/3 probe). Reading it whole for
 * each run made every probe slower than the last and, past V8's longest string (~512 MB), read
 * nothing at all. The samples are appended in time order, so the run's window is found by a
 * binary search on byte offsets and only that window is read.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';

/** Samples up to this much older than the window's start may follow it in the file (writers' threads). */
const ORDER_SLACK_SECONDS = 5;
const PROBE_BYTES = 8192;
const CHUNK_BYTES = 1 << 20;

const timeOf = (line: string): number => Number(/"t":\s*([0-9.]+)/.exec(line)?.[1]);

/** The time of the first whole line that starts after `offset`, or null when none can be read. */
function firstTimeAfter(fd: number, offset: number, size: number): number | null {
  const buf = Buffer.alloc(PROBE_BYTES);
  for (let at = offset; at < size; at += PROBE_BYTES) {
    const n = readSync(fd, buf, 0, PROBE_BYTES, at);
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl < 0) continue; // inside a long line: look further on
    // The line that begins after this newline, as far as the buffer holds it; read on if it is cut.
    let end = buf.subarray(nl + 1, n).indexOf(10);
    let text = buf.subarray(nl + 1, end < 0 ? n : nl + 1 + end).toString('utf8');
    if (end < 0) {
      const more = Buffer.alloc(PROBE_BYTES * 4);
      const m = readSync(fd, more, 0, more.length, at + n);
      end = more.subarray(0, m).indexOf(10);
      text += more.subarray(0, end < 0 ? m : end).toString('utf8');
    }
    const t = timeOf(text);
    return Number.isFinite(t) ? t : null;
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
    if (tm === null) break; // unreadable stretch: read on from lo (correct, only slower)
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
  const remote = `"remote":"${runAddr}:`;
  const remoteSpaced = `"remote": "${runAddr}:`;
  const kept: string[] = [];
  let fd: number;
  try { fd = openSync(source, 'r'); } catch { fd = -1; }
  if (fd >= 0) {
    try {
      const buf = Buffer.alloc(CHUNK_BYTES);
      // The size now: lines appended while this reads belong to later samples than the run's end.
      const size = fstatSync(fd).size;
      let at = offsetBefore(fd, size, t0);
      let rest = '';
      let first = at > 0; // a read that starts mid-file starts mid-line: drop that fragment
      let past = false;
      while (at < size && !past) {
        const n = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, size - at), at);
        if (n <= 0) break;
        at += n;
        const lines = (rest + buf.subarray(0, n).toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        if (first) { lines.shift(); first = false; }
        for (const line of lines) {
          if (!line.includes(remote) && !line.includes(remoteSpaced)) continue;
          const t = timeOf(line);
          if (t > t1 + ORDER_SLACK_SECONDS) { past = true; break; }
          if (t >= t0 && t <= t1) kept.push(line);
        }
      }
      // The file's last line is whole if the writer has finished it (a sample ends with '}').
      if (!past && rest.endsWith('}') && (rest.includes(remote) || rest.includes(remoteSpaced))) {
        const t = timeOf(rest);
        if (t >= t0 && t <= t1) kept.push(rest);
      }
    } finally {
      closeSync(fd);
    }
  }
  writeFileSync(dest, kept.join('\n') + (kept.length ? '\n' : ''));
  return kept.length;
}
