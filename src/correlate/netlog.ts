/**
 * Reads Chromium's NetLog for the one thing correlation needs: which local address and port
 * each socket (h1/h2) or QUIC session (h3) used. CDP's connectionId is the NetLog source id
 * of that SOCKET or QUIC_SESSION, so this turns a request's connectionId into a 5-tuple.
 * A NetLog cut short (browser crash) is repaired by dropping the partial last event.
 */
import { readFileSync } from 'node:fs';
import { BadInputError } from '../util/errors.js';

export interface NetLogEndpoint {
  sourceId: number;
  kind: 'socket' | 'quic';
  /** Every local "ip:port" seen for the source (QUIC migration can add a second). */
  localAddresses: string[];
  remoteAddress?: string;
  /** QUIC: the server name of the session. */
  host?: string;
}

interface RawNetLog {
  constants: { logEventTypes: Record<string, number>; logSourceType: Record<string, number>; logEventPhase?: Record<string, number> };
  events: { type: number; source: { id: number; type: number }; phase?: number; params?: Record<string, unknown> }[];
}

/** Parses NetLog text; a log truncated mid-event is closed after its last complete event. */
export function parseNetLogText(text: string, name = 'netlog'): RawNetLog {
  try {
    return JSON.parse(text) as RawNetLog;
  } catch {
    const lastEventEnd = text.lastIndexOf('},\n');
    const alt = text.lastIndexOf('}\n');
    const cut = Math.max(lastEventEnd, alt);
    if (cut < 0) throw new BadInputError(`${name}: not a NetLog (unparseable JSON)`);
    try {
      return JSON.parse(`${text.slice(0, cut + 1)}]}`) as RawNetLog;
    } catch (err) {
      throw new BadInputError(`${name}: NetLog is corrupt and could not be repaired (${(err as Error).message})`);
    }
  }
}

export function readNetLog(path: string): Map<number, NetLogEndpoint> {
  return netLogEndpoints(parseNetLogText(readFileSync(path, 'utf8'), path));
}

export function netLogEndpoints(log: RawNetLog): Map<number, NetLogEndpoint> {
  const typeName = new Map(Object.entries(log.constants.logEventTypes).map(([k, v]) => [v, k]));
  const sourceName = new Map(Object.entries(log.constants.logSourceType).map(([k, v]) => [v, k]));
  const out = new Map<number, NetLogEndpoint>();
  const get = (id: number, kind: NetLogEndpoint['kind']) => {
    let e = out.get(id);
    if (!e) { e = { sourceId: id, kind, localAddresses: [] }; out.set(id, e); }
    return e;
  };
  const addLocal = (e: NetLogEndpoint, addr: unknown) => {
    if (typeof addr === 'string' && addr && !e.localAddresses.includes(addr)) e.localAddresses.push(addr);
  };
  for (const ev of log.events ?? []) {
    const type = typeName.get(ev.type);
    const src = sourceName.get(ev.source?.type);
    const p = ev.params ?? {};
    if (src === 'SOCKET' && (type === 'TCP_CONNECT' || type === 'TCP_CONNECT_ATTEMPT' || type === 'SOCKET_BYTES_SENT')) {
      const e = get(ev.source.id, 'socket');
      addLocal(e, p.local_address);
      if (typeof p.remote_address === 'string') e.remoteAddress = p.remote_address;
      if (typeof p.address === 'string' && !e.remoteAddress) e.remoteAddress = p.address;
    } else if (src === 'QUIC_SESSION') {
      const e = get(ev.source.id, 'quic');
      if (type === 'QUIC_SESSION_PACKET_RECEIVED' || type === 'QUIC_SESSION_PACKET_SENT') {
        addLocal(e, p.self_address);
        if (typeof p.peer_address === 'string') e.remoteAddress = p.peer_address;
      } else if (type === 'QUIC_SESSION' && typeof p.host === 'string') {
        e.host = p.host;
      }
    }
  }
  for (const [id, e] of out) if (e.localAddresses.length === 0) out.delete(id);
  return out;
}

/** "10.203.1.2:40000" or "[fd0c::2]:40000" -> port. */
export function portOf(addr: string): number {
  return Number(addr.slice(addr.lastIndexOf(':') + 1));
}
