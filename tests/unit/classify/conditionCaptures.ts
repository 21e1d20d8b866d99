/** The committed condition captures (tests/fixtures/condition-captures): each unpacked once into a temp run directory. */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const FIXTURES = fileURLToPath(new URL('../../fixtures/condition-captures/', import.meta.url));

/** Name -> a run directory (capture.pcap + probe.json, and keylog.txt for QUIC) a classify call can read. */
export function unpackConditionCaptures(): Map<string, string> {
  const root = mkdtempSync(join(tmpdir(), 'ccb-condcap-'));
  const dirs = new Map<string, string>();
  for (const name of readdirSync(FIXTURES).sort()) {
    if (!statSync(join(FIXTURES, name)).isDirectory()) continue; // README.md
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'capture.pcap'), gunzipSync(readFileSync(join(FIXTURES, name, 'capture.pcap.gz'))));
    copyFileSync(join(FIXTURES, name, 'probe.json'), join(dir, 'probe.json'));
    // A QUIC capture brings the TLS key log its packets are read with.
    if (existsSync(join(FIXTURES, name, 'keylog.txt'))) copyFileSync(join(FIXTURES, name, 'keylog.txt'), join(dir, 'keylog.txt'));
    dirs.set(name, dir);
  }
  return dirs;
}
