/** Small wrappers over `ip` for namespaces and veth links, each registered for cleanup. */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { run } from '../util/exec.js';
import type { CleanupStack } from './cleanup.js';

/** A short random id: names must stay under Linux's 15-character interface limit. */
export function newRunId(): string {
  return randomBytes(3).toString('hex');
}

/** Linux >= 6.1 can give a new namespace a TCP hash table of its own; older kernels share the host's. */
export function canOwnTcpHashTable(): boolean {
  return existsSync('/proc/sys/net/ipv4/tcp_child_ehash_entries');
}

export async function addNamespace(stack: CleanupStack, name: string, opts: { ownTcpHashBuckets?: number } = {}): Promise<void> {
  stack.push({ kind: 'netns', name });
  if (opts.ownTcpHashBuckets && canOwnTcpHashTable()) {
    // A namespace gets its own TCP hash table when its parent's tcp_child_ehash_entries asks
    // for one (Linux >= 6.1): the parent is a throw-away namespace, so the host's own setting
    // is never touched. A sock_diag dump then walks this small table, not the host's 262,144
    // buckets (docs/benchmarks/speed.md, "A busy sampler").
    const script = 'echo "$1" > /proc/sys/net/ipv4/tcp_child_ehash_entries && exec ip netns add "$2"';
    await run('unshare', ['--net', '--', 'sh', '-c', script, 'sh', String(opts.ownTcpHashBuckets), name]);
  } else {
    await run('ip', ['netns', 'add', name]);
  }
  await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  // No duplicate-address detection: IPv6 link-local addresses then appear at once instead of
  // a second later, when a browser already running would abort with ERR_NETWORK_CHANGED.
  for (const key of ['net.ipv6.conf.all.accept_dad', 'net.ipv6.conf.default.accept_dad']) {
    await run('ip', ['netns', 'exec', name, 'sysctl', '-qw', `${key}=0`], { allowFailure: true });
  }
}

/** Waits until no IPv6 address in the namespace is still tentative (at most `timeoutMs`). */
export async function waitForAddresses(netns: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await run('ip', ['-n', netns, '-6', 'addr', 'show', 'tentative'], { allowFailure: true });
    if (!r.stdout.trim()) return;
    await new Promise((res) => setTimeout(res, 100));
  }
}

export interface VethEnd {
  netns: string;
  name: string;
  /** "a.b.c.d/len" and optional IPv6 "x::y/len". */
  ipv4: string;
  ipv6?: string;
  mtu?: number;
}

/** Creates a veth pair directly inside the two namespaces and brings both ends up. */
export async function addVeth(stack: CleanupStack, a: VethEnd, b: VethEnd): Promise<void> {
  // Deleting one end deletes the pair; deleting the namespace deletes it too.
  stack.push({ kind: 'link', name: a.name, netns: a.netns });
  await run('ip', ['link', 'add', a.name, 'netns', a.netns, 'type', 'veth', 'peer', 'name', b.name, 'netns', b.netns]);
  for (const end of [a, b]) {
    await disableOffloads(end.netns, end.name);
    if (end.mtu) await run('ip', ['-n', end.netns, 'link', 'set', end.name, 'mtu', String(end.mtu)]);
    await run('ip', ['-n', end.netns, 'addr', 'add', end.ipv4, 'dev', end.name]);
    if (end.ipv6) await run('ip', ['-n', end.netns, '-6', 'addr', 'add', end.ipv6, 'dev', end.name, 'nodad']);
    await run('ip', ['-n', end.netns, 'link', 'set', end.name, 'up']);
  }
}

/**
 * Offloads off: with TSO/GSO/GRO on, HTB and the capture see 64 KB super-packets instead
 * of wire-sized ones, and the bottleneck's timing and the trace's packet counts are wrong.
 */
export async function disableOffloads(netns: string, dev: string): Promise<void> {
  await run('ip', ['netns', 'exec', netns, 'ethtool', '-K', dev,
    'tso', 'off', 'gso', 'off', 'gro', 'off', 'tx-udp-segmentation', 'off'], { allowFailure: true })
    .then(async (r) => {
      if (r.code !== 0) {
        // Some offloads are fixed on some drivers; turn off what can be turned off, one by one.
        for (const feature of ['tso', 'gso', 'gro', 'tx-udp-segmentation']) {
          await run('ip', ['netns', 'exec', netns, 'ethtool', '-K', dev, feature, 'off'], { allowFailure: true });
        }
      }
    });
}

export async function sysctl(netns: string, key: string, value: string): Promise<void> {
  await run('ip', ['netns', 'exec', netns, 'sysctl', '-qw', `${key}=${value}`]);
}

/** Interface counters (packets/bytes each way) read from inside a namespace. */
export async function linkCounters(netns: string, dev: string): Promise<{ rxPackets: number; txPackets: number; rxBytes: number; txBytes: number }> {
  const r = await run('ip', ['-n', netns, '-s', '-j', 'link', 'show', 'dev', dev]);
  const stats = (JSON.parse(r.stdout) as Array<{ stats64: { rx: { packets: number; bytes: number }; tx: { packets: number; bytes: number } } }>)[0].stats64;
  return { rxPackets: stats.rx.packets, txPackets: stats.tx.packets, rxBytes: stats.rx.bytes, txBytes: stats.tx.bytes };
}
