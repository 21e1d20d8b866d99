/** Parses --listen values: "IP:PORT" or "[IPv6]:PORT"; port 0 means "pick a free one". */
import { isIP } from 'node:net';

export interface ListenAddress {
  host: string;
  port: number;
}

export function parseListen(value: string): ListenAddress | undefined {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(value) ?? /^([^:]+):(\d{1,5})$/.exec(value);
  if (!m || !isIP(m[1])) return undefined;
  const port = Number(m[2]);
  return port <= 65535 ? { host: m[1], port } : undefined;
}

export function originUrl(a: ListenAddress): string {
  return `https://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}
