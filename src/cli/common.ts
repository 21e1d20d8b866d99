/**
 * What several commands share: root, the reaper, the running lab. Loaded by every command's
 * registration, so it imports nothing heavy itself: the reaper and the lab's state are loaded
 * by the commands that use them (`--help` and `classify` never do).
 */
import type { RunningLab } from '../lab/state.js';
import type { ReapReport } from '../net/reaper.js';
import { BadInputError, MissingPrerequisiteError } from '../util/errors.js';

/** Commands that touch the network need root; say so before anything half-starts. */
export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new MissingPrerequisiteError(`${what} needs root (network namespaces, tc, tcpdump)`,
      'run it as root, e.g. `sudo npx ccbrowse ...`; `ccbrowse doctor` lists what else is needed');
  }
}

/** The reaper with every kind of resource it may meet registered (`ccbrowse reap`). */
export async function reapAll(): Promise<ReapReport> {
  // The reaper undoes what the lab registered too (BPF controllers).
  await import('../lab/resources.js');
  const { reap } = await import('../net/reaper.js');
  return reap();
}

/** Every command that creates resources first removes what killed runs left behind. */
export async function reapLeftovers(log: (m: string) => void = (m) => process.stderr.write(m + '\n')): Promise<void> {
  const r = await reapAll();
  if (r.ownersReaped.length > 0) log(`reaper: removed leftovers of ${r.ownersReaped.length} killed run(s) (${r.resourcesRemoved.length} resources)`);
}

/** The running lab of that name, with that region; exit 3 with what to do when it is not there. */
export async function requireRunningLab(name: string, region?: string): Promise<RunningLab> {
  const { readRunningLab } = await import('../lab/state.js');
  const lab = readRunningLab(name);
  if (!lab) {
    throw new MissingPrerequisiteError(`lab ${name} is not running`,
      name === 'default' ? "start it with 'ccbrowse lab up'" : `start it with 'ccbrowse lab up --config <file whose name is ${name}>'`);
  }
  if (region !== undefined && !lab.regions.some((r) => r.name === region)) {
    throw new BadInputError(`lab ${name} has no region ${region}`, `its regions: ${lab.regions.map((r) => r.name).join(', ')}`);
  }
  return lab;
}

/** Indexes run directories in the results store (one SQLite file); re-ingesting replaces. */
export async function indexRuns(storePath: string, dirs: string[], say: (m: string) => void): Promise<void> {
  const { openStore, ingestRunDir } = await import('../store/index.js'); // SQLite only when a command stores
  const store = openStore(storePath);
  try {
    for (const d of dirs) {
      try { ingestRunDir(store, d); } catch (err) { say(`store: ${d} not indexed: ${(err as Error).message}`); }
    }
  } finally {
    store.close();
  }
}

/** Indexes a vote file (of `--repeat` runs) in the results store. */
export async function indexVote(storePath: string, voteFile: string, say: (m: string) => void): Promise<void> {
  const { openStore, ingestVote } = await import('../store/index.js');
  const store = openStore(storePath);
  try { ingestVote(store, voteFile); } catch (err) { say(`store: vote ${voteFile} not indexed: ${(err as Error).message}`); } finally { store.close(); }
}
