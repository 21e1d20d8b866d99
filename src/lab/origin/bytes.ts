/**
 * The bulk endpoint /bytes/N: N bytes of incompressible data, for measuring a long flow.
 * N is capped so a typo cannot make an origin stream for hours.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export const MAX_BULK_BYTES = 1024 ** 3; // 1 GiB
const CHUNK = 64 * 1024;

export type ByteCount = { ok: true; n: number } | { ok: false; error: string };

export function parseByteCount(raw: string): ByteCount {
  if (!/^\d{1,10}$/.test(raw)) return { ok: false, error: `N must be a decimal byte count, got "${raw}"` };
  const n = Number(raw);
  if (n > MAX_BULK_BYTES) return { ok: false, error: `N=${n} exceeds the cap of ${MAX_BULK_BYTES} bytes` };
  return { ok: true, n };
}

// One random block reused for every response: random so no layer can compress it.
const block = randomBytes(CHUNK);

/** A stream of exactly n bytes that respects back-pressure (read() is pulled on demand). */
export function bulkBody(n: number): Readable {
  let left = n;
  return new Readable({
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const len = Math.min(left, CHUNK);
      left -= len;
      this.push(len === CHUNK ? block : block.subarray(0, len));
    },
  });
}
