/**
 * Applies a network profile to a topology's shaper namespace.
 *
 * Path of a data packet (server -> client):
 *   server -> [shaper: server-facing veth = CAPTURE POINT] -> delay stage -> per-flow HTB
 *   class + byte-limited FIFO on the client-facing veth -> client
 * and of an ACK (client -> server):
 *   client -> delay stage -> per-flow HTB class on the server-facing veth -> CAPTURE POINT -> server
 *
 * Nebby's order is "queue then delay" towards the client. A constant delay commutes with a
 * FIFO queue (it only shifts every arrival by the same amount), so "delay then queue" gives
 * the same departure times, the same drops, and the same view at the capture point; it lets
 * the delay stage live in the forwarding path (NFQUEUE on FORWARD, or netem behind IFB on
 * ingress) while HTB owns egress.
 */
import { run } from '../util/exec.js';
import type { CleanupStack } from '../net/cleanup.js';
import { ADDR, type Topology } from '../net/topology.js';
import { BadInputError } from '../util/errors.js';
import { chooseDelayBackend, type DelayBackend } from './backend.js';
import { startDelayLine, type DelayLine } from './delayline.js';
import { attachFlowClassifier, DEFAULT_CLASS, FIRST_FLOW_CLASS, SHARED_CLASS, type FlowClassifier } from './flowclass.js';
import { bufferBytes, type Profile } from './profile.js';
import type { BottleneckModel } from '../trace/quic-model.js';

export interface AppliedShaper {
  profile: Profile;
  backend: DelayBackend;
  bufferBytes: number;
  classifier: FlowClassifier;
  delayLine?: DelayLine;
  /** The client direction's own delay line, when ACKs are aggregated. */
  ackDelayLine?: DelayLine;
}

const hex = (n: number) => n.toString(16);

// Pure arithmetic shared with the analysis commands (which must not load the shaper).
export { bottleneckModelOf, htbBurstBytes } from './bottleneck-model.js';
import { htbBurstBytes } from './bottleneck-model.js';

/** The `tc -batch` script for one veth: root HTB, default + shared class, per-flow classes. */
export function htbBatch(dev: string, profile: Profile, slots: number, limitBytes: number, mtu: number): string {
  const burst = htbBurstBytes(profile.rateKbit, mtu);
  const rate = `${profile.rateKbit}kbit`;
  const lines = [`qdisc add dev ${dev} root handle 1: htb default ${hex(DEFAULT_CLASS)}`];
  const addClass = (minor: number) => {
    lines.push(`class add dev ${dev} parent 1: classid 1:${hex(minor)} htb rate ${rate} ceil ${rate} burst ${burst} cburst ${burst} quantum ${mtu + 14}`);
    lines.push(`qdisc add dev ${dev} parent 1:${hex(minor)} handle ${hex(minor)}: bfifo limit ${limitBytes}`);
  };
  addClass(DEFAULT_CLASS);
  addClass(SHARED_CLASS);
  for (let i = 0; i < slots; i++) addClass(FIRST_FLOW_CLASS + i);
  return lines.join('\n') + '\n';
}

export async function applyShaper(stack: CleanupStack, topo: Topology, profile: Profile,
  opts: { backend?: DelayBackend; queueNum?: number } = {}): Promise<AppliedShaper> {
  const backend = opts.backend ?? (await chooseDelayBackend());
  const limit = bufferBytes(profile);
  const slots = profile.queue === 'per-flow' ? profile.maxFlows : 0;
  const ns = topo.shaperNs;

  // Queues first, then the classifier that feeds them, then the delay stage: until the
  // delay stage is in place nothing is forwarded at all (NFQUEUE with no reader drops).
  for (const dev of [topo.shaperClientDev, topo.shaperServerDev]) {
    const mtu = dev === topo.shaperClientDev ? profile.clientMtu : 1500;
    await run('tc', ['-n', ns, '-batch', '-'], { input: htbBatch(dev, profile, slots, limit, mtu) });
  }
  const classifier = await attachFlowClassifier(stack, {
    runId: topo.runId, netns: ns, toClientDev: topo.shaperClientDev, toServerDev: topo.shaperServerDev, slots,
  });

  if (profile.lossPercent > 0) {
    // Random loss on the data direction only, before the queue (as a lossy link would).
    const rule = ['FORWARD', '-o', topo.shaperClientDev, '-m', 'statistic', '--mode', 'random',
      '--probability', String(profile.lossPercent / 100), '-j', 'DROP'];
    for (const binary of ['iptables', 'ip6tables'] as const) {
      stack.push({ kind: 'iptables', binary, netns: ns, table: 'mangle', rule });
      await run('ip', ['netns', 'exec', ns, binary, '-w', '-t', 'mangle', '-A', ...rule]);
    }
  }

  if (profile.tcpMss) {
    // Clamp on the client's SYN as it passes: both ends then use segments of this size.
    const rule = ['FORWARD', '-p', 'tcp', '--tcp-flags', 'SYN,RST', 'SYN', '-j', 'TCPMSS', '--set-mss', String(profile.tcpMss)];
    stack.push({ kind: 'iptables', binary: 'iptables', netns: ns, table: 'mangle', rule });
    await run('ip', ['netns', 'exec', ns, 'iptables', '-w', '-t', 'mangle', '-I', ...rule]);
  }
  if (!profile.sack) await run('ip', ['netns', 'exec', topo.clientNs, 'sysctl', '-qw', 'net.ipv4.tcp_sack=0']);
  if (!profile.delayedAck) {
    // quickack on the client's routes: its TCP acknowledges every segment at once.
    await run('ip', ['-n', topo.clientNs, 'route', 'replace', 'default', 'via', ADDR.shaperClientSide, 'quickack', '1']);
    await run('ip', ['-n', topo.clientNs, '-6', 'route', 'replace', 'default', 'via', ADDR.shaperClientSide6, 'quickack', '1']);
  }
  if (profile.ackAggregationMs > 0 && backend !== 'nfqueue') {
    throw new BadInputError(`profile ${profile.name}: ACK aggregation needs the userspace delay line backend (CCB_DELAY_BACKEND=nfqueue)`);
  }

  let delayLine: DelayLine | undefined;
  let ackDelayLine: DelayLine | undefined;
  if ((profile.delayMs > 0 || profile.ackAggregationMs > 0) && backend === 'nfqueue') {
    const queueNum = opts.queueNum ?? 0;
    delayLine = await startDelayLine({ netns: ns, queueNum, delayMs: profile.delayMs, stack });
    // Aggregated ACKs: the client's direction gets its own queue, whose delay line releases in batches.
    const ackQueue = queueNum + 1;
    if (profile.ackAggregationMs > 0) {
      ackDelayLine = await startDelayLine({ netns: ns, queueNum: ackQueue, delayMs: profile.delayMs, aggregateMs: profile.ackAggregationMs, stack });
    }
    const rules = profile.ackAggregationMs > 0
      ? [['FORWARD', '-i', topo.shaperServerDev, '-j', 'NFQUEUE', '--queue-num', String(queueNum)],
        ['FORWARD', '-i', topo.shaperClientDev, '-j', 'NFQUEUE', '--queue-num', String(ackQueue)]]
      : [['FORWARD', '-j', 'NFQUEUE', '--queue-num', String(queueNum)]]; // never --queue-bypass: fail closed
    for (const rule of rules) {
      for (const binary of ['iptables', 'ip6tables'] as const) {
        stack.push({ kind: 'iptables', binary, netns: ns, table: 'mangle', rule });
        await run('ip', ['netns', 'exec', ns, binary, '-w', '-t', 'mangle', '-A', ...rule]);
      }
    }
  } else if (profile.delayMs > 0) {
    await applyNetemDelay(stack, topo, profile.delayMs);
  }
  return { profile, backend, bufferBytes: limit, classifier, delayLine, ackDelayLine };
}

/**
 * netem backend: each veth's ingress is redirected through an IFB device whose root qdisc
 * is netem, so the delay sits between reception and forwarding, like the NFQUEUE stage.
 * (tcpdump's tap on ingress runs before tc ingress, so the capture still sees data first.)
 */
async function applyNetemDelay(stack: CleanupStack, topo: Topology, delayMs: number): Promise<void> {
  const ns = topo.shaperNs;
  for (const [dev, ifb] of [[topo.shaperServerDev, `ccb${topo.runId}id`], [topo.shaperClientDev, `ccb${topo.runId}iu`]] as const) {
    stack.push({ kind: 'link', name: ifb, netns: ns });
    await run('ip', ['-n', ns, 'link', 'add', ifb, 'type', 'ifb']);
    await run('ip', ['-n', ns, 'link', 'set', ifb, 'up']);
    // A large limit: netem's limit counts packets held in the delay, which is not the bottleneck.
    await run('tc', ['-n', ns, 'qdisc', 'add', 'dev', ifb, 'root', 'netem', 'delay', `${delayMs}ms`, 'limit', '1000000']);
    await run('tc', ['-n', ns, 'qdisc', 'add', 'dev', dev, 'handle', 'ffff:', 'ingress']);
    await run('tc', ['-n', ns, 'filter', 'add', 'dev', dev, 'parent', 'ffff:', 'matchall',
      'action', 'mirred', 'egress', 'redirect', 'dev', ifb]);
  }
}
