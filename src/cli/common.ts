import { reap } from '../net/reaper.js';
import { MissingPrerequisiteError } from '../util/errors.js';

/** Commands that touch the network need root; say so before anything half-starts. */
export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new MissingPrerequisiteError(`${what} needs root (network namespaces, tc, tcpdump)`,
      'run it as root, e.g. `sudo npx ccbrowse ...`; `ccbrowse doctor` lists what else is needed');
  }
}

/** Every command that creates resources first removes what killed runs left behind. */
export async function reapLeftovers(log: (m: string) => void = (m) => process.stderr.write(m + '\n')): Promise<void> {
  const r = await reap();
  if (r.ownersReaped.length > 0) log(`reaper: removed leftovers of ${r.ownersReaped.length} killed run(s) (${r.resourcesRemoved.length} resources)`);
}
