/**
 * Loads the per-connection class picker (native/flowclass) and attaches it to both of
 * the shaper's veths. The two programs come from one object loaded once with bpftool, so
 * they share the flow map: a connection's data and its ACKs get the same class number,
 * each in its own qdisc. Pinned under /sys/fs/bpf/ccb-<run>/ (registered for cleanup).
 */
import { existsSync } from 'node:fs';
import { buildPath } from '../util/paths.js';
import { run } from '../util/exec.js';
import { MissingPrerequisiteError } from '../util/errors.js';
import type { CleanupStack } from '../net/cleanup.js';

/** Must match native/flowclass/ccb_flowclass.bpf.c. */
export const FIRST_FLOW_CLASS = 0x100;
export const DEFAULT_CLASS = 0x2;
export const SHARED_CLASS = 0x3;

export function flowClassObject(): string {
  const path = buildPath('bpf', 'ccb_flowclass.bpf.o');
  if (!existsSync(path)) {
    throw new MissingPrerequisiteError(`the per-flow class picker is not built (${path} missing)`, 'run ./setup.sh');
  }
  return path;
}

export async function ensureBpffs(): Promise<void> {
  const r = await run('mountpoint', ['-q', '/sys/fs/bpf'], { allowFailure: true });
  if (r.code !== 0) await run('mount', ['-t', 'bpf', 'bpf', '/sys/fs/bpf']);
}

export interface FlowClassifier {
  pinDir: string;
  /** How many flows have been given a class so far. */
  flowsSeen(): Promise<number>;
  /**
   * A kept bottleneck's next probe: flows seen before count as unseen from now on (a reused
   * 5-tuple gets a class in turn, not its old one, which a new flow may hold).
   */
  nextGeneration(): Promise<void>;
}

/**
 * `slots` = number of per-flow classes prepared (0 = shared mode: every flow to SHARED_CLASS).
 * Attach happens through nsenter (network namespace only) so tc sees the host's bpffs;
 * `ip netns exec` would remount /sys and hide the pinned programs.
 */
export async function attachFlowClassifier(stack: CleanupStack, opts: {
  runId: string; netns: string; toClientDev: string; toServerDev: string; slots: number;
}): Promise<FlowClassifier> {
  const obj = flowClassObject();
  await ensureBpffs();
  const pinDir = `/sys/fs/bpf/ccb-${opts.runId}`;
  stack.push({ kind: 'file', path: pinDir });
  await run('mkdir', ['-p', pinDir]);
  await run('bpftool', ['prog', 'loadall', obj, pinDir, 'type', 'classifier', 'pinmaps', `${pinDir}/maps`]);
  const state = `${pinDir}/maps/ccb_state`;
  await run('bpftool', ['map', 'update', 'pinned', state, 'key', ...le32(1), 'value', ...le32(opts.slots)]);
  const nsPath = `/run/netns/${opts.netns}`;
  for (const [dev, prog] of [[opts.toClientDev, 'to_client'], [opts.toServerDev, 'to_server']] as const) {
    await run('nsenter', [`--net=${nsPath}`, 'tc', 'filter', 'add', 'dev', dev, 'parent', '1:', 'bpf', 'da',
      'object-pinned', `${pinDir}/${prog}`, 'classid', '1:0']);
  }
  let generation = 0;
  return {
    pinDir,
    async nextGeneration() {
      generation = (generation + 1) & 0xffff; // the program keeps 16 bits of it
      await run('bpftool', ['map', 'update', 'pinned', state, 'key', ...le32(2), 'value', ...le32(generation)]);
    },
    async flowsSeen() {
      const r = await run('bpftool', ['-j', 'map', 'lookup', 'pinned', state, 'key', ...le32(0)], { allowFailure: true });
      if (r.code !== 0) return 0;
      const parsed = JSON.parse(r.stdout) as { value: number | string[] };
      return typeof parsed.value === 'number' ? parsed.value : parseInt(parsed.value.slice().reverse().join('').replace(/0x/g, ''), 16);
    },
  };
}

function le32(n: number): string[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].map(String);
}
