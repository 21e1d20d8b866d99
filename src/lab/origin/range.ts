/**
 * HTTP Range (RFC 9110 section 14) for one byte range. Multi-range requests are answered
 * with the whole file, which the RFC allows and no media player needs otherwise.
 */
export type RangeResult =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number } // end inclusive
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return { kind: 'full' };
  const m = SINGLE.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' }; // malformed: ignore it
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return { kind: 'partial', start, end };
}
