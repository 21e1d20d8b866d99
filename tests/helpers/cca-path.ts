/**
 * A real path for validating lab congestion controllers with a propagation delay:
 *   server-ns --veth-- router-ns (NFQUEUE delay line, both directions; HTB + bfifo towards
 *   the client) --veth-- client-ns
 * The existing lab-cca test has no delay (its RTT is nearly all queueing); BBR's model,
 * FAST's and Copa's queue targets and the RTT-scaled strangers need a real BDP. The
 * delay line is the project's own (ccb-delayline, the same one the lab and runs use).
 * Everything is pushed on one cleanup stack; names carry the `ccbcp-<rand>` prefix.
 */
import { randomBytes } from 'node:crypto';
import { CleanupStack } from '../../src/net/cleanup.js';
import { addNamespace, addVeth, sysctl } from '../../src/net/netns.js';
import { startDelayLine, type DelayLine } from '../../src/shaper/delayline.js';
import { describeHostStalls, startHostStallMonitor, type HostStalls } from '../../src/shaper/host-stalls.js';
import { run, runIn } from '../../src/util/exec.js';
import { allowedCcas, labCca, setNamespaceCca } from '../../src/lab/cca.js';
import { runBulkTransfer, type BulkResult } from '../../src/lab/cca/bulk.js';

export interface PathSettings {
  rateMbit: number;
  /** Bottleneck queue (bfifo) in bytes. */
  bufferBytes: number;
  /** Base RTT added by the delay line (half each way). */
  rttMs: number;
}

export interface Transfer extends BulkResult {
  /** The host's own stalls during the transfer, in one line (for a failing rate's message). */
  hostStalls: string;
  /** The same, as measured (tests/helpers/quiet-host.ts judges them). */
  stalls: HostStalls;
  settings: PathSettings;
}

export interface CcaPath {
  readonly ns: { server: string; router: string; client: string };
  readonly serverAddr: string;
  readonly stack: CleanupStack;
  /** Changes what differs from the current settings (restarts the delay line for a new RTT). */
  configure(s: Partial<PathSettings>): Promise<void>;
  /** Random loss on data packets entering the router (probability 0..1), or none. */
  setRandomLoss(p: number | undefined): Promise<void>;
  /** One bulk transfer from a server namespace defaulting to `cca`. */
  transfer(cca: string, seconds: number, opts?: { loss?: number; sndbufBytes?: number }): Promise<Transfer>;
  close(): Promise<string[]>;
}

const QUEUE_NUM = 7;

export async function createCcaPath(initial: PathSettings): Promise<CcaPath> {
  const id = randomBytes(3).toString('hex');
  const P = `ccbcp-${id}`;
  const ns = { server: `${P}-srv`, router: `${P}-rtr`, client: `${P}-cli` };
  const serverAddr = '10.203.71.1';
  const stack = new CleanupStack(`cca-path-${id}`);
  let settings = { ...initial };
  let delayLine: DelayLine | undefined;
  let lossRule: string[] | undefined;

  for (const n of Object.values(ns)) await addNamespace(stack, n);
  await addVeth(stack, { netns: ns.server, name: 'v-srv', ipv4: `${serverAddr}/24` }, { netns: ns.router, name: 'v-rs', ipv4: '10.203.71.2/24' });
  await addVeth(stack, { netns: ns.client, name: 'v-cli', ipv4: '10.203.72.1/24' }, { netns: ns.router, name: 'v-rc', ipv4: '10.203.72.2/24' });
  await run('ip', ['-n', ns.server, 'route', 'add', 'default', 'via', '10.203.71.2']);
  await run('ip', ['-n', ns.client, 'route', 'add', 'default', 'via', '10.203.72.2']);
  await sysctl(ns.router, 'net.ipv4.ip_forward', '1');
  // Each transfer starts from a clean slate: no cached ssthresh/RTT per destination.
  for (const n of [ns.server, ns.client]) await sysctl(n, 'net.ipv4.tcp_no_metrics_save', '1');
  // Every forwarded packet, both directions, waits rttMs/2 in the delay line.
  const rule = ['FORWARD', '-j', 'NFQUEUE', '--queue-num', String(QUEUE_NUM)];
  stack.push({ kind: 'iptables', binary: 'iptables', netns: ns.router, table: 'mangle', rule });
  await runIn(ns.router, 'iptables', ['-w', '-t', 'mangle', '-A', ...rule]);

  async function startDelay(rttMs: number): Promise<void> {
    if (delayLine) await delayLine.stop();
    // With no delay the line still runs (0 us hold): the rule stays the same.
    delayLine = await startDelayLine({ netns: ns.router, queueNum: QUEUE_NUM, delayMs: rttMs / 2, stack });
  }
  async function shape(rateMbit: number, bufferBytes: number, replace: boolean): Promise<void> {
    const verb = replace ? 'change' : 'add';
    if (!replace) await runIn(ns.router, 'tc', ['qdisc', 'add', 'dev', 'v-rc', 'root', 'handle', '1:', 'htb', 'default', '10']);
    await runIn(ns.router, 'tc', ['class', verb, 'dev', 'v-rc', 'parent', '1:', 'classid', '1:10', 'htb',
      'rate', `${rateMbit}mbit`, 'ceil', `${rateMbit}mbit`, 'quantum', '1514']);
    await runIn(ns.router, 'tc', ['qdisc', verb, 'dev', 'v-rc', 'parent', '1:10', 'handle', '10:', 'bfifo', 'limit', String(bufferBytes)]);
  }
  await startDelay(settings.rttMs);
  await shape(settings.rateMbit, settings.bufferBytes, false);

  const path: CcaPath = {
    ns, serverAddr, stack,
    async configure(s) {
      const next = { ...settings, ...s };
      if (next.rttMs !== settings.rttMs) await startDelay(next.rttMs);
      if (next.rateMbit !== settings.rateMbit || next.bufferBytes !== settings.bufferBytes) await shape(next.rateMbit, next.bufferBytes, true);
      settings = next;
    },
    async setRandomLoss(p) {
      if (lossRule) {
        await runIn(ns.router, 'iptables', ['-w', '-t', 'filter', '-D', ...lossRule], { allowFailure: true });
        lossRule = undefined;
      }
      if (p === undefined || p <= 0) return;
      const r = ['FORWARD', '-i', 'v-rs', '-m', 'length', '--length', '1000:65535', '-m', 'statistic', '--mode', 'random', '--probability', String(p), '-j', 'DROP'];
      stack.push({ kind: 'iptables', binary: 'iptables', netns: ns.router, table: 'filter', rule: r });
      await runIn(ns.router, 'iptables', ['-w', '-t', 'filter', '-A', ...r]);
      lossRule = r;
    },
    async transfer(cca, seconds, opts = {}) {
      await path.setRandomLoss(opts.loss);
      // A kernel controller this host does not allow namespaces to pick (distros allow
      // "reno cubic"): root picks it per socket instead. BPF ones are always allowed.
      const c = labCca(cca);
      const perSocket = c.kind === 'kernel' && !allowedCcas().includes(c.kernelName) ? c.kernelName : undefined;
      if (!perSocket) await setNamespaceCca(ns.server, cca, stack);
      const monitor = startHostStallMonitor((seconds + 30) * 1000);
      try {
        const r = await runBulkTransfer({ serverNs: ns.server, clientNs: ns.client, serverAddr, seconds, cc: perSocket, sndbufBytes: opts.sndbufBytes }, stack);
        const stalls = await monitor.stop();
        return { ...r, hostStalls: describeHostStalls(stalls), stalls, settings: { ...settings } };
      } finally {
        await monitor.stop().catch(() => undefined);
        await path.setRandomLoss(undefined);
      }
    },
    close: () => stack.unwind(),
  };
  return path;
}
