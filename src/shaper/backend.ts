/**
 * Which delay backend this kernel supports: netem where it exists (most distro kernels),
 * otherwise the userspace NFQUEUE delay line. Probed once per process in a throw-away
 * namespace, never on the host's own interfaces.
 */
import { randomBytes } from 'node:crypto';
import { run } from '../util/exec.js';

export type DelayBackend = 'netem' | 'nfqueue';

let cached: Promise<{ netem: boolean; ifb: boolean }> | undefined;

export function probeKernelQdiscs(): Promise<{ netem: boolean; ifb: boolean }> {
  cached ??= (async () => {
    const ns = `ccb-probe-${randomBytes(3).toString('hex')}`;
    try {
      await run('ip', ['netns', 'add', ns]);
      await run('ip', ['-n', ns, 'link', 'add', 'd0', 'type', 'veth', 'peer', 'name', 'd1']);
      const netem = (await run('tc', ['-n', ns, 'qdisc', 'add', 'dev', 'd0', 'root', 'netem', 'delay', '1ms'], { allowFailure: true })).code === 0;
      const ifb = (await run('ip', ['-n', ns, 'link', 'add', 'i0', 'type', 'ifb'], { allowFailure: true })).code === 0;
      return { netem, ifb };
    } catch {
      return { netem: false, ifb: false };
    } finally {
      await run('ip', ['netns', 'del', ns], { allowFailure: true });
    }
  })();
  return cached;
}

/** A probe's answer found elsewhere (the doctor tries netem and IFB in its own namespace): not probed again. */
export function rememberKernelQdiscs(found: { netem: boolean; ifb: boolean }): void {
  cached ??= Promise.resolve(found);
}

/** CCB_DELAY_BACKEND=nfqueue|netem forces a backend (e.g. to compare them). */
export async function chooseDelayBackend(): Promise<DelayBackend> {
  const forced = process.env.CCB_DELAY_BACKEND;
  if (forced === 'nfqueue' || forced === 'netem') return forced;
  const k = await probeKernelQdiscs();
  return k.netem && k.ifb ? 'netem' : 'nfqueue';
}
