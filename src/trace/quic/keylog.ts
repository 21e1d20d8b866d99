/**
 * NSS key log format (SSLKEYLOGFILE, what Chromium's --ssl-key-log-file writes): one
 * `LABEL <client random hex> <secret hex>` per line. QUIC needs the TLS 1.3 handshake and
 * first application traffic secrets; later ones follow from "quic ku" (key updates).
 */
import { readFileSync } from 'node:fs';

export interface TlsSecrets {
  clientRandom: string;
  clientHandshake?: Buffer;
  serverHandshake?: Buffer;
  client0?: Buffer;
  server0?: Buffer;
}

export interface KeyLog {
  /** Client random (lower-case hex) -> secrets. */
  byRandom: Map<string, TlsSecrets>;
  /** Lines that were neither a known label nor a comment/blank. */
  badLines: number;
}

const FIELD: Record<string, keyof Omit<TlsSecrets, 'clientRandom'>> = {
  CLIENT_HANDSHAKE_TRAFFIC_SECRET: 'clientHandshake',
  SERVER_HANDSHAKE_TRAFFIC_SECRET: 'serverHandshake',
  CLIENT_TRAFFIC_SECRET_0: 'client0',
  SERVER_TRAFFIC_SECRET_0: 'server0',
};

export function parseKeyLog(text: string): KeyLog {
  const byRandom = new Map<string, TlsSecrets>();
  let badLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    if (parts.length !== 3 || !/^[0-9a-fA-F]{64}$/.test(parts[1]) || !/^(?:[0-9a-fA-F]{2})+$/.test(parts[2])) {
      badLines++;
      continue;
    }
    const field = FIELD[parts[0]];
    if (!field) continue; // EXPORTER_SECRET, CLIENT_RANDOM (TLS 1.2), early secrets: not needed
    const random = parts[1].toLowerCase();
    const s = byRandom.get(random) ?? { clientRandom: random };
    s[field] = Buffer.from(parts[2], 'hex');
    byRandom.set(random, s);
  }
  return { byRandom, badLines };
}

export function readKeyLog(path: string): KeyLog {
  return parseKeyLog(readFileSync(path, 'utf8'));
}
