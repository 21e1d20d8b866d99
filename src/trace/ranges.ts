/**
 * Sets of byte ranges [start, end) on the unwrapped sequence line, kept sorted and disjoint
 * in a flat array [s0, e0, s1, e1, ...]. Used for the SACK scoreboard and for holes (ranges
 * the capture never saw). They stay tiny (a few entries), so linear scans are the fast choice.
 */
export type RangeSet = number[];

/** Adds [s, e); returns how many bytes were not already covered. */
export function addRange(set: RangeSet, s: number, e: number): number {
  if (e <= s) return 0;
  let added = e - s;
  let i = 0;
  while (i < set.length && set[i + 1] < s) i += 2;
  let ns = s;
  let ne = e;
  let j = i;
  // Merge every range that touches [s, e).
  while (j < set.length && set[j] <= e) {
    const os = set[j];
    const oe = set[j + 1];
    added -= Math.max(0, Math.min(oe, e) - Math.max(os, s));
    ns = Math.min(ns, os);
    ne = Math.max(ne, oe);
    j += 2;
  }
  set.splice(i, j - i, ns, ne);
  return added;
}

/** Removes [s, e); returns how many bytes were covered there. */
export function removeRange(set: RangeSet, s: number, e: number): number {
  if (e <= s) return 0;
  let removed = 0;
  for (let i = 0; i < set.length; ) {
    const os = set[i];
    const oe = set[i + 1];
    if (oe <= s || os >= e) {
      i += 2;
      continue;
    }
    removed += Math.min(oe, e) - Math.max(os, s);
    const keep: number[] = [];
    if (os < s) keep.push(os, s);
    if (oe > e) keep.push(e, oe);
    set.splice(i, 2, ...keep);
    i += keep.length;
  }
  return removed;
}

/** Drops everything below x. */
export function trimBelow(set: RangeSet, x: number): void {
  let i = 0;
  while (i < set.length && set[i + 1] <= x) i += 2;
  if (i > 0) set.splice(0, i);
  if (set.length > 0 && set[0] < x) set[0] = x;
}

export function coveredBytes(set: RangeSet): number {
  let n = 0;
  for (let i = 0; i < set.length; i += 2) n += set[i + 1] - set[i];
  return n;
}

/** True when [s, e) lies entirely inside one range. */
export function containsRange(set: RangeSet, s: number, e: number): boolean {
  for (let i = 0; i < set.length; i += 2) if (set[i] <= s && e <= set[i + 1]) return true;
  return false;
}
