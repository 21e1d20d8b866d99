/**
 * The per-run topology:
 *
 *   client ns  [cli]--veth--[shp-c]  shaper ns  [shp-s]--veth--[up]  upstream ns  (--> NAT to the host)
 *
 * The browser runs in the client namespace. The shaper namespace holds the bottleneck
 * (HTB queues on both veths, the delay stage) and the capture point (its server-facing
 * veth). The upstream namespace is where servers live: the lab's origins, a probe sender,
 * or, in internet mode, a NAT hop to the host's uplink.
 *
 * Addresses are the same in every run: each run has its own namespaces, so they never
 * meet. Only the NAT link in the host's namespace needs a per-run subnet.
 */
import { run } from '../util/exec.js';
import type { CleanupStack } from './cleanup.js';
import { addNamespace, addVeth, sysctl } from './netns.js';

export const ADDR = {
  client: '10.203.1.2',
  shaperClientSide: '10.203.1.1',
  shaperServerSide: '10.203.2.1',
  upstream: '10.203.2.2',
  client6: 'fd0c:cb:1::2',
  shaperClientSide6: 'fd0c:cb:1::1',
  shaperServerSide6: 'fd0c:cb:2::1',
  upstream6: 'fd0c:cb:2::2',
} as const;

/** The block every lab and topology address comes from (the project's own). */
export const LAB_BLOCK = '10.203.0.0/16';

export interface Topology {
  runId: string;
  clientNs: string;
  shaperNs: string;
  upstreamNs: string;
  /** Client's interface (in clientNs). */
  clientDev: string;
  /** Shaper's client-facing interface: data towards the client is queued here. */
  shaperClientDev: string;
  /** Shaper's server-facing interface: the capture point; ACKs towards servers are queued here. */
  shaperServerDev: string;
  /** Upstream's interface towards the shaper. */
  upstreamDev: string;
}

export function topologyNames(runId: string): Omit<Topology, 'runId'> {
  return {
    clientNs: `ccb-${runId}-cli`,
    shaperNs: `ccb-${runId}-shp`,
    upstreamNs: `ccb-${runId}-up`,
    clientDev: `ccb${runId}c`,
    shaperClientDev: `ccb${runId}sc`,
    shaperServerDev: `ccb${runId}ss`,
    upstreamDev: `ccb${runId}u`,
  };
}

export async function createTopology(stack: CleanupStack, runId: string, opts: { clientMtu?: number } = {}): Promise<Topology> {
  const t: Topology = { runId, ...topologyNames(runId) };
  for (const ns of [t.clientNs, t.shaperNs, t.upstreamNs]) await addNamespace(stack, ns);

  await addVeth(stack,
    { netns: t.clientNs, name: t.clientDev, ipv4: `${ADDR.client}/24`, ipv6: `${ADDR.client6}/64`, mtu: opts.clientMtu },
    { netns: t.shaperNs, name: t.shaperClientDev, ipv4: `${ADDR.shaperClientSide}/24`, ipv6: `${ADDR.shaperClientSide6}/64`, mtu: opts.clientMtu });
  await addVeth(stack,
    { netns: t.shaperNs, name: t.shaperServerDev, ipv4: `${ADDR.shaperServerSide}/24`, ipv6: `${ADDR.shaperServerSide6}/64` },
    { netns: t.upstreamNs, name: t.upstreamDev, ipv4: `${ADDR.upstream}/24`, ipv6: `${ADDR.upstream6}/64` });

  await sysctl(t.shaperNs, 'net.ipv4.ip_forward', '1');
  await sysctl(t.shaperNs, 'net.ipv6.conf.all.forwarding', '1');
  await sysctl(t.upstreamNs, 'net.ipv4.ip_forward', '1');
  await sysctl(t.upstreamNs, 'net.ipv6.conf.all.forwarding', '1');
  await run('ip', ['-n', t.clientNs, 'route', 'add', 'default', 'via', ADDR.shaperClientSide]);
  await run('ip', ['-n', t.clientNs, '-6', 'route', 'add', 'default', 'via', ADDR.shaperClientSide6]);
  await run('ip', ['-n', t.shaperNs, 'route', 'add', 'default', 'via', ADDR.upstream]);
  await run('ip', ['-n', t.shaperNs, '-6', 'route', 'add', 'default', 'via', ADDR.upstream6]);
  await run('ip', ['-n', t.upstreamNs, 'route', 'add', '10.203.1.0/24', 'via', ADDR.shaperServerSide]);
  await run('ip', ['-n', t.upstreamNs, '-6', 'route', 'add', 'fd0c:cb:1::/64', 'via', ADDR.shaperServerSide6]);
  return t;
}
