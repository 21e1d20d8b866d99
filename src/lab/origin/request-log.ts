/**
 * One JSON line per request, written when the response closes: the server-side ground truth
 * of which origin sent how many bytes over which connection (remote addr:port is the join
 * key to the client's flows in the capture).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

export interface RequestLogEntry {
  time: string; // ISO 8601, when the request arrived
  origin: string; // the server's --name
  method: string;
  path: string; // path and query as requested
  status: number;
  bytes: number; // body bytes written (for /signal: bytes relayed to this peer)
  protocol: 'h2' | 'http/1.1' | 'websocket';
  remote: string; // client addr:port
  local: string; // server addr:port
  stream?: number; // HTTP/2 stream id
  durationMs: number;
  aborted: boolean; // the client went away before the body was complete
}

export interface RequestLog {
  write(entry: RequestLogEntry): void;
  close(): Promise<void>;
}

export function openRequestLog(file: string | undefined): RequestLog {
  const out: WriteStream | undefined = file ? createWriteStream(file, { flags: 'a' }) : undefined;
  return {
    write(entry) {
      out?.write(JSON.stringify(entry) + '\n');
    },
    close() {
      return new Promise((resolve) => (out ? out.end(() => resolve()) : resolve()));
    },
  };
}

/** Reads a log back; a torn last line (process killed mid-write) is skipped. */
export async function readRequestLog(file: string): Promise<RequestLogEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const entries: RequestLogEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as RequestLogEntry);
    } catch {
      /* torn line */
    }
  }
  return entries;
}

/** "addr:port", with IPv6 addresses in brackets. */
export function hostPort(addr: string | undefined, port: number | undefined): string {
  const a = addr ?? '?';
  return `${a.includes(':') ? `[${a}]` : a}:${port ?? 0}`;
}
