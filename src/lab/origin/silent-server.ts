/**
 * A lab origin that never answers, as a standalone process (the region's `silent` origins):
 *   node --import tsx src/lab/origin/silent-server.ts --listen IP:PORT
 * It accepts every TCP connection and holds it without reading or sending a byte, as a hung
 * server or a middlebox that swallows requests does: the client's handshake completes (the
 * kernel acknowledges), its TLS ClientHello is never answered. Prints "ready tcp://IP:PORT"
 * once listening; SIGTERM closes the held connections.
 */
import { createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { parseListen } from './listen.js';

function fail(message: string): never {
  process.stderr.write(`silent origin: ${message}\n`);
  process.exit(2);
}

function main(): void {
  let listenArg = '';
  try {
    listenArg = parseArgs({ options: { listen: { type: 'string' } }, strict: true }).values.listen ?? '';
  } catch (err) {
    fail((err as Error).message);
  }
  const listen = parseListen(listenArg) ?? fail(`--listen must be IP:PORT, got "${listenArg}"`);
  const held = new Set<Socket>();
  // Paused from the start: nothing is read, so nothing is ever answered.
  const server = createServer({ pauseOnConnect: true }, (socket) => {
    held.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  server.on('error', (err) => fail(`cannot listen on ${listenArg}: ${err.message}`));
  server.listen(listen.port, listen.host, () => {
    const a = server.address();
    const port = typeof a === 'object' && a ? a.port : listen.port;
    process.stdout.write(`ready tcp://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${port}\n`);
  });
  const shutdown = () => {
    for (const s of held) s.destroy();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main();
