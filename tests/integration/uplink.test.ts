/**
 * Internet mode's NAT path, tested without the internet: a stand-in "internet" host lives in a
 * namespace this test creates, reachable from the host; the client reaches it through the shaper,
 * the upstream namespace and the host, with both NATs applied, and every host rule goes away.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { processStartTime } from '../../src/net/resources.js';
import { addNamespace, newRunId } from '../../src/net/netns.js';
import { createTopology } from '../../src/net/topology.js';
import { attachNatUplink, upstreamNameservers } from '../../src/net/uplink.js';
import { run } from '../../src/util/exec.js';
import { isRoot } from '../helpers/system.js';

const hostRules = () => execFileSync('iptables-save', { encoding: 'utf8' });

describe('NAT uplink (internet mode)', () => {
  it('keeps only resolvers a namespace can reach', () => {
    expect(upstreamNameservers('nameserver 127.0.0.53\nnameserver 9.9.9.9\n# x\nnameserver ::1\nnameserver 2620:fe::fe\n'))
      .toEqual(['9.9.9.9', '2620:fe::fe']);
  });

  it.skipIf(!isRoot)('client reaches a host beyond the uplink through both NATs; host rules are removed', async () => {
    const runId = newRunId();
    const stack = new CleanupStack(`test-uplink-${runId}`);
    try {
      const topo = await createTopology(stack, runId);
      const nat = await attachNatUplink(stack, topo);
      expect(hostRules()).toContain(`ccb-${runId}`);
      // The stand-in internet: a namespace on a host-side veth (the host routes to it directly).
      const inet = `ccb-${runId}-inet`;
      await addNamespace(stack, inet);
      await run('ip', ['link', 'add', `ccb${runId}h`, 'type', 'veth', 'peer', 'name', `ccb${runId}i`, 'netns', inet]);
      stack.push({ kind: 'link', name: `ccb${runId}h` });
      await run('ip', ['addr', 'add', '10.205.77.1/30', 'dev', `ccb${runId}h`]);
      await run('ip', ['link', 'set', `ccb${runId}h`, 'up']);
      await run('ip', ['-n', inet, 'addr', 'add', '10.205.77.2/30', 'dev', `ccb${runId}i`]);
      await run('ip', ['-n', inet, 'link', 'set', `ccb${runId}i`, 'up']);
      // A UDP echo in the stand-in host replies with the source address it saw.
      const server = execFileSync('sh', ['-c',
        `ip netns exec ${inet} python3 -c "
import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('10.205.77.2',7777));s.settimeout(20)
d,a=s.recvfrom(100);s.sendto(a[0].encode(),a)" >/dev/null 2>&1 & echo $!`], { encoding: 'utf8' });
      const pid = Number(server.trim());
      stack.push({ kind: 'process', pid, startTime: processStartTime(pid) ?? '', what: 'echo' });
      await new Promise((r) => setTimeout(r, 500));
      const seen = await run('ip', ['netns', 'exec', topo.clientNs, 'python3', '-c',
        "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.settimeout(10);s.sendto(b'x',('10.205.77.2',7777));print(s.recv(100).decode())"]);
      // The stand-in host sees the host's address on its link, not the run's private client address.
      expect(seen.stdout.trim()).toBe('10.205.77.1');
      expect(nat.upstreamAddr.startsWith('10.204.')).toBe(true);
    } finally {
      await stack.unwind();
    }
    expect(hostRules()).not.toContain(`ccb-${runId}`);
  }, 60_000);
});
