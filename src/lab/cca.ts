/**
 * The lab's congestion controllers: the kernel's built-in ones (reno, cubic, bbr) and
 * the rest written as BPF struct_ops (src/lab/bpf/*.bpf.c, built by `make -C src/lab/bpf`
 * into build/bpf/): 13 the lab trains on and 5 open-set strangers. Ground truth for the classifier: an origin namespace made to use
 * `ccb_vegas` really sends with Vegas.
 *
 * Registration is shared machine state (one `ccb_vegas` for every namespace), so:
 *  - every ccbrowse process that uses a BPF controller is listed in
 *    <state dir>/cca-users/<name>.json (pid + start time, so a dead or recycled pid does
 *    not count), together with whether ccbrowse registered it at all;
 *  - a controller is unregistered only by `unregisterIfUnused`, and only if ccbrowse
 *    registered it, no live ccbrowse process uses it, no named network namespace (nor the
 *    initial one) has it as its default, and no socket shown by `ss` uses it;
 *  - all of this happens under a lock directory, so two runs cannot race.
 * The kernel keeps a controller alive while a socket or a namespace default refers to it
 * (measured: unregistering only removes the name), so the checks protect names, not
 * memory: after an early unregister, setsockopt/sysctl by name would fail.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, runIn, sleep } from '../util/exec.js';
import { BadInputError, CcbError, MissingPrerequisiteError } from '../util/errors.js';
import { stateDir, type CleanupStack } from '../net/cleanup.js';
import { processStartTime, type Resource } from '../net/resources.js';
import { repoRoot } from '../util/paths.js';

export const KERNEL_CCAS = ['reno', 'cubic', 'bbr'] as const;
/** BPF controllers the lab trains and benchmarks on (the default and training labs serve them). */
export const TRAINED_BPF_CCAS = [
  'vegas', 'westwood', 'htcp', 'bic', 'illinois', 'veno', 'highspeed', 'scalable', 'yeah',
  'bbr2', 'bbr3', 'fast', 'copa',
] as const;
/**
 * The open set: BPF controllers no class is trained on (labs/open-set.ts serves them), so
 * "a controller nobody trained on is Unknown or its right family" is measured on real strangers.
 */
export const OPEN_SET_CCAS = ['hybla', 'cdg', 'lp', 'nv', 'dctcp'] as const;
export const BPF_CCAS = [...TRAINED_BPF_CCAS, ...OPEN_SET_CCAS] as const;
export type KernelCcaName = (typeof KERNEL_CCAS)[number];
export type BpfCcaName = (typeof BPF_CCAS)[number];
export type LabCcaName = KernelCcaName | BpfCcaName;

/** Prefix of the BPF controllers' kernel names, so they never clash with a module. */
export const BPF_PREFIX = 'ccb_';

export interface LabCca {
  /** Short name used by the lab ("vegas"). */
  name: LabCcaName;
  kind: 'kernel' | 'bpf';
  /** Name the kernel knows (sysctl, TCP_CONGESTION, ss): "reno" or "ccb_vegas". */
  kernelName: string;
  /** Compiled struct_ops object (BPF only). */
  objectPath?: string;
  /** One line: what it does and where it comes from. */
  description: string;
}

const DESCRIPTIONS: Record<LabCcaName, string> = {
  reno: 'NewReno (RFC 5681/6582), kernel built-in',
  cubic: 'CUBIC (RFC 9438), kernel built-in',
  bbr: 'BBRv1 (Cardwell et al. 2016), kernel built-in',
  vegas: 'Vegas (Brakmo & Peterson 1995): keeps 2-4 own packets queued, delay-based',
  westwood: 'Westwood+ (Mascolo et al. 2001; Grieco & Mascolo 2004): ssthresh = bandwidth estimate x min RTT after loss',
  htcp: 'H-TCP (Leith & Shorten 2004): increase grows with time since the last back-off',
  bic: 'BIC (Xu, Harfoush & Rhee 2004): binary search towards the last maximum, beta 0.8',
  illinois: 'TCP-Illinois (Liu, Basar & Srikant 2008): delay sets the AIMD alpha/beta, loss triggers',
  veno: 'Veno (Fu & Liew 2003): Vegas backlog estimate tells random from congestive loss',
  highspeed: 'HighSpeed TCP (RFC 3649): AIMD parameters from a window-indexed table',
  scalable: 'Scalable TCP (Kelly 2003): +1% per RTT, back-off by 1/8',
  yeah: 'YeAH-TCP (Baiocchi, Castellani & Vacirca 2007): Scalable/Reno modes, precautionary decongestion',
  bbr2: 'BBRv2 (Cardwell et al., IETF/ICCRG 2019-2022; google/bbr v2alpha constants): loss/ECN-bounded model, ProbeRTT every ~5 s at half the BDP',
  bbr3: 'BBRv3 (draft-ietf-ccwg-bbr; google/bbr v3 constants): BBRv2 with v3 gains (Startup 2.77/2.0, DOWN 0.91, UP cwnd 2.25) and plateau-ended probes',
  fast: 'AkamaiCC-like: FAST TCP (Wei, Jin, Low & Hegde 2006): window toward base/RTT x w + alpha, a fixed number of own packets queued',
  copa: 'Copa (Arun & Balakrishnan 2018), default mode: target rate 1/(delta x queueing delay), velocity, oscillation every ~5 RTTs',
  hybla: 'Hybla (Caini & Firrincieli 2004): Reno growth scaled by (RTT/25 ms)^2 in slow start, (RTT/25 ms)^2 per RTT after (open set)',
  cdg: 'CDG (Hayes & Armitage 2011): backs off with probability 1 - e^(-gradient/G) when the RTT gradient rises (open set)',
  lp: 'TCP-LP (Kuzmanovic & Knightly 2003): low priority, halves and waits when one-way delay exceeds 15% of its range (open set)',
  nv: 'TCP-NV (Brakmo 2015): delay-based, keeps 4-10 packets queued, shrinks cwnd proportionally to the excess (open set)',
  dctcp: 'DCTCP (RFC 8257) without ECN marks: Reno on loss with alpha = 1, i.e. halving (open set)',
};

/** Where `make -C src/lab/bpf` puts the objects (override: CCB_BPF_DIR). */
export function bpfBuildDir(): string {
  return process.env.CCB_BPF_DIR ?? join(repoRoot(), 'build', 'bpf');
}

/** Source directory of the BPF controllers (for `make -C`). */
export function bpfSourceDir(): string {
  return join(repoRoot(), 'src', 'lab', 'bpf');
}

export function listLabCcas(): LabCca[] {
  return [
    ...KERNEL_CCAS.map((name): LabCca => ({ name, kind: 'kernel', kernelName: name, description: DESCRIPTIONS[name] })),
    ...BPF_CCAS.map((name): LabCca => ({
      name, kind: 'bpf', kernelName: BPF_PREFIX + name, objectPath: join(bpfBuildDir(), `${name}.bpf.o`), description: DESCRIPTIONS[name],
    })),
  ];
}

/** Looks a controller up by lab name ("vegas") or kernel name ("ccb_vegas"). */
export function labCca(name: string): LabCca {
  const found = listLabCcas().find((c) => c.name === name || c.kernelName === name);
  if (!found) {
    throw new BadInputError(
      `unknown lab congestion controller "${name}"`,
      `use one of: ${listLabCcas().map((c) => c.name).join(', ')}`,
    );
  }
  return found;
}

function readWords(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** Controllers the kernel knows right now (all namespaces share this list). */
export function availableCcas(): string[] {
  return readWords('/proc/sys/net/ipv4/tcp_available_congestion_control');
}

/** Controllers an unprivileged socket or a non-initial namespace may select. */
export function allowedCcas(): string[] {
  return readWords('/proc/sys/net/ipv4/tcp_allowed_congestion_control');
}

// ---------------------------------------------------------------------------------------
// Users file and lock

interface ProcessRef { pid: number; startTime: string }
interface UsersFile {
  schema: 1;
  kernelName: string;
  /** True when a ccbrowse process registered it (only then may ccbrowse unregister it). */
  registeredByCcbrowse: boolean;
  registeredBy?: ProcessRef;
  users: ProcessRef[];
}

export function ccaUsersDir(): string {
  return join(stateDir(), 'cca-users');
}

function usersPath(kernelName: string): string {
  return join(ccaUsersDir(), `${kernelName}.json`);
}

function readUsers(kernelName: string): UsersFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(usersPath(kernelName), 'utf8')) as UsersFile;
    if (parsed.schema !== 1 || !Array.isArray(parsed.users)) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

function writeUsers(file: UsersFile): void {
  mkdirSync(ccaUsersDir(), { recursive: true });
  const path = usersPath(file.kernelName);
  writeFileSync(`${path}.tmp`, JSON.stringify(file, null, 1));
  renameSync(`${path}.tmp`, path);
}

function self(): ProcessRef {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? '' };
}

function alive(p: ProcessRef): boolean {
  return processStartTime(p.pid) === p.startTime;
}

/** mkdir is atomic: the lock is a directory holding its owner's pid. Stale locks (dead
 * owner, or older than 60 s) are broken. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(ccaUsersDir(), { recursive: true });
  const lock = join(ccaUsersDir(), '.lock');
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'owner'), JSON.stringify(self()));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let stale = false;
      try {
        const owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as ProcessRef;
        stale = !alive(owner);
      } catch {
        // owner file not written yet: only stale if the directory is old
      }
      try {
        if (Date.now() - statSync(lock).mtimeMs > 60_000) stale = true;
      } catch {
        continue; // lock vanished: retry at once
      }
      if (stale) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new CcbError(`timed out waiting for the controller lock ${lock}`, 'another ccbrowse run holds it; if none is running, remove that directory');
      }
      await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------
// Registration

/** Controllers whose cleanup this process has already put on each stack. */
const cleanupPushed = new WeakMap<CleanupStack, Set<string>>();
function pushedOn(stack: CleanupStack): Set<string> {
  let set = cleanupPushed.get(stack);
  if (!set) cleanupPushed.set(stack, (set = new Set()));
  return set;
}

/** Namespaces this process pointed at a controller, with what they had before. */
const namespacesSetHere = new Map<string, { kernelName: string; previous: string }>();

async function bpftool(args: string[]) {
  try {
    return await run('bpftool', args, { allowFailure: true, timeoutMs: 30_000 });
  } catch (err) {
    throw new MissingPrerequisiteError(`bpftool is not usable: ${(err as Error).message}`, 'install bpftool (apt-get install bpftool) and run as root');
  }
}

/**
 * Makes a lab controller available to sockets and namespaces. Kernel ones only need to
 * exist; BPF ones are registered with `bpftool struct_ops register` unless the kernel
 * already lists them. This process is recorded as a user either way. When it registers
 * the controller itself and a cleanup stack is given, the registration is pushed as
 * {kind: 'bpf-struct-ops', name} whose in-process undo is `unregisterIfUnused` (switching
 * back the namespaces this process pointed at it first).
 */
export async function ensureRegistered(name: string, stack?: CleanupStack): Promise<LabCca> {
  const cca = labCca(name);
  if (cca.kind === 'kernel') {
    if (!availableCcas().includes(cca.kernelName)) {
      throw new MissingPrerequisiteError(`the kernel has no ${cca.kernelName} congestion control`, `load it (modprobe tcp_${cca.kernelName}) or pick another`);
    }
    return cca;
  }
  if (process.getuid?.() !== 0) {
    throw new MissingPrerequisiteError(`registering ${cca.kernelName} needs root`, 'run as root (BPF struct_ops registration needs CAP_BPF and CAP_NET_ADMIN)');
  }
  const obj = cca.objectPath!;
  await withLock(async () => {
    const file = readUsers(cca.kernelName);
    const registered = availableCcas().includes(cca.kernelName);
    const me = self();
    const users = (file?.users ?? []).filter((u) => alive(u) && u.pid !== me.pid);
    users.push(me);
    if (registered) {
      // Someone else registered it: use it, never claim it. Without a users file it was
      // not ccbrowse, and it must never be unregistered by us.
      const byCcbrowse = file?.registeredByCcbrowse ?? false;
      writeUsers({ schema: 1, kernelName: cca.kernelName, registeredByCcbrowse: byCcbrowse, registeredBy: file?.registeredBy, users });
      if (byCcbrowse && stack && !pushedOn(stack).has(cca.kernelName)) {
        // The last ccbrowse user unregisters it. Recorded as a marker file, not as
        // 'bpf-struct-ops': if this process is killed, the reaper only deletes the marker
        // (the reaper's undo of 'bpf-struct-ops' does not check for other users).
        pushedOn(stack).add(cca.kernelName);
        const marker = join(ccaUsersDir(), `${cca.kernelName}.${process.pid}.user`);
        writeFileSync(marker, `${JSON.stringify(me)}\n`);
        stack.push({ kind: 'file', path: marker }, async () => {
          rmSync(marker, { force: true });
          await restoreNamespaces(cca.kernelName);
          await unregisterIfUnused(cca.kernelName);
        });
      }
      return;
    }
    if (!existsSync(obj)) {
      throw new MissingPrerequisiteError(`BPF object ${obj} is missing`, `build it: make -C ${bpfSourceDir()}`);
    }
    writeUsers({ schema: 1, kernelName: cca.kernelName, registeredByCcbrowse: true, registeredBy: me, users });
    // Pushed before it exists (the stack's rule): a crash right after still gets undone.
    const resource: Resource = { kind: 'bpf-struct-ops', name: cca.kernelName };
    if (stack) pushedOn(stack).add(cca.kernelName);
    stack?.push(resource, async () => {
      await restoreNamespaces(cca.kernelName);
      await unregisterIfUnused(cca.kernelName);
    });
    const res = await bpftool(['struct_ops', 'register', obj]);
    if (!availableCcas().includes(cca.kernelName)) {
      throw new CcbError(
        `could not register ${cca.kernelName}: ${(res.stderr || res.stdout).trim().split('\n').slice(-3).join(' / ')}`,
        `check the kernel supports BPF struct_ops (CONFIG_BPF_JIT, BTF) and rebuild: make -C ${bpfSourceDir()}`,
      );
    }
  });
  return cca;
}

export interface UnregisterResult {
  unregistered: boolean;
  /** Why it was kept (or "unregistered"). */
  reason: string;
}

interface NamespaceView { ns: string; defaultCca: string; sockets: string }

/** The default controller and the `ss -tina` output of the initial namespace and every
 * named one (`ip netns list`). Namespaces that vanish meanwhile are skipped. */
async function namespaceViews(): Promise<NamespaceView[]> {
  const views: NamespaceView[] = [];
  const script = 'cat /proc/sys/net/ipv4/tcp_congestion_control; echo ---; ss -tinaH 2>/dev/null';
  const parse = (ns: string, out: string) => {
    const [head, ...rest] = out.split('---\n');
    views.push({ ns, defaultCca: head.trim(), sockets: rest.join('---\n') });
  };
  parse('(initial namespace)', (await run('sh', ['-c', script], { allowFailure: true })).stdout);
  const list = await run('ip', ['netns', 'list'], { allowFailure: true });
  const names = list.stdout.split('\n').map((l) => l.trim().split(/\s+/)[0]).filter(Boolean);
  for (const ns of names) {
    const r = await runIn(ns, 'sh', ['-c', script], { allowFailure: true });
    if (r.code === 0) parse(ns, r.stdout);
  }
  return views;
}

/** Who still uses a controller: live ccbrowse processes, namespace defaults, sockets. */
export async function ccaUsage(name: string): Promise<{ processes: number[]; namespaces: string[]; socketNamespaces: string[] }> {
  const cca = labCca(name);
  const file = readUsers(cca.kernelName);
  const word = new RegExp(`(^|\\s)${cca.kernelName}(\\s|$)`, 'm');
  const views = await namespaceViews();
  return {
    processes: (file?.users ?? []).filter(alive).map((u) => u.pid),
    namespaces: views.filter((v) => v.defaultCca === cca.kernelName).map((v) => v.ns),
    socketNamespaces: views.filter((v) => word.test(v.sockets)).map((v) => v.ns),
  };
}

/**
 * Drops this process from the controller's users, then unregisters it only if ccbrowse
 * registered it and nothing uses it any more (see the module comment). Safe to call any
 * number of times; kernel built-ins are never touched.
 */
export async function unregisterIfUnused(name: string): Promise<UnregisterResult> {
  const cca = labCca(name);
  if (cca.kind === 'kernel') return { unregistered: false, reason: 'kernel built-in' };
  return withLock(async () => {
    const file = readUsers(cca.kernelName);
    const me = process.pid;
    const users = (file?.users ?? []).filter((u) => u.pid !== me && alive(u));
    if (!availableCcas().includes(cca.kernelName)) {
      rmSync(usersPath(cca.kernelName), { force: true });
      return { unregistered: false, reason: 'not registered' };
    }
    if (!file?.registeredByCcbrowse) {
      if (file) writeUsers({ ...file, users });
      return { unregistered: false, reason: 'registered outside ccbrowse: left alone' };
    }
    writeUsers({ ...file, users });
    if (users.length > 0) return { unregistered: false, reason: `in use by ccbrowse process(es) ${users.map((u) => u.pid).join(', ')}` };
    const word = new RegExp(`(^|\\s)${cca.kernelName}(\\s|$)`, 'm');
    for (const v of await namespaceViews()) {
      if (v.defaultCca === cca.kernelName) return { unregistered: false, reason: `default of namespace ${v.ns}` };
      if (word.test(v.sockets)) return { unregistered: false, reason: `used by a socket in namespace ${v.ns}` };
    }
    const res = await bpftool(['struct_ops', 'unregister', 'name', cca.kernelName]);
    if (availableCcas().includes(cca.kernelName)) {
      return { unregistered: false, reason: `bpftool could not unregister it: ${(res.stderr || res.stdout).trim()}` };
    }
    rmSync(usersPath(cca.kernelName), { force: true });
    return { unregistered: true, reason: 'unregistered' };
  });
}

/** Points the namespaces this process set to `kernelName` back to what they had. */
async function restoreNamespaces(kernelName: string): Promise<void> {
  for (const [ns, entry] of [...namespacesSetHere]) {
    if (entry.kernelName !== kernelName) continue;
    namespacesSetHere.delete(ns);
    const r = await runIn(ns, 'cat', ['/proc/sys/net/ipv4/tcp_congestion_control'], { allowFailure: true });
    if (r.code !== 0 || r.stdout.trim() !== kernelName) continue; // gone, or changed by someone
    const back = allowedCcas().includes(entry.previous) && entry.previous !== kernelName ? entry.previous : 'reno';
    await runIn(ns, 'sysctl', ['-qw', `net.ipv4.tcp_congestion_control=${back}`], { allowFailure: true });
  }
}

/**
 * Makes `name` the default congestion control of network namespace `ns` (new sockets
 * there use it). BPF controllers are registered first (recorded on `stack`). Refuses a
 * controller outside tcp_allowed_congestion_control rather than letting the kernel
 * refuse it: for a BPF controller that refusal leaks a reference (measured).
 * Returns the previous default.
 */
export async function setNamespaceCca(ns: string, name: string, stack?: CleanupStack): Promise<{ previous: string }> {
  const cca = await ensureRegistered(name, stack);
  if (!allowedCcas().includes(cca.kernelName)) {
    const fix = cca.kind === 'kernel'
      ? `allow it for namespaces: sysctl -w net.ipv4.tcp_allowed_congestion_control="${[...allowedCcas(), cca.kernelName].join(' ')}" (or set it per socket with TCP_CONGESTION as root)`
      : `rebuild the BPF object: its struct must set .flags = TCP_CONG_NON_RESTRICTED (make -C ${bpfSourceDir()})`;
    throw new MissingPrerequisiteError(`namespaces may not select ${cca.kernelName} (not in net.ipv4.tcp_allowed_congestion_control)`, fix);
  }
  const before = await runIn(ns, 'cat', ['/proc/sys/net/ipv4/tcp_congestion_control'], { allowFailure: true });
  if (before.code !== 0) throw new BadInputError(`network namespace ${ns} does not exist`, 'create it first (ip netns add)');
  const previous = before.stdout.trim();
  await runIn(ns, 'sysctl', ['-qw', `net.ipv4.tcp_congestion_control=${cca.kernelName}`]);
  const after = (await runIn(ns, 'cat', ['/proc/sys/net/ipv4/tcp_congestion_control'])).stdout.trim();
  if (after !== cca.kernelName) throw new CcbError(`namespace ${ns} still uses ${after} after setting ${cca.kernelName}`);
  const earlier = namespacesSetHere.get(ns);
  namespacesSetHere.set(ns, { kernelName: cca.kernelName, previous: earlier?.previous ?? previous });
  return { previous };
}
