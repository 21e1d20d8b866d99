/**
 * Gzip-compressed captures (`.pcap.gz`, how captures taken elsewhere are often shared) read as
 * the capture they hold, packet for packet; a corrupt gzip stream is a clear error.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readCapture } from '../../../src/trace/pcap.js';

const SOURCE = 'tests/fixtures/lab-traces/tcp-bbr-nebby-50/capture.pcap';

async function packets(path: string, chunkSize?: number): Promise<{ n: number; bytes: number; last: number }> {
  let n = 0;
  let bytes = 0;
  let last = 0;
  await readCapture(path, (r) => { n++; bytes += r.origLen; last = r.tsSec + r.tsNsec / 1e9; }, chunkSize ? { chunkSize } : {});
  return { n, bytes, last };
}

describe('readCapture on a gzip-compressed capture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-gz-'));
  const gz = join(dir, 'capture.pcap.gz');
  writeFileSync(gz, gzipSync(readFileSync(SOURCE)));

  it('reads the same packets as the plain file, whatever the chunk size', async () => {
    const plain = await packets(SOURCE);
    expect(plain.n).toBeGreaterThan(100);
    expect(await packets(gz)).toEqual(plain);
    expect(await packets(gz, 300)).toEqual(plain);
  });

  it('names a corrupt gzip stream', async () => {
    const bad = join(dir, 'bad.pcap.gz');
    const bytes = gzipSync(readFileSync(SOURCE));
    bytes.fill(0x55, 40, 400);
    writeFileSync(bad, bytes);
    await expect(packets(bad)).rejects.toThrow(/gzip stream is corrupt/);
  });
});
