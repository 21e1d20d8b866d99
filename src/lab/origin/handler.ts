/**
 * The origin's request handler: static files (with Range), /bytes/N, /health and the live
 * manifest. Written against the http2 compatibility API, which HTTP/1.1 requests (allowHTTP1)
 * also satisfy for everything used here.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Http2ServerRequest, Http2ServerResponse, OutgoingHttpHeaders } from 'node:http2';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { VodManifest } from '../sites/manifest.js';
import { bulkBody, parseByteCount } from './bytes.js';
import { liveManifest } from './live.js';
import { mimeType } from './mime.js';
import { parseRange } from './range.js';
import { hostPort, type RequestLog } from './request-log.js';

export interface HandlerOptions {
  root: string;
  name: string;
  log: RequestLog;
  /** Where the live stream's looping segments come from (URL path under root). */
  liveSource?: string;
  liveWindowSegments?: number;
}

export const LIVE_MANIFEST_PATH = '/live/manifest.json';
const DEFAULT_LIVE_SOURCE = '/media/vod/manifest.json';

type Meter = { bytes: number };

export function createHandler(opts: HandlerOptions): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  const root = resolve(opts.root);
  // Pages on one origin fetch from others (media, images), so the lab opens CORS and turns
  // caching off: every run must put its bytes on the wire.
  const common: OutgoingHttpHeaders = {
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'Content-Length, Content-Range, Content-Type, X-Ccb-Origin',
    'timing-allow-origin': '*',
    'x-ccb-origin': opts.name,
  };

  return (req, res) => {
    const meter: Meter = { bytes: 0 };
    logOnClose(req, res, meter, opts);
    route(req, res, meter).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, `internal error: ${(err as Error).message}\n`, meter);
      else res.destroy();
    });
  };

  async function route(req: Http2ServerRequest, res: Http2ServerResponse, meter: Meter): Promise<void> {
    const method = req.method ?? 'GET';
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'https://lab.invalid').pathname);
    } catch {
      return reply(res, 400, 'bad URL\n', meter);
    }
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        ...common,
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': '*',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') return reply(res, 405, 'only GET and HEAD\n', meter);
    const head = method === 'HEAD';

    if (path === '/health') {
      return reply(res, 200, JSON.stringify({ ok: true, name: opts.name, pid: process.pid }) + '\n', meter, 'application/json', head);
    }
    if (path.startsWith('/bytes/')) {
      const n = parseByteCount(path.slice('/bytes/'.length));
      if (!n.ok) return reply(res, 400, n.error + '\n', meter);
      res.writeHead(200, { ...common, 'content-type': 'application/octet-stream', 'content-length': n.n });
      return head ? void res.end() : pipeBody(bulkBody(n.n), res, meter);
    }
    if (path === LIVE_MANIFEST_PATH) return serveLive(res, meter, head);
    return serveFile(req, res, path, meter, head);
  }

  async function serveLive(res: Http2ServerResponse, meter: Meter, head: boolean): Promise<void> {
    const source = opts.liveSource ?? DEFAULT_LIVE_SOURCE;
    let vod: VodManifest;
    try {
      vod = VodManifest.parse(JSON.parse(await readFile(join(root, source), 'utf8')));
    } catch (err) {
      return reply(res, 404, `no live source at ${source} (build the lab sites first): ${(err as Error).message}\n`, meter);
    }
    const sourceDir = source.slice(0, source.lastIndexOf('/') + 1);
    const live = liveManifest(vod, Date.now(), { sourceDir, windowSegments: opts.liveWindowSegments });
    return reply(res, 200, JSON.stringify(live), meter, 'application/json', head);
  }

  async function serveFile(req: Http2ServerRequest, res: Http2ServerResponse, path: string, meter: Meter, head: boolean): Promise<void> {
    let file = resolve(root, '.' + path);
    if (file !== root && !file.startsWith(root + sep)) return reply(res, 404, 'not found\n', meter);
    let st = await stat(file).catch(() => undefined);
    if (st?.isDirectory()) {
      if (!path.endsWith('/')) {
        // Relative URLs in index pages need the trailing slash.
        res.writeHead(301, { ...common, location: path + '/' });
        res.end();
        return;
      }
      file = join(file, 'index.html');
      st = await stat(file).catch(() => undefined);
    }
    if (!st?.isFile()) return reply(res, 404, 'not found\n', meter);

    const headers: OutgoingHttpHeaders = { ...common, 'content-type': mimeType(file), 'accept-ranges': 'bytes' };
    const range = parseRange(req.headers.range, st.size);
    if (range.kind === 'unsatisfiable') {
      res.writeHead(416, { ...headers, 'content-range': `bytes */${st.size}` });
      res.end();
      return;
    }
    const [status, start, end] = range.kind === 'partial' ? [206, range.start, range.end] : [200, 0, st.size - 1];
    if (status === 206) headers['content-range'] = `bytes ${start}-${end}/${st.size}`;
    headers['content-length'] = end - start + 1;
    res.writeHead(status, headers);
    if (head || st.size === 0) {
      res.end();
      return;
    }
    pipeBody(createReadStream(file, { start, end }), res, meter);
  }

  function reply(res: Http2ServerResponse, status: number, body: string, meter: Meter, type = 'text/plain; charset=utf-8', head = false): void {
    const buf = Buffer.from(body);
    res.writeHead(status, { ...common, 'content-type': type, 'content-length': buf.length });
    if (head) return void res.end();
    meter.bytes += buf.length;
    res.end(buf);
  }
}

/** Pipes with back-pressure and counts what was handed to the response. */
function pipeBody(body: Readable, res: Http2ServerResponse, meter: Meter): void {
  body.on('data', (chunk: Buffer) => (meter.bytes += chunk.length));
  body.on('error', () => res.destroy());
  res.on('close', () => body.destroy());
  body.pipe(res as unknown as NodeJS.WritableStream);
}

function logOnClose(req: Http2ServerRequest, res: Http2ServerResponse, meter: Meter, opts: HandlerOptions): void {
  const started = Date.now();
  // Read the addresses now: an HTTP/2 stream's socket proxy may be unbound once it closes.
  const sock = req.socket;
  const remote = hostPort(sock?.remoteAddress, sock?.remotePort);
  const local = hostPort(sock?.localAddress, sock?.localPort);
  let finished = false;
  res.on('finish', () => (finished = true));
  res.on('close', () => {
    opts.log.write({
      time: new Date(started).toISOString(),
      origin: opts.name,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: res.statusCode,
      bytes: meter.bytes,
      protocol: req.httpVersion === '2.0' ? 'h2' : 'http/1.1',
      remote,
      local,
      stream: req.httpVersion === '2.0' ? req.stream?.id : undefined,
      durationMs: Date.now() - started,
      aborted: !finished,
    });
  });
}
