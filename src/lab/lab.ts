/**
 * Brings a whole lab up on a cleanup stack: network, certificates, sites, one origin
 * process per (region, origin) with its congestion controller, and server-side ground
 * truth (tcp_info samples for TCP, the stack's own stats for QUIC). The returned state is
 * plain data: runs read it to attach to the lab and to map hostnames to origins.
 */
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { run } from '../util/exec.js';
import { buildPath } from '../util/paths.js';
import { throwIfInterrupted } from '../util/interrupt.js';
import type { CleanupStack } from '../net/cleanup.js';
import { launch, startProcess } from '../net/launch.js';
import { ensureLabCerts, DEFAULT_LAB_CERT_NAMES } from './certs.js';
import { buildLabSites } from './sites/build.js';
import { startOrigin, startSilentOrigin } from './origin/index.js';
import { startQuicOrigin } from './quic/index.js';
import { deployment, type LabConfig } from './config.js';
import { addOriginNamespace, createLabRouter, newLabId, originNsName, type LabNet, type RegionPath } from './network.js';
import { applySenderOptions, pacingPreload } from './sender.js';
import { KERNEL_CCAS, setNamespaceCca } from './cca.js';
import './resources.js';
import type { LabOriginState, LabState } from './state.js';

export { regionHostMap, type LabOriginState, type LabState } from './state.js';

export function labHostnames(cfg: LabConfig): string[] {
  return [...new Set([...DEFAULT_LAB_CERT_NAMES, ...cfg.origins.flatMap((o) => o.hosts)])].sort();
}

export async function startLab(stack: CleanupStack, cfg: LabConfig, opts: {
  labId?: string; dataDir?: string; progress?: (m: string) => void;
  /** Stops the start between steps (lab down or Ctrl-C while starting); the caller unwinds. */
  signal?: AbortSignal;
} = {}): Promise<LabState> {
  const say = opts.progress ?? (() => {});
  const signal = opts.signal;
  const labId = opts.labId ?? newLabId();
  const dataDir = resolve(opts.dataDir ?? buildPath('lab', 'runs', labId));
  mkdirSync(join(dataDir, 'gt'), { recursive: true });
  mkdirSync(join(dataDir, 'logs'), { recursive: true });

  say('certificates and sites');
  const certs = await ensureLabCerts(buildPath('lab', 'certs'), labHostnames(cfg));
  const sites = await buildLabSites(buildPath('lab', 'sites'));

  throwIfInterrupted(signal);
  await allowKernelCcasInNamespaces();
  say(`network: ${cfg.regions.length} region(s)`);
  const net: LabNet = await createLabRouter(stack, labId, cfg);
  const origins: LabOriginState[] = [];
  const originIndex = new Map(cfg.origins.map((o, i) => [o.name, i]));
  const deployed = deployment(cfg);
  say(`origins: ${deployed.length}`);
  // Origins start concurrently a few at a time: each is a process that takes ~1 s to be ready.
  const queue = [...deployed];
  const worker = async () => {
    for (let d = queue.shift(); d; d = queue.shift()) {
      throwIfInterrupted(signal);
      const region = net.regions.find((r) => r.name === d!.region)!;
      const ns = originNsName(labId, d.region, d.origin.name);
      const ip = await addOriginNamespace(stack, net, region, originIndex.get(d.origin.name)!, ns);
      const gt = join(dataDir, 'gt', `${d.region}-${d.origin.name}.jsonl`);
      const base = { region: d.region, name: d.origin.name, hosts: d.origin.hosts, cca: d.cca, ip, port: 443, netns: ns, groundTruth: gt };
      if (d.silent) {
        // Accepts and holds every connection, answers nothing: no controller, no ground truth to sample.
        const o = await startSilentOrigin({ listen: `${ip}:443`, name: `${d.origin.name}@${d.region}`, netns: ns, stack, signal });
        origins.push({ ...base, serve: 'tcp', pid: o.pid, silent: true });
      } else if (d.origin.serve === 'tcp') {
        // Before the server starts: its listening socket, and every connection it accepts, use it.
        await setNamespaceCca(ns, d.cca, stack);
        await applySenderOptions(ns, region.gateway, region.path.sender);
        const requestLog = join(dataDir, 'logs', `${d.region}-${d.origin.name}.jsonl`);
        const o = await startOrigin({ listen: `${ip}:443`, root: sites.outDir, cert: certs.certPath, key: certs.keyPath,
          name: `${d.origin.name}@${d.region}`, log: requestLog, netns: ns, stack, signal,
          ...(region.path.sender.pacing ? { env: { LD_PRELOAD: pacingPreload() } } : {}) });
        if (cfg.tcpInfoIntervalMs > 0) await startTcpInfoSampler(stack, ns, gt, cfg.tcpInfoIntervalMs, signal);
        origins.push({ ...base, serve: 'tcp', pid: o.pid, requestLog });
      } else {
        const o = await startQuicOrigin({ stack: d.origin.stack, cc: d.cca, listen: `${ip}:443`, root: sites.outDir,
          cert: certs.certPath, key: certs.keyPath, stats: gt, netns: ns, cleanup: stack, signal });
        origins.push({ ...base, serve: 'h3', stack: d.origin.stack, pid: o.pid });
      }
      say(`  ${d.origin.name}@${d.region}: ${ip} ${d.silent ? 'silent (accepts, never answers)' : `${d.origin.serve} ${d.cca}`}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  for (const r of net.regions) {
    const from = r.path.crossTraffic && origins.find((o) => o.region === r.name && o.name === r.path.crossTraffic!.from);
    if (from) startPathCrossTraffic(stack, net.routerNs, from, certs.caCertPath);
  }
  origins.sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true }));
  return {
    schemaVersion: 1, labId, name: cfg.name, routerNs: net.routerNs,
    regions: net.regions.map((r) => ({ name: r.name, rttMs: r.rttMs, jitterMs: r.jitterMs, index: r.index, path: r.path })),
    origins,
    certs: { ca: certs.caCertPath, cert: certs.certPath, key: certs.keyPath, spki: certs.spki },
    sitesRoot: sites.outDir, dataDir, startedAt: new Date().toISOString(),
  };
}

/**
 * A namespace other than the host's may only select controllers on the host's allowed list
 * (net.ipv4.tcp_allowed_congestion_control). Distros allow "reno cubic" plus the default;
 * some machines leave cubic out. Adding the kernel's built-in ones only permits choosing
 * them; it changes no connection's controller.
 */
async function allowKernelCcasInNamespaces(): Promise<void> {
  const path = '/proc/sys/net/ipv4/tcp_allowed_congestion_control';
  const allowed = readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean);
  const available = readFileSync('/proc/sys/net/ipv4/tcp_available_congestion_control', 'utf8').trim().split(/\s+/);
  const missing = KERNEL_CCAS.filter((c) => available.includes(c) && !allowed.includes(c));
  if (missing.length) await run('sysctl', ['-qw', `net.ipv4.tcp_allowed_congestion_control=${[...allowed, ...missing].join(' ')}`]);
}

/** tcp_info of every connection on port 443 of the origin's namespace, every `intervalMs`. */
async function startTcpInfoSampler(stack: CleanupStack, ns: string, file: string, intervalMs: number, signal?: AbortSignal): Promise<void> {
  const fd = openSync(file, 'a');
  try {
    await launch(buildPath('native', 'ccb-tcpinfo'), ['--port', '443', '--interval-ms', String(intervalMs)], {
      what: `tcp_info sampler in ${ns}`, stack, netns: ns, signal, stdio: ['ignore', fd, 'pipe'],
      ready: { stream: 'stderr', pattern: /ready/, timeoutMs: 10_000 }, fix: 'run ./setup.sh',
    });
  } finally {
    closeSync(fd);
  }
}

export async function originReachable(lab: LabState, fromNs: string, origin: LabOriginState): Promise<boolean> {
  const r = await run('ip', ['netns', 'exec', fromNs, 'ping', '-c', '1', '-W', '2', origin.ip], { allowFailure: true });
  return r.code === 0;
}

/**
 * The server-side path's cross traffic: a download from one of the region's origins to the
 * router (1 GiB: hours at a lab path's rate), started again whenever it ends, for as long as the
 * lab is up. Each download is a process on the lab's stack, so unwinding or the reaper ends it.
 */
function startPathCrossTraffic(stack: CleanupStack, routerNs: string, from: LabOriginState, ca: string): void {
  const url = `https://${from.hosts[0]}/bytes/1000000000`;
  const again = (): void => {
    // Through the one launcher, onto the lab's stack (the stack stops it; a restart only while it does not unwind).
    const p = startProcess('curl', ['-sS', '-o', '/dev/null', '--http1.1', '--cacert', ca, '--resolve', `${from.hosts[0]}:443:${from.ip}`, url],
      { what: `server-side cross traffic from ${from.name}@${from.region}`, stack, netns: routerNs, stdio: 'ignore' });
    void p.exited.then(() => {
      // Ended on its own (not by the stack unwinding): the path stays loaded.
      if (!stack.isUnwinding()) setTimeout(() => { if (!stack.isUnwinding()) again(); }, 1000);
    });
  };
  again();
}
