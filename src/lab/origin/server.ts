/**
 * The lab's HTTPS origin as a standalone process (one per origin, so each can live in its
 * own network namespace with its own congestion controller):
 *   node --import tsx src/lab/origin/server.ts --listen IP:PORT --root build/lab/sites \
 *        --cert leaf.pem --key leaf.key [--name NAME] [--log FILE]
 * HTTP/2 and HTTP/1.1 over TLS on one port; prints "ready https://IP:PORT" once listening.
 */
import { readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createHandler } from './handler.js';
import { originUrl, parseListen } from './listen.js';
import { openRequestLog } from './request-log.js';
import { createSignalling } from './signal.js';

function fail(message: string): never {
  process.stderr.write(`origin: ${message}\n`);
  process.exit(2);
}

function main(): void {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        listen: { type: 'string' },
        root: { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        name: { type: 'string' },
        log: { type: 'string' },
        'live-window': { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const listen = parseListen(values.listen ?? '') ?? fail(`--listen must be IP:PORT, got "${values.listen ?? ''}"`);
  if (!values.root || !values.cert || !values.key) fail('--root, --cert and --key are required');
  const name = values.name ?? values.listen!;
  const liveWindow = values['live-window'] === undefined ? undefined : Number(values['live-window']);

  const log = openRequestLog(values.log);
  const signalling = createSignalling(name, log);
  const server = createSecureServer(
    { cert: readFileSync(values.cert), key: readFileSync(values.key), allowHTTP1: true },
    createHandler({ root: values.root, name, log, liveWindowSegments: liveWindow }),
  );
  // WebSockets arrive as HTTP/1.1 Upgrades (we do not offer RFC 8441 extended CONNECT).
  server.on('upgrade', (req, socket, head) => {
    if (!signalling.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on('error', (err) => fail(`cannot listen on ${values.listen}: ${err.message}`));
  server.listen(listen.port, listen.host, () => {
    const addr = server.address() as AddressInfo;
    process.stdout.write(`ready ${originUrl({ host: addr.address, port: addr.port })}\n`);
  });

  const shutdown = () => {
    signalling.close();
    server.close();
    void log.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main();
