/**
 * One real capture: tcpdump -s 128 on loopback while a local Node server sends a known number
 * of bytes to a local client. The trace must account for every byte and never go negative.
 * Skipped when tcpdump is missing or we lack the rights to capture. --immediate-mode matters:
 * without it, packets still in the kernel's capture block when tcpdump gets SIGINT are lost.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess } from '../../../src/net/launch.js';
import { traceFile } from '../../../src/trace/trace.js';

function canCapture(): boolean {
  try {
    execFileSync('tcpdump', ['--version'], { stdio: 'ignore' });
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'ccbtr-real-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!canCapture())('real loopback capture', () => {
  it('accounts for every byte a local TCP server sent', async () => {
    const SIZE = 3_000_000;
    const server = createServer((sock) => {
      sock.end(Buffer.alloc(SIZE, 7));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const file = join(dir, 'lo.pcap');
    const dump = startProcess('tcpdump', ['-i', 'lo', '-s', '128', '--immediate-mode', '-U', '-n', '-w', file, `tcp port ${port}`], { what: 'tcpdump on lo', stack: null }).child;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('tcpdump did not start')), 10_000);
        dump.stderr!.on('data', (d: Buffer) => {
          if (d.toString().includes('listening on')) {
            clearTimeout(timer);
            resolve();
          }
        });
        dump.on('exit', (code) => reject(new Error(`tcpdump exited ${code}`)));
      });
      const received = await new Promise<number>((resolve, reject) => {
        let n = 0;
        const c = createConnection({ host: '127.0.0.1', port });
        c.on('data', (d: Buffer) => (n += d.length));
        c.on('end', () => resolve(n));
        c.on('error', reject);
      });
      expect(received).toBe(SIZE);
      await new Promise((r) => setTimeout(r, 300)); // let the FIN/ACK exchange reach the capture
    } finally {
      const exited = new Promise((r) => dump.on('exit', r));
      dump.kill('SIGINT');
      await exited;
      server.close();
    }

    const r = await traceFile(file);
    expect(r.flows).toHaveLength(1);
    const f = r.flows[0];
    expect(f.key).toMatchObject({ protocol: 'tcp', serverIp: '127.0.0.1', serverPort: port });
    expect(f.clientBy).toBe('syn');
    expect(f.handshake).toBe(true);
    // Every byte once in sequence space; on the wire, plus whatever was retransmitted (a busy
    // host can make loopback TCP retransmit).
    const s = f.tcp!.server;
    expect(s.uniqueBytes).toBe(SIZE);
    expect(s.unseenBytes).toBe(0);
    expect(f.toClient.payloadBytes).toBe(SIZE + s.retransmittedBytes);
    const bif = f.series!.bif;
    expect(bif.length).toBeGreaterThan(10);
    expect(Math.min(...bif)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...bif)).toBeGreaterThan(0);
    expect(bif[bif.length - 1]).toBe(0); // everything acknowledged at the end
    expect(f.rtt.samples).toBeGreaterThan(0);
    expect(f.rtt.medianSeconds).toBeLessThan(0.05);
  });
});
