/**
 * Trace-step benchmark: `npx tsx bench/trace.ts [--packets 5000000] [--keep] [--no-tshark]`.
 *
 * Writes a synthetic `tcpdump -s 128`-style pcap to /tmp (four interleaved bulk TCP downloads
 * with timestamps, delayed ACKs, a sawtooth window and periodic retransmissions), then times
 * on the same file, in the same run:
 *   1. the reader alone (decode every packet into the reused record),
 *   2. the whole trace step (flows, TCP BiF, RTT, app-limited marking),
 *   3. tshark -T fields -e frame.time_epoch -e tcp.seq -e tcp.ack (output to /dev/null).
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { readCapture } from '../src/trace/pcap.js';
import { traceFile } from '../src/trace/trace.js';
import { startProcess } from '../src/net/launch.js';
import { tcpFrame } from '../tests/unit/trace/pcap-writer.js';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const PACKETS = Number(arg('--packets', '5000000'));
const KEEP = process.argv.includes('--keep');
const TSHARK = !process.argv.includes('--no-tshark');
const FILE = arg('--file', `/tmp/ccbtr-bench-${process.pid}.pcap`)!;
const FLOWS = 4;
const MSS = 1448;

/** Offsets inside an Ethernet/IPv4/TCP(+timestamps) frame that the generator patches. */
const OFF = { srcPort: 34, dstPort: 36, seq: 38, ack: 42, tsval: 58, tsecr: 62 }; // options: NOP NOP TS(8,10) at 54

function generate(path: string, packets: number): number {
  const data = tcpFrame(
    { src: '10.0.0.2', dst: '10.0.0.1', sport: 443, dport: 40000, seq: 0, ack: 1, flags: 'A', payloadLen: MSS, options: { ts: [0, 0] } },
    { snaplen: 128 },
  );
  const ack = tcpFrame(
    { src: '10.0.0.1', dst: '10.0.0.2', sport: 40000, dport: 443, seq: 1, ack: 0, flags: 'A', window: 2000, options: { ts: [0, 0] } },
    { snaplen: 128 },
  );
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(8 * 1024 * 1024);
  const v = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  // pcap header: little-endian, microseconds, snaplen 128, Ethernet.
  v.setUint32(0, 0xa1b2c3d4, true);
  v.setUint16(4, 2, true);
  v.setUint16(6, 4, true);
  v.setUint32(16, 128, true);
  v.setUint32(20, 1, true);
  let pos = 24;
  let bytes = 0;
  const isn = [0xfffff000, 12345, 0x80000000, 7]; // one flow wraps around 2^32 early
  const sent = new Array<number>(FLOWS).fill(0);
  const acked = new Array<number>(FLOWS).fill(0);
  let usec = 0;
  let sec = 1_700_000_000;
  for (let i = 0; i < packets; i++) {
    const f = i % FLOWS;
    // Sawtooth window between 20 and 80 segments, period 20k packets per flow.
    const step = Math.floor(i / FLOWS);
    const cwnd = 20 + (step % 20000) * (60 / 20000);
    const inFlight = sent[f] - acked[f];
    const sendData = inFlight < cwnd;
    const tpl = sendData ? data : ack;
    if (pos + 16 + tpl.bytes.length > chunk.length) {
      writeSync(fd, chunk, 0, pos);
      bytes += pos;
      pos = 0;
    }
    usec += 25;
    if (usec >= 1_000_000) {
      usec -= 1_000_000;
      sec++;
    }
    v.setUint32(pos, sec, true);
    v.setUint32(pos + 4, usec, true);
    v.setUint32(pos + 8, tpl.bytes.length, true);
    v.setUint32(pos + 12, tpl.origLen, true);
    chunk.set(tpl.bytes, pos + 16);
    const fr = pos + 16;
    const port = 40000 + f;
    const tsval = (sec * 1000 + Math.floor(usec / 1000)) >>> 0;
    if (sendData) {
      // Every 5000th data packet of a flow re-sends an old segment (a retransmission).
      const seg = step % 5000 === 4999 && acked[f] > 0 ? acked[f] : sent[f]++;
      v.setUint16(fr + OFF.dstPort, port);
      v.setUint32(fr + OFF.seq, (isn[f] + 1 + seg * MSS) >>> 0);
      v.setUint32(fr + OFF.tsval, tsval);
    } else {
      acked[f] = Math.min(sent[f], acked[f] + 2); // delayed ACK: two segments at a time
      v.setUint16(fr + OFF.srcPort, port);
      v.setUint32(fr + OFF.ack, (isn[f] + 1 + acked[f] * MSS) >>> 0);
      v.setUint32(fr + OFF.tsecr, tsval - 50);
    }
    pos += 16 + tpl.bytes.length;
  }
  writeSync(fd, chunk, 0, pos);
  bytes += pos;
  closeSync(fd);
  return bytes;
}

interface Timing {
  wall: number;
  /** CPU seconds (user + system): steadier than wall time on a shared machine. */
  cpu: number;
}

async function timeIt<T>(fn: () => Promise<T>): Promise<[T, Timing]> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const c = process.cpuUsage(c0);
  return [r, { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }];
}

/** CPU seconds used by this process's reaped children (fields cutime + cstime of /proc/self/stat). */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // clock ticks: 100 per second on Linux
}

function runTshark(path: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const c0 = childrenCpu();
    const t0 = performance.now();
    const child = startProcess('tshark', ['-r', path, '-T', 'fields', '-e', 'frame.time_epoch', '-e', 'tcp.seq', '-e', 'tcp.ack'], {
      what: 'tshark', stack: null, stdio: ['ignore', 'ignore', 'ignore'],
    }).child;
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`tshark exit ${code}`));
      resolve({ wall: (performance.now() - t0) / 1000, cpu: childrenCpu() - c0 });
    });
  });
}

const rate = (n: number, t: Timing) => `${fmt(n / t.wall)} packets/s (wall ${t.wall.toFixed(2)} s), ${fmt(n / t.cpu)} packets/CPU-s`;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const fileGiven = process.argv.includes('--file');
  let size = 0;
  if (!fileGiven) {
    const [bytes, gen] = await timeIt(async () => generate(FILE, PACKETS));
    size = bytes;
    console.log(`generated ${fmt(PACKETS)} packets, ${(bytes / 1e6).toFixed(0)} MB in ${gen.wall.toFixed(1)} s -> ${FILE}`);
  } else {
    size = statSync(FILE).size;
  }
  try {
    // Warm the page cache so every contender reads from memory.
    await readCapture(FILE, () => {});
    let payload = 0;
    const [info, read] = await timeIt(() => readCapture(FILE, (p) => (payload += p.payloadLen)));
    const n = info.packets;
    console.log(`reader only : ${rate(n, read)}, ${(size / 1e6 / read.wall).toFixed(0)} MB/s`);
    const [trace, tr] = await timeIt(() => traceFile(FILE));
    const samples = trace.flows.reduce((k, f) => k + (f.series?.t.length ?? 0), 0);
    const retx = trace.flows.reduce((k, f) => k + (f.tcp?.server.retransmittedPackets ?? 0), 0);
    console.log(`trace step  : ${rate(n, tr)}`);
    console.log(`              ${trace.flows.length} flows, ${fmt(samples)} BiF samples, ${retx} retransmissions, RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
    if (TSHARK) {
      const ts = await runTshark(FILE);
      console.log(`tshark      : ${rate(n, ts)}`);
      console.log(
        `ratio       : reader ${(ts.wall / read.wall).toFixed(1)}x (CPU ${(ts.cpu / read.cpu).toFixed(1)}x), ` +
          `trace step ${(ts.wall / tr.wall).toFixed(1)}x (CPU ${(ts.cpu / tr.cpu).toFixed(1)}x) faster than tshark`,
      );
    }
  } finally {
    if (!KEEP && !fileGiven) rmSync(FILE, { force: true });
  }
}

await main();
