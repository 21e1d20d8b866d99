/**
 * Everything a run creates on the machine, described as data so that the same undo
 * works in the live process (cleanup stack) and in a later process (the reaper).
 */
import { readFileSync } from 'node:fs';
import { run, sleep } from '../util/exec.js';

export type Resource =
  | { kind: 'netns'; name: string }
  | { kind: 'link'; name: string; netns?: string }
  | { kind: 'process'; pid: number; startTime: string; what: string }
  | { kind: 'iptables'; binary: 'iptables' | 'ip6tables'; netns?: string; table: string; rule: string[] }
  | { kind: 'file'; path: string }
  | { kind: 'bpf-struct-ops'; name: string };

export function describe(r: Resource): string {
  switch (r.kind) {
    case 'netns': return `namespace ${r.name}`;
    case 'link': return `link ${r.name}${r.netns ? ` in ${r.netns}` : ''}`;
    case 'process': return `process ${r.pid} (${r.what})`;
    case 'iptables': return `${r.binary} rule -t ${r.table} ${r.rule.join(' ')}${r.netns ? ` in ${r.netns}` : ''}`;
    case 'file': return `file ${r.path}`;
    case 'bpf-struct-ops': return `BPF congestion control ${r.name}`;
  }
}

/** Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat), or undefined. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}

/** True when `pid` is still the very process we recorded (not a recycled pid). */
export function isSameProcess(pid: number, startTime: string): boolean {
  return processStartTime(pid) === startTime;
}

async function stopProcess(pid: number, startTime: string): Promise<void> {
  if (!isSameProcess(pid, startTime)) return;
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  for (let i = 0; i < 40; i++) {
    await sleep(50);
    if (!isSameProcess(pid, startTime)) return;
  }
  if (isSameProcess(pid, startTime)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    for (let i = 0; i < 20 && isSameProcess(pid, startTime); i++) await sleep(50);
  }
}

type Undo<K extends Resource['kind']> = (r: Extract<Resource, { kind: K }>) => Promise<void>;
const registered: { [K in Resource['kind']]?: Undo<K> } = {};

/**
 * The undo of a kind of resource that a higher layer owns (a BPF controller the lab
 * registered is undone by the lab's bookkeeping, src/lab/resources.ts): net/ does not import
 * the lab; whoever reaps or unwinds imports the module that registers it.
 */
export function registerUndo<K extends Resource['kind']>(kind: K, undoIt: Undo<K>): void {
  (registered as Record<string, unknown>)[kind] = undoIt;
}

/** Removes one resource; missing resources are not an error (idempotent). */
export async function undo(r: Resource): Promise<void> {
  switch (r.kind) {
    case 'netns':
      await run('ip', ['netns', 'del', r.name], { allowFailure: true });
      return;
    case 'link': {
      const args = r.netns ? ['-n', r.netns, 'link', 'del', r.name] : ['link', 'del', r.name];
      await run('ip', args, { allowFailure: true });
      return;
    }
    case 'process':
      await stopProcess(r.pid, r.startTime);
      return;
    case 'iptables': {
      const cmd = [r.binary, '-w', '-t', r.table, '-D', ...r.rule];
      if (r.netns) await run('ip', ['netns', 'exec', r.netns, ...cmd], { allowFailure: true });
      else await run(cmd[0], cmd.slice(1), { allowFailure: true });
      return;
    }
    case 'file':
      await run('rm', ['-rf', '--', r.path], { allowFailure: true });
      return;
    case 'bpf-struct-ops': {
      // Shared across runs and labs: unregistered only when nothing else uses it, which the
      // lab's bookkeeping knows (src/lab/resources.ts registers that undo).
      const undoIt = registered['bpf-struct-ops'];
      if (!undoIt) throw new Error('no undo registered for BPF controllers in this process (import src/lab/resources.ts)');
      await undoIt(r);
      return;
    }
  }
}
