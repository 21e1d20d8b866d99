/**
 * HTTP/3 lab origins (quinn, aioquic, quiche) against real Chromium on loopback:
 * each stack x controller serves a page and /bytes/2000000 over h3, stays MTU-sized on the wire
 * (no GSO super-datagrams), refuses traversal, and writes ground truth naming its controller
 * with cwnd samples every ~10 ms.
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, sleep } from '../../src/util/exec.js';
import { startProcess } from '../../src/net/launch.js';
import {
  QUIC_CONTROLLERS,
  missingFiles,
  quicOriginCommand,
  readQuicStats,
  startQuicOrigin,
  type QuicOrigin,
  type QuicStack,
} from '../../src/lab/quic/index.js';
import { stackProgram } from '../../src/lab/quic/paths.js';

const HOST = 'lab.ccb.test';
const BODY = 2_000_000;
const CASES: Array<{ stack: QuicStack; cc: string; label: string }> = [
  { stack: 'quinn', cc: 'newreno', label: 'newreno' },
  { stack: 'quinn', cc: 'cubic', label: 'cubic' },
  { stack: 'quinn', cc: 'bbr', label: 'bbr' },
  { stack: 'aioquic', cc: 'reno', label: 'reno' },
  { stack: 'aioquic', cc: 'cubic', label: 'cubic' },
  { stack: 'quiche', cc: 'reno', label: 'reno' },
  { stack: 'quiche', cc: 'cubic', label: 'cubic' },
  { stack: 'quiche', cc: 'bbr2', label: 'bbr2' },
];

/** A free UDP port on loopback (bound then released: good enough for a test). */
function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let dir: string;
let site: string;
let cert: string;
let key: string;
let spki: string;
let browser: Browser | undefined;
const ports = new Map<string, number>();
const keyOf = (c: { stack: string; cc: string }) => `${c.stack}/${c.cc}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ccb-lab-quic-'));
  cert = join(dir, 'cert.pem');
  key = join(dir, 'key.pem');
  // Throwaway leaf; Chromium accepts it through the SPKI pin below, no CA needed.
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`]);
  const der = new X509Certificate(readFileSync(cert)).publicKey.export({ type: 'spki', format: 'der' });
  spki = createHash('sha256').update(der).digest('base64');

  site = join(dir, 'site');
  await run('mkdir', ['-p', join(site, 'sub')]);
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>ccb lab</title><p id="p">lab page</p>\n');
  writeFileSync(join(site, 'sub', 'a.css'), 'p { color: red }\n');
  writeFileSync(join(dir, 'secret.txt'), 'outside the root\n');
  symlinkSync(join(dir, 'secret.txt'), join(site, 'leak.txt')); // a link out of the root must not be served

  for (const c of CASES) ports.set(keyOf(c), await freeUdpPort());
  const forced = [...ports.values()].map((p) => `${HOST}:${p}`).join(',');
  browser = await chromium.launch({
    executablePath: '/usr/lib/chromium/chromium',
    headless: true,
    args: [
      '--enable-quic',
      `--origin-to-force-quic-on=${forced}`,
      `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP * ~NOTFOUND`,
      `--ignore-certificate-errors-spki-list=${spki}`,
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--no-sandbox',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  // CCB_KEEP_TMP=1 keeps certs, pcaps and stats for a look after a failure.
  if (dir && !process.env.CCB_KEEP_TMP) rmSync(dir, { recursive: true, force: true });
  else if (dir) console.log(`kept ${dir}`);
});

describe('startQuicOrigin', () => {
  it('wraps the command in ip netns exec and rejects controllers a stack lacks', () => {
    const base = { listen: '10.0.0.1:443', root: '/r', cert: '/c', key: '/k' };
    const cmd = quicOriginCommand({ ...base, stack: 'quinn', cc: 'bbr', netns: 'ccb-o1', stats: '/s.jsonl' });
    expect(cmd.cmd).toBe('ip');
    expect(cmd.args.slice(0, 4)).toEqual(['netns', 'exec', 'ccb-o1', stackProgram('quinn').cmd]);
    expect(cmd.args).toEqual(expect.arrayContaining(['--cc', 'bbr', '--stats', '/s.jsonl', '--stats-interval-ms', '10']));
    expect(() => quicOriginCommand({ ...base, stack: 'aioquic', cc: 'bbr' })).toThrow(/aioquic has no congestion controller "bbr"/);
    expect(QUIC_CONTROLLERS.quinn).toContain('newreno');
  });

  it.skipIf(missingFiles('quinn').length > 0)('fails clearly (not hangs) when the address is taken', async () => {
    const port = await freeUdpPort();
    const opts = { stack: 'quinn' as const, cc: 'cubic', listen: `127.0.0.1:${port}`, root: site, cert, key };
    const first = await startQuicOrigin(opts);
    try {
      const t0 = Date.now();
      await expect(startQuicOrigin(opts)).rejects.toThrow(/exited before it was ready.*bind 127\.0\.0\.1:\d+/s);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await first.stop();
    }
    // stop() really ended it: the port can be bound again.
    const again = await startQuicOrigin(opts);
    await again.stop();
  });

  it.skipIf(missingFiles('quinn').length > 0)('runs inside the given network namespace, and stop() ends the server itself', async () => {
    const ns = `ccbq-${randomBytes(3).toString('hex')}`;
    await run('ip', ['netns', 'add', ns]);
    try {
      await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      const o = await startQuicOrigin({ stack: 'quinn', cc: 'bbr', listen: '127.0.0.1:4433', root: site, cert, key, netns: ns });
      let stopped = false;
      try {
        // `ip netns exec` execs the server: the pid we hold is the origin, in the other namespace.
        expect(readFileSync(`/proc/${o.pid}/comm`, 'utf8').trim()).toBe('ccb-h3-origin');
        expect(readlinkSync(`/proc/${o.pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
        await o.stop();
        stopped = true;
        expect(existsSync(`/proc/${o.pid}`)).toBe(false);
      } finally {
        if (!stopped) await o.stop();
      }
    } finally {
      await run('ip', ['netns', 'del', ns], { allowFailure: true });
    }
  });
});

for (const c of CASES) {
  const missing = missingFiles(c.stack);
  const name = `${c.stack} --cc ${c.cc}` + (missing.length ? ` SKIPPED: not built (${stackProgram(c.stack).fix})` : '');
  describe.skipIf(missing.length > 0)(name, () => {
    it('serves a page and 2 MB to Chromium over h3 and records ~10 ms ground truth', async () => {
      const port = ports.get(keyOf(c))!;
      const origin = `https://${HOST}:${port}`;
      const stats = join(dir, `${c.stack}-${c.cc}.jsonl`);
      const pcap = join(dir, `${c.stack}-${c.cc}.pcap`);
      let server: QuicOrigin | undefined;
      let fetchMs = NaN;
      const capture = await startCapture(port, pcap);
      let captureLog = '';
      try {
        server = await startQuicOrigin({ stack: c.stack, cc: c.cc, listen: `127.0.0.1:${port}`, root: site, cert, key, stats });
        const context = await browser!.newContext();
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        const protocols = new Map<string, string>();
        cdp.on('Network.responseReceived', (e) => protocols.set(e.response.url, e.response.protocol ?? ''));
        await cdp.send('Network.enable');

        const nav = await page.goto(`${origin}/`);
        expect(nav?.status()).toBe(200);
        expect(nav?.headers()['content-type']).toMatch(/^text\/html/);
        expect(await page.textContent('#p')).toBe('lab page');
        const result = await page.evaluate(async (n) => {
          // Idle first, so the stats hold samples at the initial window before the transfer.
          await new Promise((r) => setTimeout(r, 150));
          const t0 = performance.now();
          const r = await fetch(`/bytes/${n}`);
          const body = new Uint8Array(await r.arrayBuffer());
          const fetchMs = performance.now() - t0;
          const css = await fetch('/sub/a.css');
          const probe = async (u: string) => (await fetch(u)).status;
          const out = {
            status: r.status,
            fetchMs,
            length: body.length,
            allX: body.every((b) => b === 0x78),
            cc: r.headers.get('x-ccb-cc'),
            cssType: css.headers.get('content-type'),
            traversal: await probe('/sub/..%2f..%2fsecret.txt'),
            encodedDots: await probe('/sub/%2e%2e%2f%2e%2e%2fsecret.txt'),
            symlinkOut: await probe('/leak.txt'),
            badSize: await probe('/bytes/12abc'),
            tooBig: await probe('/bytes/99999999999'),
            notFound: await probe('/nope.html'),
            hops: performance
              .getEntries()
              .map((e) => [e.name, (e as PerformanceResourceTiming).nextHopProtocol] as const),
          };
          await new Promise((r) => setTimeout(r, 150));
          return out;
        }, BODY);
        await context.close(); // closes the QUIC session: the origin records closed: true

        fetchMs = result.fetchMs;
        expect(result.status).toBe(200);
        expect(result.length).toBe(BODY);
        expect(result.allX).toBe(true);
        expect(result.cc).toBe(c.label);
        expect(result.cssType).toMatch(/^text\/css/);
        expect(result.traversal).toBe(403);
        expect(result.encodedDots).toBe(403);
        expect(result.symlinkOut).toBe(404);
        expect(result.badSize).toBe(400);
        expect(result.tooBig).toBe(400);
        expect(result.notFound).toBe(404);
        // Both views of the protocol agree: page timing and CDP.
        const hops = new Map(result.hops);
        expect(hops.get(`${origin}/`)).toBe('h3');
        expect(hops.get(`${origin}/bytes/${BODY}`)).toBe('h3');
        expect(protocols.get(`${origin}/`)).toBe('h3');
        expect(protocols.get(`${origin}/bytes/${BODY}`)).toBe('h3');
      } finally {
        await server?.stop();
        captureLog = await capture.stop();
      }

      // Wire: every datagram the origin sent is MTU-sized (GSO would show 10+ KB ones).
      const sizes = await udpSizes(pcap);
      expect(captureLog).toMatch(/^0 packets dropped by kernel/m);
      expect(sizes.length, captureLog).toBeGreaterThan(BODY / 1500);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(1472);

      // Ground truth.
      const lines = await readQuicStats(stats);
      expect(lines.length).toBeGreaterThan(10);
      expect(new Set(lines.map((l) => l.cc))).toEqual(new Set([c.label]));
      expect(new Set(lines.map((l) => l.stack))).toEqual(new Set([c.stack]));
      const conns = new Map<number, typeof lines>();
      for (const l of lines) conns.set(l.conn, [...(conns.get(l.conn) ?? []), l]);
      // The connection that carried the 2 MB: most bytes sent.
      const main = [...conns.values()].sort((a, b) => b.at(-1)!.sent_packets - a.at(-1)!.sent_packets)[0];
      expect(main.at(-1)!.closed).toBe(true);
      expect(main.filter((l) => l.closed)).toHaveLength(1);
      expect(main[0].remote).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(main.at(-1)!.udp_tx_bytes).toBeGreaterThanOrEqual(BODY);
      // The origin's own datagram count matches the wire (one connection on this port).
      const txDatagrams = [...conns.values()].reduce((sum, ls) => sum + (ls.at(-1)!.udp_tx_datagrams ?? 0), 0);
      expect(Math.abs(txDatagrams - sizes.length)).toBeLessThanOrEqual(3);
      const gaps = main.slice(1).map((l, i) => (l.t - main[i].t) * 1000).sort((a, b) => a - b);
      const median = gaps[Math.floor(gaps.length / 2)];
      const p90 = gaps[Math.floor(gaps.length * 0.9)];
      expect(median).toBeGreaterThan(7);
      expect(median).toBeLessThan(15);
      expect(p90).toBeLessThan(50); // a busy Python event loop delays aioquic ticks
      const cwnds = main.map((l) => l.cwnd);
      expect(new Set(cwnds).size).toBeGreaterThan(1);
      expect(Math.max(...cwnds)).toBeGreaterThan(cwnds[0]);
      expect(main.some((l) => (l.bytes_in_flight ?? 0) > 0)).toBe(true);
      expect(main.every((l) => l.rtt_ms >= 0 && l.rtt_ms < 1000)).toBe(true);
      console.log(
        `${c.stack}/${c.cc}: ${main.length} samples, gap median ${median.toFixed(2)} ms p90 ${p90.toFixed(2)} ms, ` +
          `cwnd ${cwnds[0]} -> max ${Math.max(...cwnds)} (${new Set(cwnds).size} values), ` +
          `fetch ${fetchMs.toFixed(0)} ms, datagrams ${sizes.length} max ${Math.max(...sizes)} B, sent ${main.at(-1)!.sent_packets} lost ${main.at(-1)!.lost_packets}`,
      );
    });
  });
}

/** tcpdump on lo, resolved once it is listening; stop() returns its stderr (drop counts). */
async function startCapture(port: number, pcap: string): Promise<{ stop(): Promise<string> }> {
  const dump = startProcess('tcpdump', ['-i', 'lo', '-nn', '-s', '96', '-B', '16384', '--immediate-mode', '-U', '-w', pcap, 'udp', 'and', 'src', 'port', String(port)], { what: 'tcpdump on lo', stack: null }).child;
  let err = '';
  const exited = new Promise<void>((r) => dump.once('exit', () => r()));
  dump.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const stop = async () => {
    if (dump.exitCode === null && dump.signalCode === null) {
      await sleep(200); // let the last packets reach the file
      dump.kill('SIGTERM');
      await exited;
    }
    return err;
  };
  const deadline = Date.now() + 10_000;
  while (!err.includes('listening on')) {
    if (dump.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`tcpdump did not start: ${err}`);
    }
    await sleep(20);
  }
  return { stop };
}

async function udpSizes(pcap: string): Promise<number[]> {
  const { stdout } = await run('tcpdump', ['-r', pcap, '-nn', '-q'], { timeoutMs: 60_000 });
  return [...stdout.matchAll(/UDP, length (\d+)/g)].map((m) => Number(m[1]));
}
