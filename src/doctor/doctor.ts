/**
 * `ccbrowse doctor`: what this machine can do, with a fix for each missing piece, and
 * which shaper backend a run will use. Every probe is harmless: kernel features are tried
 * in a throw-away namespace, never on the host's interfaces.
 */
import { constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { access } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { run } from '../util/exec.js';
import { buildPath, userCacheDir } from '../util/paths.js';
import { chooseDelayBackend, rememberKernelQdiscs } from '../shaper/backend.js';
import type { HostStalls } from '../shaper/host-stalls.js';

const HOST_STALL_SAMPLE_MS = 2000;
/** Late wake-ups (> 1 ms) above this share make the host line a note. */
const HOST_STALL_OK_FRACTION = 0.01;

export interface DoctorItem {
  name: string;
  ok: boolean;
  /** Present but not required (e.g. netem: the delay line replaces it). */
  optional?: boolean;
  detail: string;
  fix?: string;
}

export interface DoctorReport {
  schemaVersion: 1;
  items: DoctorItem[];
  delayBackend: 'netem' | 'nfqueue';
  ready: boolean;
}

const CHROMIUM = '/usr/lib/chromium/chromium';

/** The command's path on PATH, read from the file system (no shell to start). */
async function which(cmd: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin').split(':')) {
    const p = `${dir || '.'}/${cmd}`;
    try { await access(p, constants.X_OK); return p; } catch { /* next */ }
  }
  return undefined;
}

function hasCapNetAdmin(): boolean {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const eff = /CapEff:\s*([0-9a-f]+)/.exec(status)?.[1] ?? '0';
    return (BigInt(`0x${eff}`) & (1n << 12n)) !== 0n; // CAP_NET_ADMIN = 12
  } catch {
    return false;
  }
}

interface NamespaceProbe { netns: boolean; htb: boolean; clsBpf: boolean; nfqueue: boolean; netem: boolean; ifb: boolean }
const NOTHING: NamespaceProbe = { netns: false, htb: false, clsBpf: false, nfqueue: false, netem: false, ifb: false };

/**
 * Tries kernel features inside one throw-away namespace, the independent ones at once (the
 * doctor's time is these short commands: one namespace, not one per probe, and no chain
 * longer than it must be).
 */
async function probeInNamespace(): Promise<NamespaceProbe> {
  const ns = `ccb-doctor-${randomBytes(3).toString('hex')}`;
  const out = { ...NOTHING };
  const works = (cmd: string, args: string[]) => run(cmd, args, { allowFailure: true }).then((r) => r.code === 0);
  try {
    out.netns = await works('ip', ['netns', 'add', ns]);
    if (!out.netns) return out;
    await run('ip', ['-n', ns, 'link', 'add', 'd0', 'type', 'veth', 'peer', 'name', 'd1']);
    const obj = buildPath('bpf', 'ccb_flowclass.bpf.o');
    await Promise.all([
      (async () => {
        out.htb = await works('tc', ['-n', ns, 'qdisc', 'add', 'dev', 'd0', 'root', 'handle', '1:', 'htb', 'default', '2']);
        if (out.htb && existsSync(obj)) {
          out.clsBpf = await works('tc', ['-n', ns, 'filter', 'add', 'dev', 'd0', 'parent', '1:', 'bpf', 'da', 'obj', obj,
            'sec', 'classifier/to_client', 'classid', '1:0']);
        }
      })(),
      // What the shaper's backend choice probes (shaper/backend.ts), on the veth's other end.
      works('tc', ['-n', ns, 'qdisc', 'add', 'dev', 'd1', 'root', 'netem', 'delay', '1ms']).then((ok) => { out.netem = ok; }),
      works('ip', ['-n', ns, 'link', 'add', 'i0', 'type', 'ifb']).then((ok) => { out.ifb = ok; }),
      works('ip', ['netns', 'exec', ns, 'iptables', '-w', '-t', 'mangle', '-A', 'FORWARD', '-j', 'NFQUEUE', '--queue-num', '0']).then((ok) => { out.nfqueue = ok; }),
    ]);
  } catch {
    /* the veth could not be made: every feature after it stays false */
  } finally {
    await run('ip', ['netns', 'del', ns], { allowFailure: true });
  }
  return out;
}

/**
 * Chromium's version: running `chromium --version` costs more than every other probe
 * together, so the answer is kept in the user's cache folder for that binary (its size and
 * modification time: an upgrade asks again).
 */
async function chromiumVersion(): Promise<string> {
  let key: string;
  try {
    const st = statSync(CHROMIUM);
    key = `${CHROMIUM} ${st.size} ${st.mtimeMs}`;
  } catch {
    return '';
  }
  const file = join(userCacheDir(), 'chromium-version.json');
  try {
    const known = JSON.parse(readFileSync(file, 'utf8')) as { key?: string; version?: string };
    if (known.key === key && known.version) return known.version;
  } catch { /* not asked yet */ }
  const version = (await run(CHROMIUM, ['--version'], { allowFailure: true, timeoutMs: 10_000 })).stdout.trim();
  if (version) {
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ key, version }) + '\n');
    } catch { /* a read-only home: ask again next time */ }
  }
  return version;
}

export interface DoctorOptions {
  /** Sample the host's own timer stalls for 2 s (off by default: the doctor answers at once). */
  hostStalls?: boolean;
}

export async function runDoctor(o: DoctorOptions = {}): Promise<DoctorReport> {
  const items: DoctorItem[] = [];
  const root = process.getuid?.() === 0;
  const netAdmin = hasCapNetAdmin();
  items.push({ name: 'root / CAP_NET_ADMIN', ok: root || netAdmin, detail: root ? 'running as root' : netAdmin ? 'CAP_NET_ADMIN held' : 'neither',
    fix: 'run ccbrowse as root (sudo npx ccbrowse ...): namespaces, tc and tcpdump need it' });
  const privileged = root || netAdmin;

  // Every probe at once: each is a few short commands in its own throw-away namespace.
  const delayBinPath = buildPath('native', 'ccb-delayline');
  const [ns, bpftool, tcpdump, chromiumVersionText, stalls] = await Promise.all([
    privileged ? probeInNamespace() : NOTHING,
    which('bpftool'),
    which('tcpdump'),
    chromiumVersion(),
    // Timing precision is bounded by the host: a VM its host deschedules stalls every timer.
    // (Loaded only then: the sampler brings its schemas and launcher.)
    o.hostStalls && privileged && existsSync(delayBinPath)
      ? import('../shaper/host-stalls.js').then((h) => h.measureHostStalls(HOST_STALL_SAMPLE_MS)).catch((): undefined => undefined)
      : Promise.resolve(null as HostStalls | undefined | null),
  ]);
  const kq = { netem: ns.netem, ifb: ns.ifb };
  if (ns.netns) rememberKernelQdiscs(kq); // the backend choice below asks no namespace again
  const flowObj = existsSync(buildPath('bpf', 'ccb_flowclass.bpf.o'));
  const delayBin = existsSync(buildPath('native', 'ccb-delayline'));
  items.push({ name: 'network namespaces', ok: ns.netns, detail: ns.netns ? 'ip netns works' : 'could not create a namespace',
    fix: 'needs root and a kernel with CONFIG_NET_NS; install iproute2 (./setup.sh)' });
  items.push({ name: 'HTB qdisc', ok: ns.htb, detail: ns.htb ? 'sch_htb available' : 'tc qdisc add ... htb failed', fix: 'load sch_htb (modprobe sch_htb) or use a kernel with CONFIG_NET_SCH_HTB' });
  items.push({ name: 'sch_netem', ok: kq.netem, optional: true, detail: kq.netem ? 'present: used for delay' : 'absent: the userspace NFQUEUE delay line is used instead',
    fix: kq.netem ? undefined : 'optional: modprobe sch_netem (package linux-modules-extra on some distros)' });
  items.push({ name: 'IFB devices', ok: kq.ifb, optional: true, detail: kq.ifb ? 'present' : 'absent (only needed with netem)', fix: 'modprobe ifb' });
  items.push({ name: 'cls_bpf (per-flow class picker)', ok: ns.clsBpf, detail: !flowObj ? 'build/bpf/ccb_flowclass.bpf.o missing' : ns.clsBpf ? 'loads and attaches' : 'attach failed',
    fix: flowObj ? 'needs CONFIG_NET_CLS_BPF and BPF support' : 'run ./setup.sh (builds the BPF object)' });
  items.push({ name: 'NFQUEUE via iptables', ok: ns.nfqueue, optional: kq.netem, detail: ns.nfqueue ? 'iptables -j NFQUEUE works' : 'iptables NFQUEUE rule refused',
    fix: 'install iptables (./setup.sh); needs CONFIG_NETFILTER_NETLINK_QUEUE' });
  items.push({ name: 'delay line binary', ok: delayBin, optional: kq.netem, detail: delayBin ? buildPath('native', 'ccb-delayline') : 'not built', fix: 'run ./setup.sh' });
  if (delayBin && privileged && stalls !== null) {
    items.push({ name: 'host scheduling (2 s sample)', optional: true,
      ok: !!stalls && stalls.lateOver1ms <= HOST_STALL_OK_FRACTION * stalls.wakeups,
      detail: stalls ? (await import('../shaper/host-stalls.js')).describeHostStalls(stalls) : 'could not sample',
      fix: 'delays and captures carry these stalls (the shaper check reports the probes they held back): ' +
        'measure on an otherwise idle machine, a VM with dedicated vCPUs, or bare metal' });
  }

  const structOps = existsSync('/sys/kernel/btf/vmlinux');
  items.push({ name: 'BPF struct_ops (lab congestion controllers)', ok: structOps && !!bpftool, optional: true,
    detail: `${structOps ? 'kernel BTF present' : 'no /sys/kernel/btf/vmlinux'}; bpftool ${bpftool ? 'found' : 'missing'}`,
    fix: 'needs a kernel with CONFIG_DEBUG_INFO_BTF and bpftool (./setup.sh); only the lab needs it' });
  const avail = (() => { try { return readFileSync('/proc/sys/net/ipv4/tcp_available_congestion_control', 'utf8').trim(); } catch { return ''; } })();
  items.push({ name: 'kernel TCP congestion control', ok: avail.length > 0, optional: true, detail: avail || 'unknown' });

  items.push({ name: 'tcpdump', ok: !!tcpdump, detail: tcpdump ?? 'not found', fix: 'apt-get install tcpdump (./setup.sh)' });
  const chromium = existsSync(CHROMIUM);
  items.push({ name: 'Chromium', ok: chromium, detail: chromium ? `${CHROMIUM} ${chromiumVersionText}` : 'not found', fix: 'apt-get install chromium (./setup.sh)' });

  const netemUsable = kq.netem && kq.ifb;
  const delayBackend = process.env.CCB_DELAY_BACKEND === 'netem' || process.env.CCB_DELAY_BACKEND === 'nfqueue'
    ? process.env.CCB_DELAY_BACKEND : (privileged ? await chooseDelayBackend() : netemUsable ? 'netem' : 'nfqueue');
  items.push({ name: 'shaper backend for runs', ok: true, detail: delayBackend === 'netem' ? 'HTB per-flow queues + netem delay (behind IFB)' : 'HTB per-flow queues + userspace NFQUEUE delay line' });
  const ready = items.every((i) => i.ok || i.optional) && (delayBackend === 'netem' || (ns.nfqueue && delayBin));
  return { schemaVersion: 1, items, delayBackend, ready };
}

export function formatDoctor(r: DoctorReport): string {
  const w = Math.max(...r.items.map((i) => i.name.length));
  const lines = r.items.map((i) => {
    const mark = i.ok ? 'ok  ' : i.optional ? 'note' : 'MISS';
    const fix = !i.ok && i.fix ? `\n${' '.repeat(w + 8)}fix: ${i.fix}` : '';
    return `[${mark}] ${i.name.padEnd(w)}  ${i.detail}${fix}`;
  });
  lines.push('', r.ready ? 'ready: ccbrowse can shape and capture on this machine' : 'NOT READY: fix the MISS lines above');
  return lines.join('\n');
}
