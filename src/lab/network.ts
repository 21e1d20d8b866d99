/**
 * The lab's network: a router namespace with one bridge per region, and one namespace per
 * origin (so each can have its own default TCP congestion control). Region distance is a
 * constant delay on the router's forwarding path (the same NFQUEUE delay line as the
 * bottleneck, one queue per region). Runs attach their upstream namespace to the router.
 *
 *   run upstream ns --veth (10.203.64.0/18, a /30 per run)--> router ns --bridge per region-->
 *   origin namespaces 10.203.(128+region).(10+origin)
 */
import { randomBytes } from 'node:crypto';
import { run } from '../util/exec.js';
import { CcbError } from '../util/errors.js';
import type { CleanupStack } from '../net/cleanup.js';
import { addNamespace, disableOffloads, sysctl } from '../net/netns.js';
import { startDelayLine, type DelayLineOptions } from '../shaper/delayline.js';
import type { LabConfig, RegionConfig } from './config.js';

/** What a region's server-side path does besides its constant delay, and how its TCP origins send. */
export interface RegionPath {
  /** A shared link on the server-side path and the download that loads it (src/lab/path-cross.ts). */
  crossTraffic: { pathRateKbit: number; bufferMs: number; from: string } | null;
  jitterReorders: boolean;
  reorder: { percent: number; extraMs: number } | null;
  loss: { percent: number; burstLen: number | null } | null;
  sender: { initcwnd: number | null; pacing: boolean; tso: boolean };
}

export function regionPath(r: RegionConfig): RegionPath {
  return {
    crossTraffic: r.crossTraffic ? { ...r.crossTraffic } : null,
    jitterReorders: r.jitterReorders && r.jitterMs > 0,
    reorder: r.reorder && r.reorder.percent > 0 ? { ...r.reorder } : null,
    loss: r.loss && r.loss.percent > 0 ? { percent: r.loss.percent, burstLen: r.loss.burstLen ?? null } : null,
    sender: { initcwnd: r.sender.initcwnd ?? null, pacing: r.sender.pacing, tso: r.sender.tso },
  };
}

/** True when the data direction needs a delay line of its own (loss or reordering). */
const pathImpaired = (p: RegionPath): boolean => p.jitterReorders || p.reorder !== null || p.loss !== null;

function impairmentOptions(p: RegionPath): Partial<DelayLineOptions> {
  return {
    ...(p.jitterReorders ? { jitterReorders: true } : {}),
    ...(p.reorder ? { reorder: p.reorder } : {}),
    ...(p.loss ? { loss: { percent: p.loss.percent, ...(p.loss.burstLen ? { burstLen: p.loss.burstLen } : {}) } } : {}),
  };
}

export const LAB_ORIGIN_BLOCK = '10.203.128.0/17';
const FIRST_REGION_QUEUE = 100;
/** Data-direction queues of regions whose path loses or reorders packets. */
const FIRST_REGION_DATA_QUEUE = 300;

export interface LabRegionNet {
  name: string; index: number; bridge: string; gateway: string; rttMs: number; jitterMs: number;
  /** The server-side path's impairments and the origins' sender details, as configured (run records carry them). */
  path: RegionPath;
}
export interface LabNet { labId: string; routerNs: string; regions: LabRegionNet[] }

export function newLabId(): string {
  return randomBytes(2).toString('hex');
}

export const routerNsName = (labId: string) => `ccb-lab-${labId}-rt`;
export const originNsName = (labId: string, region: string, origin: string) => `ccb-lab-${labId}-${region}-${origin}`;
export const originAddress = (regionIndex: number, originIndex: number) => `10.203.${128 + regionIndex}.${10 + originIndex}`;

export async function createLabRouter(stack: CleanupStack, labId: string, cfg: LabConfig): Promise<LabNet> {
  if (cfg.regions.length > 100) throw new CcbError('at most 100 lab regions');
  const routerNs = routerNsName(labId);
  await addNamespace(stack, routerNs);
  await sysctl(routerNs, 'net.ipv4.ip_forward', '1');
  const regions: LabRegionNet[] = [];
  for (const [index, r] of cfg.regions.entries()) {
    const bridge = `br${index}`;
    const gateway = `10.203.${128 + index}.1`;
    await run('ip', ['-n', routerNs, 'link', 'add', bridge, 'type', 'bridge']);
    await run('ip', ['-n', routerNs, 'addr', 'add', `${gateway}/24`, 'dev', bridge]);
    await run('ip', ['-n', routerNs, 'link', 'set', bridge, 'up']);
    const path = regionPath(r);
    if (r.rttMs > 0 || r.jitterMs > 0 || pathImpaired(path)) {
      // Half the region's RTT each way, in the forwarding path between runs and the region.
      // Loss and reordering apply to the data direction only (leaving the region's bridge):
      // then it gets a queue and a delay line of its own.
      const both = { netns: routerNs, delayMs: r.rttMs / 2, jitterMs: r.jitterMs, stack };
      const directions: Array<{ dir: '-o' | '-i'; queueNum: number; extra: Partial<DelayLineOptions> }> = pathImpaired(path)
        ? [
          { dir: '-o', queueNum: FIRST_REGION_QUEUE + index, extra: {} },
          { dir: '-i', queueNum: FIRST_REGION_DATA_QUEUE + index, extra: impairmentOptions(path) },
        ]
        : [{ dir: '-o', queueNum: FIRST_REGION_QUEUE + index, extra: {} }, { dir: '-i', queueNum: FIRST_REGION_QUEUE + index, extra: {} }];
      const started = new Set<number>();
      for (const d of directions) {
        if (!started.has(d.queueNum)) {
          await startDelayLine({ ...both, queueNum: d.queueNum, seed: d.queueNum + 1, ...d.extra });
          started.add(d.queueNum);
        }
        const rule = ['FORWARD', d.dir, bridge, '-j', 'NFQUEUE', '--queue-num', String(d.queueNum)];
        stack.push({ kind: 'iptables', binary: 'iptables', netns: routerNs, table: 'mangle', rule });
        await run('ip', ['netns', 'exec', routerNs, 'iptables', '-w', '-t', 'mangle', '-A', ...rule]);
      }
    }
    if (path.crossTraffic) await shapeRegionPath(stack, routerNs, bridge, index, path.crossTraffic);
    regions.push({ name: r.name, index, bridge, gateway, rttMs: r.rttMs, jitterMs: r.jitterMs, path });
  }
  return { labId, routerNs, regions };
}

/** An origin serves a handful of connections at once; 256 buckets cost the same as 4,096. */
const ORIGIN_TCP_HASH_BUCKETS = 1024;

/** Creates an origin's namespace on its region's bridge and returns its address. */
export async function addOriginNamespace(stack: CleanupStack, net: LabNet, region: LabRegionNet, originIndex: number, ns: string): Promise<string> {
  const ip = originAddress(region.index, originIndex);
  // The origin's ground-truth sampler dumps its TCP connections every 10 ms during a transfer:
  // with a table of its own a dump walks 1,024 buckets, not the host's 262,144 (a quarter of the CPU).
  await addNamespace(stack, ns, { ownTcpHashBuckets: ORIGIN_TCP_HASH_BUCKETS });
  // Each connection a first contact: no RTT or reordering estimate kept from an earlier one to
  // the same address (a crawl's kept probe path keeps its address for many probes: probe/paths.ts).
  await sysctl(ns, 'net.ipv4.tcp_no_metrics_save', '1');
  const port = `r${region.index}o${originIndex}`;
  await run('ip', ['link', 'add', port, 'netns', net.routerNs, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
  await disableOffloads(net.routerNs, port);
  await disableOffloads(ns, 'eth0');
  await run('ip', ['-n', net.routerNs, 'link', 'set', port, 'master', region.bridge]);
  await run('ip', ['-n', net.routerNs, 'link', 'set', port, 'up']);
  await run('ip', ['-n', ns, 'addr', 'add', `${ip}/24`, 'dev', 'eth0']);
  await run('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
  await run('ip', ['-n', ns, 'route', 'add', 'default', 'via', region.gateway]);
  return ip;
}

/**
 * Attaches a run's upstream namespace to the lab router. Runs all use the same client
 * address inside their own namespaces, so the upstream namespace masquerades to its own
 * /30 first; the lab's origins see one distinct address per run.
 */
export async function connectRunToLab(stack: CleanupStack, opts: { runId: string; upstreamNs: string; routerNs: string }): Promise<{ runAddr: string }> {
  const used = (await run('ip', ['-n', opts.routerNs, '-4', '-o', 'addr', 'show'])).stdout;
  let n = -1;
  for (let attempt = 0; attempt < 500; attempt++) {
    const k = Math.floor(Math.random() * 4096); // /30s in 10.203.64.0/18
    if (!used.includes(`10.203.${64 + (k >> 6)}.${(k & 63) * 4 + 1}/`)) { n = k; break; }
  }
  if (n < 0) throw new CcbError('no free run link left on the lab router');
  const prefix = `10.203.${64 + (n >> 6)}.`;
  const routerAddr = `${prefix}${(n & 63) * 4 + 1}`;
  const runAddr = `${prefix}${(n & 63) * 4 + 2}`;
  const routerDev = `run${opts.runId}`;
  stack.push({ kind: 'link', name: routerDev, netns: opts.routerNs });
  await run('ip', ['link', 'add', routerDev, 'netns', opts.routerNs, 'type', 'veth', 'peer', 'name', 'lab0', 'netns', opts.upstreamNs]);
  await disableOffloads(opts.routerNs, routerDev);
  await disableOffloads(opts.upstreamNs, 'lab0');
  await run('ip', ['-n', opts.routerNs, 'addr', 'add', `${routerAddr}/30`, 'dev', routerDev]);
  await run('ip', ['-n', opts.routerNs, 'link', 'set', routerDev, 'up']);
  // No IPv6 link-local on this link: its late appearance would make browsers in the
  // namespace abort with ERR_NETWORK_CHANGED.
  await run('ip', ['-n', opts.upstreamNs, 'link', 'set', 'lab0', 'addrgenmode', 'none']);
  await run('ip', ['-n', opts.upstreamNs, 'addr', 'add', `${runAddr}/30`, 'dev', 'lab0']);
  await run('ip', ['-n', opts.upstreamNs, 'link', 'set', 'lab0', 'up']);
  await run('ip', ['-n', opts.upstreamNs, 'route', 'add', LAB_ORIGIN_BLOCK, 'via', routerAddr]);
  await run('ip', ['netns', 'exec', opts.upstreamNs, 'iptables', '-w', '-t', 'nat', '-A', 'POSTROUTING', '-o', 'lab0', '-j', 'MASQUERADE']);
  return { runAddr };
}

/**
 * The server-side link a region's data shares with cross traffic: what leaves the region's
 * origins enters the router through the bridge, is redirected through an IFB whose HTB class
 * passes pathRateKbit into a byte FIFO of bufferMs, then goes on (to runs, or to the router
 * itself for the cross traffic's own download).
 */
async function shapeRegionPath(stack: CleanupStack, routerNs: string, bridge: string, index: number, c: NonNullable<RegionPath['crossTraffic']>): Promise<void> {
  const ifb = `ifb${index}`;
  stack.push({ kind: 'link', name: ifb, netns: routerNs });
  await run('ip', ['-n', routerNs, 'link', 'add', ifb, 'type', 'ifb']);
  await run('ip', ['-n', routerNs, 'link', 'set', ifb, 'up']);
  const limit = Math.max(3000, Math.round(((c.pathRateKbit * 1000) / 8) * (c.bufferMs / 1000)));
  const burst = Math.max(1600, Math.ceil((c.pathRateKbit * 1000) / 8 / 1000));
  await run('tc', ['-n', routerNs, '-batch', '-'], { input: [
    `qdisc add dev ${ifb} root handle 1: htb default 1`,
    `class add dev ${ifb} parent 1: classid 1:1 htb rate ${c.pathRateKbit}kbit ceil ${c.pathRateKbit}kbit burst ${burst} cburst ${burst}`,
    `qdisc add dev ${ifb} parent 1:1 handle 10: bfifo limit ${limit}`,
    `qdisc add dev ${bridge} handle ffff: ingress`,
    // u32 matching everything: this kernel has no cls_matchall.
    `filter add dev ${bridge} parent ffff: protocol all u32 match u32 0 0 action mirred egress redirect dev ${ifb}`,
  ].join('\n') + '\n' });
}
