/**
 * WebRTC signalling for the call site: rooms of exactly two peers; every text message from
 * one is relayed verbatim to the other (SDP and ICE candidates). When the second peer
 * arrives both get {type:"peer", initiator}, the newcomer being the initiator (it knows the
 * other side is already listening); a departure sends {type:"peer-left"}.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { hostPort, type RequestLog } from './request-log.js';

export const SIGNAL_PATH = '/signal';
const ROOM_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface Signalling {
  /** Handles an HTTP/1.1 Upgrade; returns false if the path is not the signalling one. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): void;
}

export function createSignalling(originName: string, log: RequestLog): Signalling {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  const rooms = new Map<string, WebSocket[]>();

  function join(ws: WebSocket, room: string, req: IncomingMessage, remote: string, local: string): void {
    const started = Date.now();
    let relayed = 0;
    const peers = rooms.get(room) ?? [];
    if (peers.length >= 2) {
      ws.close(4001, 'room full');
      return;
    }
    peers.push(ws);
    rooms.set(room, peers);
    if (peers.length === 2) {
      peers[0].send(JSON.stringify({ type: 'peer', initiator: false }));
      peers[1].send(JSON.stringify({ type: 'peer', initiator: true }));
    }
    ws.on('message', (data, isBinary) => {
      const other = rooms.get(room)?.find((p) => p !== ws);
      if (!other || isBinary) return;
      const text = data.toString();
      other.send(text);
      relayed += Buffer.byteLength(text);
    });
    ws.on('close', () => {
      const left = (rooms.get(room) ?? []).filter((p) => p !== ws);
      if (left.length) rooms.set(room, left);
      else rooms.delete(room);
      for (const p of left) p.send(JSON.stringify({ type: 'peer-left' }));
      log.write({
        time: new Date(started).toISOString(),
        origin: originName,
        method: 'GET',
        path: req.url ?? SIGNAL_PATH,
        status: 101,
        bytes: relayed,
        protocol: 'websocket',
        remote,
        local,
        durationMs: Date.now() - started,
        aborted: false,
      });
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'https://lab.invalid');
      if (url.pathname !== SIGNAL_PATH) return false;
      const room = url.searchParams.get('room') ?? 'lab';
      if (!ROOM_RE.test(room)) {
        socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
        return true;
      }
      // Addresses are read now: the socket is gone by the time the close is logged.
      const remote = hostPort(req.socket.remoteAddress, req.socket.remotePort);
      const local = hostPort(req.socket.localAddress, req.socket.localPort);
      wss.handleUpgrade(req, socket, head, (ws) => join(ws, room, req, remote, local));
      return true;
    },
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
