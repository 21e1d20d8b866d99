/**
 * The traffic agent behind `ccbrowse shaper check`: one process in the upstream namespace
 * (`serve`: bulk TCP sender, UDP echo, UDP blaster) and one in the client namespace
 * (`measure`: runs a plan of bulk flows and UDP probes and prints JSON results).
 * Timestamps are CLOCK_MONOTONIC (process.hrtime), shared by all processes on the host,
 * so one-way delays across namespaces are exact.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Socket } from 'node:net';

const nowNs = () => process.hrtime.bigint();
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export interface MeasurePlan {
  server: string;
  tcpPort: number;
  udpPort: number;
  /** Bulk TCP phases run one after another; UDP probes run throughout. */
  phases: { name: string; flows: number; seconds: number }[];
  probeIntervalMs: number;
  probeBytes: number;
  /** Optional UDP overload: the server sends at this rate towards the client. */
  blast?: { rateKbit: number; seconds: number; payloadBytes: number };
}

export interface FlowSamples {
  phase: string;
  flow: number;
  /** [seconds since phase start, cumulative bytes received] every 100 ms. */
  samples: [number, number][];
}

export interface MeasureResult {
  flows: FlowSamples[];
  /** Probe round-trip times in ms. */
  probeRttMs: number[];
  /** Send time (s since start) of each probe that came back, same order as probeRttMs. */
  probeSentAt?: number[];
  probesSent: number;
  /** One-way delays (ms) of blast packets that arrived, and counts. */
  blast?: { sent: number; received: number; oneWayMs: number[]; reordered: number };
}

function serve(tcpPort: number, udpPort: number): void {
  const tcp = createServer((sock: Socket) => {
    sock.on('error', () => sock.destroy());
    const pump = () => { while (!sock.destroyed && sock.write(CHUNK)); };
    sock.on('drain', pump);
    pump();
  });
  tcp.listen(tcpPort, '::');
  const udp = createSocket('udp6');
  udp.on('message', (msg, rinfo) => {
    if (msg.subarray(0, 5).toString() === 'BLAST') {
      const [, rate, secs, size] = msg.toString().split(' ');
      void blast(udp, rinfo.address, rinfo.port, Number(rate), Number(secs), Number(size));
    } else {
      udp.send(msg, rinfo.port, rinfo.address);
    }
  });
  udp.bind(udpPort, '::', () => process.stdout.write('ready\n'));
}

/** Sends timestamped, numbered datagrams at a fixed rate (paced against the clock). */
async function blast(udp: UdpSocket, host: string, port: number, rateKbit: number, seconds: number, payload: number) {
  const wireBytes = payload + 8 + 20 + 14;
  const intervalNs = BigInt(Math.round((wireBytes * 8 * 1e9) / (rateKbit * 1000)));
  const start = nowNs();
  const end = start + BigInt(seconds * 1e9);
  let seq = 0;
  for (let next = start; next < end; next += intervalNs) {
    while (nowNs() < next) await new Promise((r) => setImmediate(r));
    const buf = Buffer.alloc(payload);
    buf.write('BLST', 0);
    buf.writeUInt32BE(seq++, 4);
    buf.writeBigUInt64BE(nowNs(), 8);
    udp.send(buf, port, host);
  }
  const done = Buffer.alloc(payload);
  done.write('DONE', 0);
  done.writeUInt32BE(seq, 4);
  for (let i = 0; i < 5; i++) setTimeout(() => udp.send(done, port, host), 50 * i);
}

async function runPhase(plan: MeasurePlan, phase: MeasurePlan['phases'][number]): Promise<FlowSamples[]> {
  const results: FlowSamples[] = [];
  const sockets: Socket[] = [];
  const counts: number[] = [];
  for (let i = 0; i < phase.flows; i++) {
    counts.push(0);
    results.push({ phase: phase.name, flow: i, samples: [] });
    const s = connect({ host: plan.server, port: plan.tcpPort });
    s.on('data', (d: Buffer) => (counts[i] += d.length));
    s.on('error', () => {});
    sockets.push(s);
  }
  const t0 = nowNs();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const t = Number(nowNs() - t0) / 1e9;
      for (let i = 0; i < phase.flows; i++) results[i].samples.push([t, counts[i]]);
      if (t >= phase.seconds) { clearInterval(timer); resolve(); }
    }, 100);
  });
  for (const s of sockets) s.destroy();
  return results;
}

async function measure(plan: MeasurePlan): Promise<MeasureResult> {
  const udp = createSocket(plan.server.includes(':') ? 'udp6' : 'udp4');
  const rtts: number[] = [];
  const sentAt: number[] = [];
  const tStart = nowNs();
  const pending = new Map<number, bigint>();
  const blastState = { sent: 0, received: 0, oneWayMs: [] as number[], reordered: 0, lastSeq: -1, done: false };
  udp.on('message', (msg) => {
    const t = nowNs();
    const tag = msg.subarray(0, 4).toString();
    if (tag === 'PROB') {
      const seq = msg.readUInt32BE(4);
      const sent = pending.get(seq);
      if (sent !== undefined) { rtts.push(Number(t - sent) / 1e6); sentAt.push(Number(sent - tStart) / 1e9); pending.delete(seq); }
    } else if (tag === 'BLST') {
      const seq = msg.readUInt32BE(4);
      blastState.received++;
      blastState.oneWayMs.push(Number(t - msg.readBigUInt64BE(8)) / 1e6);
      if (seq < blastState.lastSeq) blastState.reordered++;
      blastState.lastSeq = Math.max(seq, blastState.lastSeq);
    } else if (tag === 'DONE') {
      blastState.sent = msg.readUInt32BE(4);
      blastState.done = true;
    }
  });
  await new Promise<void>((r) => udp.bind(0, r));
  let seq = 0;
  const probeTimer = setInterval(() => {
    const buf = Buffer.alloc(Math.max(plan.probeBytes, 8));
    buf.write('PROB', 0);
    buf.writeUInt32BE(seq, 4);
    pending.set(seq++, nowNs());
    udp.send(buf, plan.udpPort, plan.server);
  }, plan.probeIntervalMs);

  const flows: FlowSamples[] = [];
  for (const phase of plan.phases) flows.push(...(await runPhase(plan, phase)));
  clearInterval(probeTimer);

  let blastResult: MeasureResult['blast'];
  if (plan.blast) {
    const b = plan.blast;
    udp.send(Buffer.from(`BLAST ${b.rateKbit} ${b.seconds} ${b.payloadBytes}`), plan.udpPort, plan.server);
    const deadline = Date.now() + (b.seconds + 10) * 1000;
    while (!blastState.done && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1000)); // the queue drains after DONE overtakes nothing: FIFO
    blastResult = { sent: blastState.sent, received: blastState.received, oneWayMs: blastState.oneWayMs, reordered: blastState.reordered };
  } else {
    await new Promise((r) => setTimeout(r, 1000)); // let the last probes come back
  }
  udp.close();
  return { flows, probeRttMs: rtts, probeSentAt: sentAt, probesSent: seq, blast: blastResult };
}

const [mode, arg1, arg2] = process.argv.slice(2);
if (mode === 'serve') {
  serve(Number(arg1 ?? 5001), Number(arg2 ?? 5002));
} else if (mode === 'measure') {
  const plan = JSON.parse(arg1) as MeasurePlan;
  measure(plan).then((r) => {
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  }, (err: Error) => {
    process.stderr.write(`measure failed: ${err.message}\n`);
    process.exit(1);
  });
}
