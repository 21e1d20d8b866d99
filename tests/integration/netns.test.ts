/**
 * A namespace the project creates has its own TCP hash table (net/netns.ts): a sock_diag dump in
 * it (the lab's tcp_info samplers, every 10 ms) walks its few buckets, not the host's shared
 * table; and creating it leaves the host's own setting as it was.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { addNamespace, NAMESPACE_TCP_HASH_BUCKETS, newRunId } from '../../src/net/netns.js';
import { isRoot, listNamespaces } from '../helpers/system.js';

const sysctl = (args: string[]) => execFileSync(args[0], args.slice(1), { encoding: 'utf8' }).trim();
const childSetting = () => sysctl(['sysctl', '-n', 'net.ipv4.tcp_child_ehash_entries']);

describe('project namespaces', () => {
  it.skipIf(!isRoot)('get their own TCP hash table, and the host setting is untouched', async () => {
    const name = `ccb-${newRunId()}-ehash`;
    const stack = new CleanupStack(`test-netns-${name}`);
    const before = childSetting();
    try {
      await addNamespace(stack, name);
      expect(listNamespaces()).toContain(name);
      expect(Number(sysctl(['ip', 'netns', 'exec', name, 'sysctl', '-n', 'net.ipv4.tcp_ehash_entries']))).toBe(NAMESPACE_TCP_HASH_BUCKETS);
      expect(childSetting()).toBe(before);
    } finally {
      await stack.unwind();
    }
    expect(listNamespaces()).not.toContain(name);
  });
});
