/**
 * Internet mode: connects a run's upstream namespace to the host's uplink through NAT.
 *
 * Every run uses the same addresses inside its own namespaces, so the host could not tell
 * two runs' clients apart. The upstream namespace therefore masquerades first, to its own
 * per-run /30 on the link to the host; the host then masquerades that /30 out of its uplink.
 * Host-side rules carry a `ccb-<run>` comment and are registered for cleanup.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { run } from '../util/exec.js';
import { CcbError } from '../util/errors.js';
import type { CleanupStack } from './cleanup.js';
import type { Resource } from './resources.js';
import { disableOffloads } from './netns.js';
import { LAB_BLOCK, type Topology } from './topology.js';

export interface NatUplink {
  hostDev: string;
  hostAddr: string;
  upstreamAddr: string;
}

/** A free /30 in 10.204.0.0/16 (the project's NAT block), not used on the host. */
async function freeSubnet(): Promise<number> {
  const used = (await run('ip', ['-4', '-o', 'addr', 'show'])).stdout;
  for (let attempt = 0; attempt < 200; attempt++) {
    const n = Math.floor(Math.random() * 16384); // 16384 /30s in a /16
    if (!used.includes(`10.204.${n >> 6}.${(n & 63) * 4 + 1}/`)) return n;
  }
  throw new CcbError('no free /30 left in 10.204.0.0/16 for the NAT uplink');
}

async function hostRule(stack: CleanupStack, table: string, chain: string, rest: string[], insert = false): Promise<void> {
  const rule = [chain, ...rest];
  const resource: Resource = { kind: 'iptables', binary: 'iptables', table, rule };
  stack.push(resource);
  await run('iptables', ['-w', '-t', table, insert ? '-I' : '-A', ...rule]);
}

/** Name servers the client namespace can reach (loopback resolvers of the host cannot be). */
export function upstreamNameservers(resolvConf: string): string[] {
  return resolvConf.split('\n').map((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1]).filter((s): s is string => !!s)
    .filter((s) => !s.startsWith('127.') && s !== '::1');
}

export async function attachNatUplink(stack: CleanupStack, topo: Topology): Promise<NatUplink> {
  const n = await freeSubnet();
  const prefix = `10.204.${n >> 6}.`;
  const first = (n & 63) * 4;
  const hostAddr = `${prefix}${first + 1}`;
  const upstreamAddr = `${prefix}${first + 2}`;
  const hostDev = `ccb${topo.runId}n`;
  const upDev = `ccb${topo.runId}un`;
  const comment = ['-m', 'comment', '--comment', `ccb-${topo.runId}`];

  stack.push({ kind: 'link', name: hostDev });
  await run('ip', ['link', 'add', hostDev, 'type', 'veth', 'peer', 'name', upDev, 'netns', topo.upstreamNs]);
  await run('ip', ['addr', 'add', `${hostAddr}/30`, 'dev', hostDev]);
  await run('ip', ['link', 'set', hostDev, 'up']);
  await disableOffloads(topo.upstreamNs, upDev);
  await run('ip', ['-n', topo.upstreamNs, 'addr', 'add', `${upstreamAddr}/30`, 'dev', upDev]);
  await run('ip', ['-n', topo.upstreamNs, 'link', 'set', upDev, 'up']);
  await run('ip', ['-n', topo.upstreamNs, 'route', 'add', 'default', 'via', hostAddr]);

  // First NAT: inside the run's upstream namespace (its rules vanish with the namespace).
  await run('ip', ['netns', 'exec', topo.upstreamNs, 'iptables', '-w', '-t', 'nat', '-A', 'POSTROUTING',
    '-s', LAB_BLOCK, '-o', upDev, '-j', 'MASQUERADE']);
  // Second NAT, on the host: this run's /30 out of whatever interface leads to the destination.
  // The host must forward; left on afterwards (other software may rely on it too).
  await run('sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
  await hostRule(stack, 'nat', 'POSTROUTING', ['-s', `${upstreamAddr}/32`, '!', '-o', hostDev, ...comment, '-j', 'MASQUERADE']);
  await hostRule(stack, 'filter', 'FORWARD', ['-i', hostDev, ...comment, '-j', 'ACCEPT'], true);
  await hostRule(stack, 'filter', 'FORWARD', ['-o', hostDev, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', ...comment, '-j', 'ACCEPT'], true);

  // DNS for the client: `ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf over /etc/resolv.conf.
  let servers: string[] = [];
  try { servers = upstreamNameservers(readFileSync('/etc/resolv.conf', 'utf8')); } catch { /* no resolver configured */ }
  const dir = `/etc/netns/${topo.clientNs}`;
  stack.push({ kind: 'file', path: dir });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/resolv.conf`, servers.map((s) => `nameserver ${s}\n`).join('') || '# no usable upstream resolver found on the host\n');
  return { hostDev, hostAddr, upstreamAddr };
}
