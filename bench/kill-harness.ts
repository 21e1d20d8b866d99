/**
 * The kill harness: starts `ccbrowse run`, `probe` and `lab up` and stops each at a random
 * moment, as a user or a supervisor would: SIGINT to the process group (a terminal's Ctrl-C),
 * SIGTERM to the process, or SIGKILL to the process followed by the next start's reaper. After
 * each it counts what the project left behind: namespaces, links, iptables rules, tc qdiscs,
 * BPF pins, processes and owner records, and checks every run directory is still readable
 * (`analyze` for a run, `classify` for a probe). Target: 0 left (docs/benchmarks/kill-harness.md).
 *
 * Only what its own processes made is counted (other engineers' labs and runs share the
 * machine): every command runs with a private CCB_STATE_DIR (so owner records and lab state
 * are its own), every resource an owner record ever listed is remembered (the records are
 * polled while the command runs), and processes are found by a token in their environment.
 *
 *   npx tsx bench/kill-harness.ts [--interrupts 50] [--seed 1] [--commands run,probe,probe-h3,lab-up] [--kinds sigint,sigterm,sigkill] [--json]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRng } from '../src/util/random.js';
import { nodeModuleCommand } from '../src/util/node-script.js';
import { repoRoot } from '../src/util/paths.js';
import type { Resource } from '../src/net/resources.js';

export type Kind = 'sigint' | 'sigterm' | 'sigkill';
export type CommandName = 'run' | 'probe' | 'probe-h3' | 'lab-up';

export interface Leftovers {
  namespaces: string[];
  links: string[];
  iptables: string[];
  tc: string[];
  bpfPins: string[];
  processes: string[];
  ownerRecords: string[];
  files: string[];
}

export interface InterruptResult {
  command: CommandName;
  kind: Kind;
  /** Seconds after the start at which the signal was sent. */
  atSeconds: number;
  /** How the command ended: its exit code, or the signal that ended it (SIGKILL; a SIGINT before its handler was in place). */
  exitCode: number | null;
  endSignal: string | null;
  /** Seconds from the signal to the process's exit. */
  exitSeconds: number;
  /** Whether it had already finished on its own before the signal. */
  finishedBefore: boolean;
  left: Leftovers;
  /** Run or probe directories it made, and those `analyze`/`classify` could not read. */
  dirs: number;
  unreadableDirs: string[];
}

export interface HarnessOptions {
  interrupts: number;
  seed: number;
  commands: CommandName[];
  kinds: Kind[];
  /** Random moment windows per command, seconds after the start [from, to]. */
  windows?: Partial<Record<CommandName, [number, number]>>;
  log?: (m: string) => void;
}

const DEFAULT_WINDOWS: Record<CommandName, [number, number]> = {
  // ~45 s in all with the 1.5 Mbit/s profile: topology, browser start, the ~3 MB page, activity.
  run: [0.5, 40],
  // ~2 MB at 1.5 Mbit/s: ~11 s of transfer after ~3 s of set-up.
  probe: [0.3, 14],
  'probe-h3': [0.3, 16],
  // A two-origin lab with a delayed region starts in ~5-15 s.
  'lab-up': [0.3, 14],
};

const BASE_LAB = 'kh-base';
const UP_LAB = 'kh-up';

function labConfigs(dir: string): { base: string; up: string } {
  const base = join(dir, 'kh-base.json');
  const up = join(dir, 'kh-up.json');
  // Kernel controllers and quinn only: no BPF controller is registered that others' labs may share.
  writeFileSync(base, JSON.stringify({
    name: BASE_LAB,
    origins: [
      { name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' },
      { name: 'img', hosts: ['img.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'cubic' },
      { name: 'tcp-cubic', hosts: ['cubic.tcp.lab.ccb.test'], cca: 'cubic' },
      { name: 'quinn-cubic', hosts: ['cubic.quinn.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'cubic' },
    ],
    regions: [{ name: 'local', rttMs: 0 }],
  }));
  writeFileSync(up, JSON.stringify({
    name: UP_LAB,
    origins: [
      { name: 'www', hosts: ['www.lab.ccb.test'], cca: 'reno' },
      { name: 'quinn-cubic', hosts: ['cubic.quinn.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'cubic' },
    ],
    // A delayed region: the lab's own delay line runs too.
    regions: [{ name: 'r1', rttMs: 20, jitterMs: 1 }],
  }));
  return { base, up };
}

class Harness {
  readonly work: string;
  readonly stateDir: string;
  readonly token = randomBytes(6).toString('hex');
  readonly env: NodeJS.ProcessEnv;
  readonly configs: { base: string; up: string };
  private readonly cli = nodeModuleCommand('cli/main.ts');
  private baseProcesses = new Set<number>();

  constructor(readonly log: (m: string) => void) {
    this.work = resolve(repoRoot(), 'build', 'kill-harness', `${Date.now()}-${this.token}`);
    this.stateDir = `/run/ccbrowse-kh-${this.token}`;
    mkdirSync(this.work, { recursive: true });
    this.env = { ...process.env, CCB_STATE_DIR: this.stateDir, CCB_KILL_HARNESS: this.token };
    this.configs = labConfigs(this.work);
  }

  /** Runs a ccbrowse command to its end (the harness's own set-up and the next starts). */
  ccb(args: string[], timeoutMs = 300_000): { code: number | null; out: string; err: string } {
    const r = spawnSync(this.cli[0], [...this.cli.slice(1), ...args], { env: this.env, encoding: 'utf8', timeout: timeoutMs, cwd: repoRoot() });
    return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
  }

  async setUp(): Promise<void> {
    this.log(`state ${this.stateDir}, work ${this.work}; starting lab ${BASE_LAB}`);
    const r = this.ccb(['lab', 'up', '--config', this.configs.base, '--quiet']);
    if (r.code !== 0) throw new Error(`lab ${BASE_LAB} did not start (exit ${r.code}): ${r.err}`);
    this.baseProcesses = new Set(tokenProcesses(this.token).map((p) => p.pid));
  }

  tearDown(): void {
    this.ccb(['lab', 'down', '--lab', BASE_LAB, '--quiet']);
    this.ccb(['lab', 'down', '--lab', UP_LAB, '--quiet']);
    this.ccb(['reap', '--quiet']);
    rmSync(this.stateDir, { recursive: true, force: true });
  }

  argsFor(command: CommandName, out: string): string[] {
    switch (command) {
      case 'run': return ['run', 'scenarios/lab/static.ts', '--lab', BASE_LAB, '--profile', 'video', '--out', out];
      case 'probe': return ['probe', 'https://cubic.tcp.lab.ccb.test/bytes/2000000', '--lab', BASE_LAB, '--profile', 'video', '--out', out];
      case 'probe-h3': return ['probe', 'https://cubic.quinn.lab.ccb.test/bytes/2000000', '--lab', BASE_LAB, '--profile', 'video', '--out', out];
      case 'lab-up': return ['lab', 'up', '--config', this.configs.up];
    }
  }

  async interrupt(command: CommandName, kind: Kind, atSeconds: number, index: number): Promise<InterruptResult> {
    const out = join(this.work, `${String(index).padStart(3, '0')}-${command}-${kind}`);
    mkdirSync(out, { recursive: true });
    const nsBefore = new Set(listNamespaces());
    const recordsBefore = new Set(ownerFiles(this.stateDir));
    const seen = new Map<string, Resource>();
    const ids = new Set<string>();
    const child = spawn(this.cli[0], [...this.cli.slice(1), ...this.argsFor(command, out)], {
      env: this.env, cwd: repoRoot(), detached: true, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
    let endSignal: string | null = null;
    const exited = new Promise<number | null>((r) => child.on('exit', (code, sig) => { endSignal = sig; r(code); }));
    let done = false;
    void exited.then(() => { done = true; });
    const poll = setInterval(() => this.collect(seen, ids, recordsBefore), 100);
    const t0 = Date.now();
    while (!done && Date.now() - t0 < atSeconds * 1000) await sleep(20);
    const finishedBefore = done;
    this.collect(seen, ids, recordsBefore);
    const tSignal = Date.now();
    if (!done) {
      if (kind === 'sigint') process.kill(-child.pid!, 'SIGINT');
      else if (kind === 'sigterm') process.kill(child.pid!, 'SIGTERM');
      else process.kill(child.pid!, 'SIGKILL');
    }
    // An interrupted command has 150 s to remove what it made (its own watchdog fires at 120 s).
    const code = await Promise.race([exited, sleep(150_000).then(() => 'hung' as const)]);
    clearInterval(poll);
    this.collect(seen, ids, recordsBefore);
    const exitSeconds = (Date.now() - tSignal) / 1000;
    writeFileSync(join(out, 'stderr.txt'), stderr);
    if (code === 'hung') {
      this.log(`  ${command} did not exit 150 s after ${kind}; killing it\n${stderr.slice(-2000)}`);
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
      await exited;
    }
    if (kind === 'sigkill' && !finishedBefore) {
      // The next start: every command reaps dead owners first. A killed `lab up` left a live
      // supervisor: the next `lab up` finds (or waits for) it, and `lab down` stops it.
      if (command === 'lab-up') {
        this.ccb(['lab', 'up', '--config', this.configs.up, '--quiet']);
        this.ccb(['lab', 'down', '--lab', UP_LAB, '--quiet']);
      } else {
        this.ccb(['reap', '--quiet']);
      }
    } else if (command === 'lab-up' && (finishedBefore || code === 0)) {
      // It came up before the signal reached it: a lab that is up is not a leftover; stop it.
      this.ccb(['lab', 'down', '--lab', UP_LAB, '--quiet']);
    }
    const left = this.leftovers(seen, ids, nsBefore, recordsBefore);
    const { dirs, unreadable } = this.checkDirs(command, out);
    // A clean slate for the next interrupt (after counting: SIGINT and SIGTERM are judged without a reaper).
    this.ccb(['reap', '--quiet']);
    return {
      command, kind, atSeconds, exitCode: code === 'hung' ? null : code, endSignal, exitSeconds, finishedBefore,
      left, dirs, unreadableDirs: unreadable,
    };
  }

  /** Remembers every resource any owner record of ours lists now. */
  private collect(seen: Map<string, Resource>, ids: Set<string>, recordsBefore: Set<string>): void {
    const dir = join(this.stateDir, 'owners');
    const files = ownerFiles(this.stateDir).filter((f) => !recordsBefore.has(f));
    const base = readLabId(this.stateDir, BASE_LAB);
    for (const f of files) {
      if (base && f === `lab-${base}.json`) continue; // the harness's own lab, up throughout
      try {
        const rec = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { ownerId: string; resources: Resource[] };
        for (const id of /[0-9a-f]{4,6}/g.exec(rec.ownerId) ?? []) ids.add(id);
        for (const r of rec.resources) seen.set(JSON.stringify(r), r);
      } catch { /* mid-write */ }
    }
  }

  private leftovers(seen: Map<string, Resource>, ids: Set<string>, nsBefore: Set<string>, recordsBefore: Set<string>): Leftovers {
    const ns = listNamespaces();
    const left: Leftovers = { namespaces: [], links: [], iptables: [], tc: [], bpfPins: [], processes: [], ownerRecords: [], files: [] };
    const baseLab = readLabId(this.stateDir, BASE_LAB);
    const recorded = [...seen.values()];
    const nsOf = (r: Resource) => ('netns' in r ? r.netns : undefined);
    for (const r of recorded) {
      if (r.kind === 'netns' && ns.includes(r.name) && !(baseLab && r.name.startsWith(`ccb-lab-${baseLab}-`))) left.namespaces.push(r.name);
      if (r.kind === 'link' && linkExists(r.name, nsOf(r))) left.links.push(`${r.name}${r.netns ? `@${r.netns}` : ''}`);
      if (r.kind === 'iptables' && iptablesRuleExists(r)) left.iptables.push(`${r.table} ${r.rule.join(' ')}${r.netns ? `@${r.netns}` : ''}`);
      if (r.kind === 'file' && existsSync(r.path)) left.files.push(r.path);
      if (r.kind === 'process' && sameProcess(r.pid, r.startTime)) left.processes.push(`${r.pid} ${r.what}`);
    }
    // Namespaces made since the start whose name carries one of our ids, recorded or not.
    for (const n of ns) {
      if (nsBefore.has(n) || left.namespaces.includes(n)) continue;
      if ([...ids].some((id) => n.includes(id)) && !(baseLab && n.includes(baseLab))) left.namespaces.push(n);
    }
    for (const n of left.namespaces) {
      const q = spawnSync('tc', ['-n', n, 'qdisc', 'show'], { encoding: 'utf8' }).stdout ?? '';
      for (const l of q.split('\n')) if (/qdisc (htb|bfifo|pfifo|netem|clsact|ingress)/.test(l)) left.tc.push(`${n}: ${l.trim()}`);
    }
    try {
      for (const p of readdirSync('/sys/fs/bpf')) if (p.startsWith('ccb') && [...ids].some((id) => p.includes(id))) left.bpfPins.push(p);
    } catch { /* no bpffs */ }
    for (const p of tokenProcesses(this.token)) {
      if (this.baseProcesses.has(p.pid)) continue;
      const line = `${p.pid} ${p.comm}`;
      if (!left.processes.some((x) => x.startsWith(`${p.pid} `))) left.processes.push(line);
    }
    for (const f of ownerFiles(this.stateDir)) {
      if (!recordsBefore.has(f) && !(baseLab && f === `lab-${baseLab}.json`)) left.ownerRecords.push(f);
    }
    return left;
  }

  /** Run directories must stay readable by `analyze`, probe directories by `classify`. */
  private checkDirs(command: CommandName, out: string): { dirs: number; unreadable: string[] } {
    if (command === 'lab-up') return { dirs: 0, unreadable: [] };
    const unreadable: string[] = [];
    let dirs = 0;
    for (const d of readdirSync(out, { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      dirs++;
      const dir = join(out, d.name);
      if (command === 'run') {
        const r = this.ccb(['analyze', dir, '--json', '--store', join(this.work, 'analyze.sqlite')]);
        if (r.code !== 0) unreadable.push(`${dir}: analyze exit ${r.code}: ${r.err.trim().split('\n').slice(-2).join(' ')}`);
      } else {
        let probe: { status?: string };
        try { probe = JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8')) as { status?: string }; } catch (err) {
          unreadable.push(`${dir}: probe.json: ${(err as Error).message}`);
          continue;
        }
        if (!existsSync(join(dir, 'capture.pcap'))) continue; // stopped before its capture began: probe.json says so
        const r = this.ccb(['classify', dir, '--json']);
        if (r.code !== 0 && r.code !== 1) unreadable.push(`${dir} (${probe.status}): classify exit ${r.code}: ${r.err.trim().split('\n').slice(-2).join(' ')}`);
      }
    }
    return { dirs, unreadable };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function listNamespaces(): string[] {
  const out = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  return out.split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
}

function linkExists(name: string, netns?: string): boolean {
  if (netns && !listNamespaces().includes(netns)) return false;
  const args = netns ? ['-n', netns, 'link', 'show', name] : ['link', 'show', name];
  return spawnSync('ip', args, { encoding: 'utf8' }).status === 0;
}

function iptablesRuleExists(r: Extract<Resource, { kind: 'iptables' }>): boolean {
  if (r.netns && !listNamespaces().includes(r.netns)) return false;
  const cmd = [r.binary, '-w', '-t', r.table, '-C', ...r.rule];
  const res = r.netns ? spawnSync('ip', ['netns', 'exec', r.netns, ...cmd]) : spawnSync(cmd[0], cmd.slice(1));
  return res.status === 0;
}

function sameProcess(pid: number, startTime: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] === startTime;
  } catch {
    return false;
  }
}

/** Processes whose environment carries our token: everything our commands started, at any depth. */
function tokenProcesses(token: string): { pid: number; comm: string }[] {
  const needle = `CCB_KILL_HARNESS=${token}`;
  const out: { pid: number; comm: string }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${d}/environ`, 'latin1');
      if (!env.includes(needle)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie holds nothing
      out.push({ pid: Number(d), comm: readFileSync(`/proc/${d}/comm`, 'utf8').trim() });
    } catch { /* gone */ }
  }
  return out;
}

function ownerFiles(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'owners')).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
}

function readLabId(stateDir: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(stateDir, 'lab', `${name}.json`), 'utf8')) as { labId: string }).labId;
  } catch {
    return undefined;
  }
}

/** The plan: commands and kinds in turn, each at a seeded random moment of its window. */
export function plan(o: HarnessOptions): { command: CommandName; kind: Kind; atSeconds: number }[] {
  const rng = createRng(o.seed);
  const windows = { ...DEFAULT_WINDOWS, ...o.windows };
  const out: { command: CommandName; kind: Kind; atSeconds: number }[] = [];
  for (let i = 0; i < o.interrupts; i++) {
    const command = o.commands[i % o.commands.length];
    const kind = o.kinds[Math.floor(i / o.commands.length) % o.kinds.length];
    const [lo, hi] = windows[command];
    out.push({ command, kind, atSeconds: Number(rng.uniform(lo, hi).toFixed(2)) });
  }
  return out;
}

export async function runKillHarness(o: HarnessOptions): Promise<InterruptResult[]> {
  const log = o.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const h = new Harness(log);
  const results: InterruptResult[] = [];
  // Ctrl-C of the harness: finish the interrupt in progress, then stop its lab and reap.
  let stop = false;
  const onStop = () => { stop = true; log('stopping after this interrupt'); };
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  try {
    await h.setUp();
    for (const [i, p] of plan(o).entries()) {
      if (stop) break;
      const r = await h.interrupt(p.command, p.kind, p.atSeconds, i);
      results.push(r);
      log(`[${i + 1}/${o.interrupts}] ${p.command} ${p.kind} at ${p.atSeconds} s: ${r.finishedBefore ? 'had finished' : `${r.exitCode !== null ? `exit ${r.exitCode}` : r.endSignal} after ${r.exitSeconds.toFixed(1)} s`}; ` +
        `left ${total(r.left)}${total(r.left) ? ` ${summary(r.left)}` : ''}; dirs ${r.dirs}, unreadable ${r.unreadableDirs.length}${r.unreadableDirs.length ? ` ${r.unreadableDirs.join('; ').slice(0, 400)}` : ''}`);
    }
  } finally {
    h.tearDown();
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
  }
  return results;
}

export function total(l: Leftovers): number {
  return Object.values(l).reduce((n, v: string[]) => n + v.length, 0);
}

/** "namespaces 3 (ccb-1a2b3c-cli, ...), tc 40 (...)": counts with the first few names. */
function summary(l: Leftovers): string {
  return Object.entries(l).filter(([, v]) => (v as string[]).length)
    .map(([k, v]) => `${k} ${(v as string[]).length} (${(v as string[]).slice(0, 3).join(', ')}${(v as string[]).length > 3 ? ', ...' : ''})`).join('; ');
}

/** The closing table: interrupt kind x command x what was left. */
export function table(results: InterruptResult[]): string {
  const kinds: Kind[] = ['sigint', 'sigterm', 'sigkill'];
  const label: Record<Kind, string> = { sigint: 'SIGINT to the group', sigterm: 'SIGTERM', sigkill: 'SIGKILL + next start' };
  const rows = ['| interrupt | command | interrupts | exit codes | namespaces | links | iptables | tc | BPF pins | processes | owner records | files | dirs (unreadable) |',
    '| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const kind of kinds) {
    for (const command of [...new Set(results.map((r) => r.command))]) {
      const rs = results.filter((r) => r.kind === kind && r.command === command);
      if (rs.length === 0) continue;
      const sum = (k: keyof Leftovers) => rs.reduce((n, r) => n + r.left[k].length, 0);
      const codes = [...new Set(rs.map((r) => (r.finishedBefore ? 'finished first' : r.exitCode ?? r.endSignal ?? 'hung')))].join(', ');
      rows.push(`| ${label[kind]} | ${command} | ${rs.length} | ${codes} | ${sum('namespaces')} | ${sum('links')} | ${sum('iptables')} | ${sum('tc')} | ${sum('bpfPins')} | ${sum('processes')} | ${sum('ownerRecords')} | ${sum('files')} | ${rs.reduce((n, r) => n + r.dirs, 0)} (${rs.reduce((n, r) => n + r.unreadableDirs.length, 0)}) |`);
    }
  }
  const left = results.reduce((n, r) => n + total(r.left), 0);
  const unreadable = results.reduce((n, r) => n + r.unreadableDirs.length, 0);
  rows.push('', `${results.length} interrupts: ${left} resource(s) left, ${unreadable} unreadable run directorie(s)`);
  return rows.join('\n');
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const o: HarnessOptions = {
    interrupts: Number(arg('--interrupts') ?? 50),
    seed: Number(arg('--seed') ?? 1),
    commands: (arg('--commands') ?? 'run,probe,probe-h3,lab-up').split(',') as CommandName[],
    kinds: (arg('--kinds') ?? 'sigint,sigterm,sigkill').split(',') as Kind[],
  };
  const results = await runKillHarness(o);
  if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
  else console.log(table(results));
  process.exitCode = results.some((r) => total(r.left) > 0 || r.unreadableDirs.length > 0) ? 1 : 0;
}
