/**
 * The lab's BPF congestion controllers, validated on real namespaces:
 *   server-ns --veth-- router-ns (HTB 20 Mbit/s + bfifo in bytes, offloads off) --veth-- client-ns
 * For each of the nine Nebby ones (the issue-17 controllers have lab-cca-bbr.test.ts and
 * lab-cca-delay.test.ts): it registers, a bulk transfer from the server namespace (whose
 * default controller we set) really uses it (getsockopt(TCP_CONGESTION) on the sending
 * socket and `ss -tin` mid-transfer), completes at a sane rate, and shows the behaviour
 * that sets it apart, read from tcp_info sampled every 10 ms on the sender.
 *
 * The estimators are validated on kernel Reno first (increase 1 packet per RTT, back-off
 * to 1/2), so a wrong reading of the traces fails the control, not just the controller.
 * There is no propagation delay here (no netem on this kernel): the base RTT is about
 * one packet time and the RTT is mostly queueing, so Westwood's BWE x RTTmin is ~2
 * packets, YeAH never sees its "fast" mode and Veno always judges loss congestive; each
 * test says what the HTB queue lets us check instead (docs/lab-cca.md).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CleanupStack } from '../../src/net/cleanup.js';
import { describeHostStalls, startHostStallMonitor } from '../../src/shaper/host-stalls.js';
import { run, runIn, sleep } from '../../src/util/exec.js';
import { startProcess } from '../../src/net/launch.js';
import {
  BPF_CCAS, BPF_PREFIX, availableCcas, bpfSourceDir, ccaUsage, ensureRegistered, labCca, listLabCcas,
  setNamespaceCca, unregisterIfUnused, type BpfCcaName,
} from '../../src/lab/cca.js';
import { bulkBinary, runBulkTransfer, type BulkResult } from '../../src/lab/cca/bulk.js';
import {
  findBackoffs, goodputBps, growthWindows, median, type Backoff, type GrowthWindow,
} from '../../src/lab/cca/tcpinfo.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.warn('lab-cca: skipped, needs root (network namespaces, tc, BPF struct_ops registration)');
}

const RATE_MBIT = 20;
const SMALL_BUF = 150_000; // ~99 full-size packets: ~60 ms of queue at 20 Mbit/s
const LARGE_BUF = 300_000; // ~198 packets: room for Scalable's multiplicative region (cwnd > 100)

const id = randomBytes(3).toString('hex');
const P = `ccbcc-${id}`;
const NS = { server: `${P}-srv`, router: `${P}-rtr`, client: `${P}-cli` };
const SERVER_ADDR = '10.203.61.1';

/** Back-offs after slow start's overshoot, ignoring timeouts and kernel glitches. */
function lossBackoffs(r: BulkResult): Backoff[] {
  return findBackoffs(r.samples).filter((b) => b.kind === 'recovery' && b.tUs > 1_000_000 && b.ssthreshAfter < 1e6 && b.cwndBefore < 1e6);
}
/** The sample just before the back-off was in congestion avoidance (cwnd at or above ssthresh). */
function enteredFromAvoidance(r: BulkResult, b: Backoff): boolean {
  const before = r.samples.find((s) => s.tUs === b.tUs);
  return before !== undefined && before.cwnd >= before.ssthresh;
}
function caWindows(r: BulkResult, windowUs = 300_000): GrowthWindow[] {
  return growthWindows(r.samples, windowUs).filter((w) => w.tStartUs > 1_000_000 && w.cwndMean < 1e6);
}
/** Illinois is plain Reno below this window (packets; src/lab/bpf/illinois.bpf.c WIN_THRESH). */
const ILLINOIS_WIN_THRESH = 15;
const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

describe.skipIf(!isRoot)('lab BPF congestion controllers (real namespaces, root)', () => {
  let stack: CleanupStack;
  const preRegistered = new Set<string>();
  const reno: { small?: BulkResult; lossy?: BulkResult } = {};
  let currentLoss: string[] | undefined;

  async function setBuffer(bytes: number): Promise<void> {
    await runIn(NS.router, 'tc', ['qdisc', 'change', 'dev', 'v-rc', 'parent', '1:10', 'handle', '10:', 'bfifo', 'limit', String(bytes)]);
  }

  /** Random loss on data packets (>= 1000 bytes) entering the router, or none. */
  async function setRandomLoss(probability: number | undefined): Promise<void> {
    if (currentLoss) {
      await runIn(NS.router, 'iptables', ['-w', '-t', 'filter', '-D', ...currentLoss], { allowFailure: true });
      currentLoss = undefined;
    }
    if (probability === undefined) return;
    const rule = ['FORWARD', '-i', 'v-rs', '-m', 'length', '--length', '1000:65535', '-m', 'statistic', '--mode', 'random', '--probability', String(probability), '-j', 'DROP'];
    stack.push({ kind: 'iptables', binary: 'iptables', netns: NS.router, table: 'filter', rule });
    await runIn(NS.router, 'iptables', ['-w', '-t', 'filter', '-A', ...rule]);
    currentLoss = rule;
  }

  /** Makes the server namespace default to `cca` and runs one bulk transfer. */
  async function transfer(cca: string, bufferBytes: number, seconds: number, loss?: number): Promise<BulkResult & { hostStalls: string }> {
    await setBuffer(bufferBytes);
    await setRandomLoss(loss);
    await setNamespaceCca(NS.server, cca, stack);
    // The host's own stalls during the transfer, printed beside a rate that fails.
    const monitor = startHostStallMonitor((seconds + 30) * 1000);
    try {
      const r = await runBulkTransfer({ serverNs: NS.server, clientNs: NS.client, serverAddr: SERVER_ADDR, seconds }, stack);
      return { ...r, hostStalls: describeHostStalls(await monitor.stop()) };
    } finally {
      await monitor.stop().catch(() => undefined);
      await setRandomLoss(undefined);
    }
  }

  /** The transfer really used `kernelName` and moved data at a sane rate. */
  function expectUsedAndSane(r: BulkResult & { hostStalls: string }, kernelName: string): number {
    expect(r.ccAtStart).toBe(kernelName); // getsockopt(TCP_CONGESTION) at accept
    expect(r.ccAtEnd).toBe(kernelName); // ... and at the end
    expect(r.ssMidTransfer).toMatch(new RegExp(`\\b${kernelName}\\b`)); // ss -tin, server side
    expect(r.samples.length).toBeGreaterThan(100);
    const mbit = goodputBps(r.samples) / 1e6;
    expect(mbit, `goodput ${mbit.toFixed(2)} Mbit/s; host during the transfer: ${r.hostStalls}`).toBeGreaterThan(RATE_MBIT * 0.8);
    expect(mbit).toBeLessThan(RATE_MBIT * 1.05);
    expect(r.receivedBytes).toBeGreaterThanOrEqual(r.sentBytes * 0.99);
    return mbit;
  }

  function summary(name: string, r: BulkResult, extra: string): void {
    const b = lossBackoffs(r);
    console.log(
      `[lab-cca] ${name}: goodput ${fmt(goodputBps(r.samples) / 1e6)} Mbit/s, median srtt ${fmt(median(r.samples.map((s) => s.srttUs)) / 1000, 1)} ms, ` +
      `max unacked ${Math.max(...r.samples.map((s) => s.unacked))}, retrans ${r.samples.at(-1)?.totalRetrans}, ` +
      `back-offs ${b.length} (median ratio ${fmt(median(b.map((x) => x.ratio)), 3)}); ${extra}`,
    );
  }

  beforeAll(async () => {
    await run('make', ['-C', bpfSourceDir()], { timeoutMs: 300_000 });
    for (const n of availableCcas()) if (n.startsWith(BPF_PREFIX)) preRegistered.add(n);
    stack = new CleanupStack(`lab-cca-test-${id}`);
    for (const ns of Object.values(NS)) {
      stack.push({ kind: 'netns', name: ns });
      await run('ip', ['netns', 'add', ns]);
    }
    const sh = async (ns: string, ...cmds: string[][]) => { for (const c of cmds) await runIn(ns, c[0], c.slice(1)); };
    await run('ip', ['link', 'add', 'v-srv', 'netns', NS.server, 'type', 'veth', 'peer', 'name', 'v-rs', 'netns', NS.router]);
    await run('ip', ['link', 'add', 'v-cli', 'netns', NS.client, 'type', 'veth', 'peer', 'name', 'v-rc', 'netns', NS.router]);
    await sh(NS.server, ['ip', 'addr', 'add', `${SERVER_ADDR}/24`, 'dev', 'v-srv'], ['ip', 'link', 'set', 'v-srv', 'up'], ['ip', 'link', 'set', 'lo', 'up'],
      ['ip', 'route', 'add', 'default', 'via', '10.203.61.2']);
    await sh(NS.client, ['ip', 'addr', 'add', '10.203.62.1/24', 'dev', 'v-cli'], ['ip', 'link', 'set', 'v-cli', 'up'], ['ip', 'link', 'set', 'lo', 'up'],
      ['ip', 'route', 'add', 'default', 'via', '10.203.62.2']);
    await sh(NS.router, ['ip', 'addr', 'add', '10.203.61.2/24', 'dev', 'v-rs'], ['ip', 'addr', 'add', '10.203.62.2/24', 'dev', 'v-rc'],
      ['ip', 'link', 'set', 'v-rs', 'up'], ['ip', 'link', 'set', 'v-rc', 'up'], ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    // Offloads off everywhere, or HTB and tcp_info see 64 KB super-packets.
    for (const [ns, dev] of [[NS.server, 'v-srv'], [NS.router, 'v-rs'], [NS.router, 'v-rc'], [NS.client, 'v-cli']]) {
      for (const feature of ['tso', 'gso', 'gro', 'tx-udp-segmentation']) {
        await runIn(ns, 'ethtool', ['-K', dev, feature, 'off'], { allowFailure: true });
      }
    }
    // No per-destination metrics: each transfer must start from a clean slate.
    for (const ns of [NS.server, NS.client]) await runIn(ns, 'sysctl', ['-qw', 'net.ipv4.tcp_no_metrics_save=1']);
    // The bottleneck: data direction, router -> client.
    await sh(NS.router,
      ['tc', 'qdisc', 'add', 'dev', 'v-rc', 'root', 'handle', '1:', 'htb', 'default', '10'],
      ['tc', 'class', 'add', 'dev', 'v-rc', 'parent', '1:', 'classid', '1:10', 'htb', 'rate', `${RATE_MBIT}mbit`, 'ceil', `${RATE_MBIT}mbit`, 'quantum', '1514'],
      ['tc', 'qdisc', 'add', 'dev', 'v-rc', 'parent', '1:10', 'handle', '10:', 'bfifo', 'limit', String(SMALL_BUF)]);
  }, 300_000);

  afterAll(async () => {
    if (stack) await stack.unwind();
  }, 120_000);

  it('lists 3 kernel and 18 BPF controllers (13 trained, 5 open set), each BPF one built', async () => {
    const all = listLabCcas();
    expect(all.filter((c) => c.kind === 'kernel').map((c) => c.name)).toEqual(['reno', 'cubic', 'bbr']);
    const bpf = all.filter((c) => c.kind === 'bpf');
    expect(bpf.map((c) => c.name).sort()).toEqual([...BPF_CCAS].sort());
    expect(bpf).toHaveLength(18);
    for (const c of bpf) {
      expect(c.kernelName).toBe(`ccb_${c.name}`);
      expect(c.kernelName.length).toBeLessThan(16); // TCP_CA_NAME_MAX and the map name limit
      const size = Number((await run('stat', ['-c', '%s', c.objectPath!])).stdout.trim());
      expect(size).toBeGreaterThan(1000);
    }
    expect(labCca('ccb_vegas').name).toBe('vegas');
    expect(() => labCca('nosuch')).toThrow(/unknown lab congestion controller/);
  });

  it('registers every BPF controller, selectable by namespaces', async () => {
    for (const name of BPF_CCAS) {
      const cca = await ensureRegistered(name, stack);
      expect(availableCcas()).toContain(cca.kernelName);
      const allowed = (await run('cat', ['/proc/sys/net/ipv4/tcp_allowed_congestion_control'])).stdout;
      expect(allowed.split(/\s+/)).toContain(cca.kernelName); // .flags = TCP_CONG_NON_RESTRICTED
      expect((await ccaUsage(name)).processes).toContain(process.pid);
    }
    const shown = (await run('bpftool', ['struct_ops', 'show'])).stdout;
    for (const name of BPF_CCAS) expect(shown).toMatch(new RegExp(`\\bccb_${name}\\b`));
  }, 300_000); // 18 bpftool loads and verifications: 120 s was not enough at load average ~70

  it('control: kernel Reno reads as +1 packet per RTT and a back-off to 1/2', async () => {
    const r = await transfer('reno', SMALL_BUF, 12);
    expectUsedAndSane(r, 'reno');
    const inc = median(caWindows(r).map((w) => w.incPerRtt));
    const ratios = lossBackoffs(r).map((b) => b.ratio);
    summary('reno/150KB', r, `increase per RTT ${fmt(inc)}`);
    expect(inc).toBeGreaterThan(0.85);
    expect(inc).toBeLessThan(1.15);
    expect(ratios.length).toBeGreaterThanOrEqual(3);
    expect(median(ratios)).toBeGreaterThan(0.45);
    expect(median(ratios)).toBeLessThan(0.55);
    reno.small = r;
  }, 90_000);

  it('vegas: keeps a few packets queued where Reno fills the buffer, without loss', async () => {
    const r = await transfer('vegas', SMALL_BUF, 8);
    expectUsedAndSane(r, 'ccb_vegas');
    const steady = r.samples.filter((s) => s.tUs > 1_000_000);
    const srtt = median(steady.map((s) => s.srttUs));
    const unacked = median(steady.map((s) => s.unacked));
    summary('vegas/150KB', r, `median unacked ${unacked}`);
    // Never overflows the 99-packet buffer: at most a few probe/spurious retransmissions
    // (Reno retransmits ~100 packets in the same 12 s).
    expect(r.samples.at(-1)!.totalRetrans).toBeLessThanOrEqual(3);
    expect(findBackoffs(r.samples).filter((b) => b.kind !== 'no-loss').length).toBeLessThanOrEqual(1);
    expect(unacked).toBeLessThanOrEqual(12); // BDP (~2) + alpha..beta (2..4) + ACK noise
    expect(srtt).toBeLessThan(10_000);
    if (reno.small) expect(srtt).toBeLessThan(0.25 * median(reno.small.samples.filter((s) => s.tUs > 1e6).map((s) => s.srttUs)));
  }, 60_000);

  // Westwood and Illinois act on the smallest RTT sample and on short transfers; on this shared
  // host single transfers vary (Illinois' median loss back-off 0.56-0.74 across runs, its
  // delay-dependent increase 0.42-0.48 vs 0.36-0.37), and this topology also hands TCP a stray
  // ~30 us RTT sample (tcp_info min_rtt 28-36 us on a ~20 ms path; cause not found): two retries.
  it('westwood: after a loss, ssthresh = bandwidth estimate x RTTmin instead of cwnd/2', { timeout: 60_000, retry: 2 }, async () => {
    const r = await transfer('westwood', SMALL_BUF, 10);
    expectUsedAndSane(r, 'ccb_westwood');
    const b = lossBackoffs(r);
    const mss = r.samples[0].mss || 1448;
    const minRtt = Math.min(...r.samples.filter((s) => s.minRttUs > 0).map((s) => s.minRttUs));
    const srtt = median(r.samples.filter((s) => s.tUs > 1e6).map((s) => s.srttUs));
    // Westwood+ (Linux): ssthresh = BWE x RTTmin, floor 2, and RTTmin restarts from the next
    // sample after each loss, so it can be anything from the path's base RTT (or a stray tiny
    // sample: tcp_info once showed 28 us) up to a queued RTT. Hence bounds, not one value:
    // never above bandwidth x the flow's typical RTT, and mostly far below Reno's cwnd/2.
    const bdpAtSrtt = Math.max(2, (goodputBps(r.samples) / 8) * (srtt / 1e6) / mss);
    summary('westwood/150KB', r, `ssthresh after loss ${b.map((x) => x.ssthreshAfter).join(',')}, BWE x srtt ${fmt(bdpAtSrtt)} pkts (tcp_info RTTmin ${minRtt} us)`);
    expect(b.length).toBeGreaterThanOrEqual(2);
    for (const x of b) expect(x.ssthreshAfter).toBeLessThanOrEqual(Math.ceil(1.5 * bdpAtSrtt) + 2);
    expect(median(b.map((x) => x.ratio))).toBeLessThan(0.3); // Reno: 0.5
  });

  it('veno: in the congestive state grows +1 every other RTT and halves on loss', async () => {
    const r = await transfer('veno', SMALL_BUF, 12);
    expectUsedAndSane(r, 'ccb_veno');
    const inc = median(caWindows(r).map((w) => w.incPerRtt));
    const ratios = lossBackoffs(r).map((b) => b.ratio);
    summary('veno/150KB', r, `increase per RTT ${fmt(inc)}`);
    // Backlog N = cwnd (RTT - base)/RTT >> beta = 3 packets all the time here.
    expect(inc).toBeGreaterThan(0.35);
    expect(inc).toBeLessThan(0.7);
    expect(ratios.length).toBeGreaterThanOrEqual(1);
    expect(median(ratios)).toBeGreaterThan(0.45);
    expect(median(ratios)).toBeLessThan(0.55);
  }, 60_000);

  it('illinois: additive increase shrinks as queueing delay grows (alpha 10 -> 0.3)', { timeout: 60_000, retry: 2 }, async () => {
    const r = await transfer('illinois', SMALL_BUF, 14);
    expectUsedAndSane(r, 'ccb_illinois');
    const w = caWindows(r).filter((x) => x.cwndMean >= 15); // below win_thresh it is Reno
    // Lowest vs highest third of queueing delay (alpha: ~0.6 at half the max delay, 0.3 at it).
    const byDelay = [...w].sort((a, b) => a.srttMeanUs - b.srttMeanUs);
    const third = Math.floor(byDelay.length / 3);
    const low = median(byDelay.slice(0, third).map((x) => x.incPerRtt));
    const high = median(byDelay.slice(-third).map((x) => x.incPerRtt));
    summary('illinois/150KB', r, `increase per RTT at lower delay ${fmt(low)}, at higher delay ${fmt(high)}`);
    expect(w.length).toBeGreaterThanOrEqual(8);
    // Concave: slower as the queue fills. Linux's alpha curve gives ~1.3x between these thirds
    // here (alpha 0.46 at ~0.65 of the max delay, 0.36 at ~0.85); measured 0.42-0.50 vs 0.36,
    // so 1.1x (a Reno-like flat increase gives 1.0x).
    expect(low).toBeGreaterThan(high * 1.1);
    expect(high).toBeLessThan(0.6); // Reno: 1.0
    expect(low).toBeLessThan(0.9); // the queue is never below ~30% of its max here
  });

  // Whether the queue counts as "low delay" depends on the largest delay Illinois has seen in
  // this short transfer, which varies with the machine's scheduling: two retries.
  // Below win_thresh (15 packets) Illinois is plain Reno (beta 1/2), so only back-offs from
  // windows clear of it are judged. At 1% loss the window sat at 14-15 packets (median back-off
  // 0.53-0.60 over all back-offs, 3 attempts failing in one run): 0.5% keeps it above.
  it('illinois: under random loss at low delay backs off by ~1/8-1/4, not 1/2 like Reno', { timeout: 90_000, retry: 2 }, async () => {
    const rr = await transfer('reno', LARGE_BUF, 8, 0.005);
    expectUsedAndSane(rr, 'reno');
    const ri = await transfer('illinois', LARGE_BUF, 8, 0.005);
    expectUsedAndSane(ri, 'ccb_illinois');
    const renoRatio = median(lossBackoffs(rr).map((b) => b.ratio));
    const aboveThresh = lossBackoffs(ri).filter((b) => b.cwndBefore >= ILLINOIS_WIN_THRESH + 3);
    const illRatio = median(aboveThresh.map((b) => b.ratio));
    const renoCwnd = median(rr.samples.map((s) => s.cwnd));
    const illCwnd = median(ri.samples.map((s) => s.cwnd));
    summary('reno/300KB/0.5% loss', rr, `median cwnd ${renoCwnd}`);
    summary('illinois/300KB/0.5% loss', ri, `median cwnd ${illCwnd}, ${aboveThresh.length} back-offs from >= ${ILLINOIS_WIN_THRESH + 3} packets, median ratio ${fmt(illRatio)}`);
    expect(lossBackoffs(ri).length).toBeGreaterThanOrEqual(20);
    expect(aboveThresh.length).toBeGreaterThanOrEqual(8);
    expect(renoRatio).toBeLessThan(0.55);
    // beta well below 1/2 while delay < 80% of max: 0.79-0.83 in most attempts here, 0.64 in one
    // where host jitter made the small queueing delay look large against its maximum.
    expect(illRatio).toBeGreaterThan(0.6);
    expect(illRatio - renoRatio).toBeGreaterThan(0.1);
    expect(illCwnd).toBeGreaterThan(renoCwnd);
  });

  it('htcp: the increase per RTT grows with the time since the last back-off', async () => {
    const r = await transfer('htcp', LARGE_BUF, 18);
    expectUsedAndSane(r, 'ccb_htcp');
    const w = caWindows(r);
    const early = median(w.filter((x) => x.sinceBackoffUs < 2_000_000).map((x) => x.incPerRtt));
    const late = median(w.filter((x) => x.sinceBackoffUs > 3_500_000 && Number.isFinite(x.sinceBackoffUs)).map((x) => x.incPerRtt));
    const ratios = lossBackoffs(r).map((b) => b.ratio);
    summary('htcp/300KB', r, `increase per RTT <2 s after back-off ${fmt(early)}, >3.5 s after ${fmt(late)}`);
    // Delta <= 1 s: Reno; then 1 + 10(D-1) + ((D-1)/2)^2, scaled by minRTT/100 ms (x0.1).
    expect(early).toBeGreaterThan(0.7);
    expect(early).toBeLessThan(1.4);
    expect(late).toBeGreaterThan(2 * early);
    // minRTT < 10 ms: no adaptive back-off, beta = 0.5.
    expect(median(ratios)).toBeGreaterThan(0.45);
    expect(median(ratios)).toBeLessThan(0.55);
  }, 90_000);

  it('bic: fast binary search after a loss, then a plateau near the last maximum; beta 0.8', async () => {
    const r = await transfer('bic', LARGE_BUF, 16);
    expectUsedAndSane(r, 'ccb_bic');
    const w = caWindows(r);
    const early = median(w.filter((x) => x.sinceBackoffUs < 350_000).map((x) => x.incPerRtt));
    const plateau = median(w.filter((x) => x.sinceBackoffUs > 1_000_000 && x.sinceBackoffUs < 4_000_000).map((x) => x.incPerRtt));
    const ratios = lossBackoffs(r).map((b) => b.ratio);
    summary('bic/300KB', r, `increase per RTT right after back-off ${fmt(early)}, on the plateau ${fmt(plateau)}`);
    expect(ratios.length).toBeGreaterThanOrEqual(2);
    expect(median(ratios)).toBeGreaterThan(0.75); // 819/1024
    expect(median(ratios)).toBeLessThan(0.85);
    expect(early).toBeGreaterThan(2); // (W_max - cwnd)/4 per RTT, up to 16
    expect(plateau).toBeLessThan(0.7); // S_min: +1 per 5 RTTs, delayed-ACK compensated
    expect(early).toBeGreaterThan(4 * plateau);
  }, 90_000);

  it('highspeed: above 118 packets backs off by b(w) = 0.41 (table row 2) and grows faster than Reno', async () => {
    // HSTCP moves along its AIMD table only in congestion avoidance (as Linux does), so a loss
    // met in slow start (after a timeout) backs off by the row its last avoidance left (0.5 with
    // none yet), not by the row of the window it reached: only back-offs entered from avoidance
    // read row 2. One more transfer when a noisy run had none.
    const rowTwo = (r: BulkResult): Backoff[] =>
      lossBackoffs(r).filter((x) => x.cwndBefore > 118 && x.cwndBefore <= 221 && enteredFromAvoidance(r, x));
    let r = await transfer('highspeed', LARGE_BUF, 14);
    if (rowTwo(r).length === 0) r = await transfer('highspeed', LARGE_BUF, 14);
    expectUsedAndSane(r, 'ccb_highspeed');
    const b = rowTwo(r);
    const inc = median(caWindows(r).filter((x) => x.cwndMean > 118).map((x) => x.incPerRtt));
    summary('highspeed/300KB', r, `increase per RTT above 118 ${fmt(inc)}; back-offs ${b.map((x) => fmt(x.ratio, 3)).join(' ')}`);
    expect(b.length).toBeGreaterThanOrEqual(1);
    // ssthresh = cwnd - cwnd * 104/256 = 0.594 cwnd (Reno 0.5)
    expect(median(b.map((x) => x.ratio))).toBeGreaterThan(0.57);
    expect(median(b.map((x) => x.ratio))).toBeLessThan(0.62);
    // a(w) = 3 per ACK'd round of cwnd ACKs; with delayed ACKs (2 packets/ACK) ~1.5 (Linux counts per ACK)
    expect(inc).toBeGreaterThan(1.2);
    expect(inc).toBeLessThan(2.2);
  }, 90_000);

  it('scalable: +1 per 100 packets acked above cwnd 100 (1%/RTT) and a back-off by 1/8', async () => {
    const r = await transfer('scalable', LARGE_BUF, 10);
    expectUsedAndSane(r, 'ccb_scalable');
    const perAck = median(caWindows(r).filter((x) => x.cwndMean >= 110).map((x) => x.incPerAck));
    const ratios = lossBackoffs(r).map((b) => b.ratio);
    summary('scalable/300KB', r, `increase per packet acked above 110 ${fmt(perAck, 4)}`);
    expect(perAck).toBeGreaterThan(0.008); // Reno at cwnd 150-200: 0.005-0.0067
    expect(perAck).toBeLessThan(0.012);
    expect(ratios.length).toBeGreaterThanOrEqual(3);
    expect(median(ratios)).toBeGreaterThan(0.85);
    expect(median(ratios)).toBeLessThan(0.9);
  }, 60_000);

  it('yeah: drains the queue without a loss once it exceeds 80 packets (precautionary decongestion)', async () => {
    const r = await transfer('yeah', LARGE_BUF, 10);
    expectUsedAndSane(r, 'ccb_yeah');
    const firstRetransUs = r.samples.find((s) => s.totalRetrans > 0)?.tUs ?? Infinity;
    const decongest = findBackoffs(r.samples).filter((b) => b.kind === 'no-loss' && b.tUs < firstRetransUs && b.cwndBefore > 80);
    summary('yeah/300KB', r, `decongestions ${decongest.map((b) => `${b.cwndBefore}->${b.cwndAfter}@${fmt(b.tUs / 1e6)}s`).join(' ')}`);
    expect(decongest.length).toBeGreaterThanOrEqual(1);
    for (const d of decongest) {
      expect(d.cwndAfter).toBeLessThanOrEqual(d.cwndBefore * 0.75); // cwnd -= min(queue, cwnd/2)
      expect(Math.abs(d.ssthreshAfter - d.cwndAfter)).toBeLessThanOrEqual(2); // ssthresh = cwnd
    }
    // Reno never reduces without a loss or ECN.
    if (reno.small) expect(findBackoffs(reno.small.samples).filter((b) => b.kind === 'no-loss')).toHaveLength(0);
  }, 60_000);

  it('unregisters only when no namespace default and no socket uses it', async () => {
    // Prefer a controller this run registered; one registered before it is never unregistered here.
    const ours = BPF_CCAS.filter((n) => !preRegistered.has(`ccb_${n}`));
    const name: BpfCcaName = ours[0] ?? 'scalable';
    const kernelName = `ccb_${name}`;
    await setNamespaceCca(NS.server, name, stack);
    let r = await unregisterIfUnused(name);
    expect(r.unregistered).toBe(false);
    expect(r.reason).toMatch(/^(default of namespace|in use by ccbrowse)/); // ours, or another run's
    expect(availableCcas()).toContain(kernelName);

    // A listening socket that chose it explicitly, in a namespace that defaults to reno.
    await setNamespaceCca(NS.server, 'reno', stack);
    const listener = startProcess(bulkBinary(), ['send', '--port', '5999', '--cc', kernelName, '--seconds', '1'], { what: 'ccb-bulk listener', stack: null, netns: NS.server }).child;
    try {
      for (let i = 0; i < 100 && !(await runIn(NS.server, 'ss', ['-tlnH'])).stdout.includes(':5999'); i++) await sleep(20);
      r = await unregisterIfUnused(name);
      expect(r.unregistered).toBe(false);
      expect(r.reason).not.toBe(`default of namespace ${NS.server}`);
      if (!/^(in use by ccbrowse|default of namespace)/.test(r.reason)) {
        expect(r.reason).toBe(`used by a socket in namespace ${NS.server}`);
      }
    } finally {
      listener.kill('SIGKILL');
      await new Promise((res) => listener.once('close', res));
    }
    if (ours.length === 0) {
      console.warn(`[lab-cca] every controller was registered before this run: not testing the final unregister`);
      return;
    }
    r = await unregisterIfUnused(name);
    if (!r.unregistered) {
      // Another ccbrowse run uses it right now: it must be them, never us.
      expect(r.reason).not.toContain(NS.server);
      console.warn(`[lab-cca] ${kernelName} kept: ${r.reason}`);
      return;
    }
    expect(r).toEqual({ unregistered: true, reason: 'unregistered' });
    expect(availableCcas()).not.toContain(kernelName);
    // Idempotent, and a later user simply registers it again.
    expect((await unregisterIfUnused(name)).unregistered).toBe(false);
    await ensureRegistered(name, stack);
    expect(availableCcas()).toContain(kernelName);
  }, 60_000);

  it('cleans up: namespaces gone, every controller it registered unregistered, others kept', async () => {
    await setNamespaceCca(NS.server, 'vegas', stack); // one still in use as a default at unwind time
    const failures = await stack.unwind();
    expect(failures).toEqual([]);
    const left = (await run('ip', ['netns', 'list'])).stdout;
    for (const ns of Object.values(NS)) expect(left).not.toContain(ns);
    for (const name of BPF_CCAS) {
      const k = `ccb_${name}`;
      if (preRegistered.has(k)) continue; // registered before this run: its fate is not ours to decide
      if (availableCcas().includes(k)) {
        // Kept only because another ccbrowse run or namespace uses it now, never for us.
        const u = await ccaUsage(name);
        expect(u.processes).not.toContain(process.pid);
        expect(u.processes.length + u.namespaces.length + u.socketNamespaces.length).toBeGreaterThan(0);
        expect(u.namespaces.join(' ')).not.toContain(P);
      }
    }
    expect(left).not.toContain(P);
  }, 120_000);
});
