/**
 * How a region's TCP origins send: the kernel stack's details real servers differ in, applied
 * to an origin's namespace before its server starts (src/lab/config.ts `sender`).
 *  - initcwnd: the default route's initial congestion window (Linux: 10 segments; CDNs often
 *    raise it), which sets how hard slow start opens;
 *  - tso: segmentation offload on the origin's link, so the stack hands over multi-segment
 *    packets that leave back to back once segmented downstream (TSO-like bursts);
 *  - pacing: the kernel's internal TCP pacing, through an LD_PRELOAD shim that sets
 *    SO_MAX_PACING_RATE on accepted sockets (native/pacing; this kernel has no fq qdisc).
 */
import { accessSync, constants } from 'node:fs';
import { run } from '../util/exec.js';
import { MissingPrerequisiteError } from '../util/errors.js';
import { buildPath } from '../util/paths.js';
import type { RegionPath } from './network.js';

export async function applySenderOptions(ns: string, gateway: string, sender: RegionPath['sender']): Promise<void> {
  if (sender.initcwnd !== null) {
    await run('ip', ['-n', ns, 'route', 'replace', 'default', 'via', gateway, 'initcwnd', String(sender.initcwnd)]);
  }
  if (sender.tso) {
    // Only the origin's own end: the router's side keeps its offloads off, so the burst is cut
    // into wire-sized packets on its way (and the captures never see super-packets).
    await run('ip', ['netns', 'exec', ns, 'ethtool', '-K', 'eth0', 'tso', 'on', 'gso', 'on', 'sg', 'on', 'tx', 'on']);
  }
}

/** Path of the pacing shim, checked to exist (built by setup: make -C native/pacing). */
export function pacingPreload(): string {
  const path = buildPath('native', 'ccb-pace.so');
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new MissingPrerequisiteError(`the pacing shim is not built (no ${path})`, 'run ./setup.sh (it runs `make -C native/pacing`)');
  }
  return path;
}
