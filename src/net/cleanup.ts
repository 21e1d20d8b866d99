/**
 * One cleanup stack per run (like Go's defer / Python's ExitStack): every resource is
 * pushed at creation, and its owner unwinds it in reverse in a `finally`, whether the work
 * ended, threw or was interrupted (SIGINT/SIGTERM abort the work through util/interrupt.ts;
 * they never unwind a stack behind its owner's back). The stack is mirrored in an owner
 * record on disk so that, if the process is killed outright, the reaper at the next start
 * can undo exactly what this run made and nothing else.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../util/errors.js';
import { handlesInterrupts, interruptReason, interruptSignal, isInterruption, onInterrupt } from '../util/interrupt.js';
import { describe, processStartTime, undo, type Resource } from './resources.js';

export function stateDir(): string {
  return process.env.CCB_STATE_DIR ?? '/run/ccbrowse';
}
export function ownersDir(): string {
  return join(stateDir(), 'owners');
}

export interface OwnerRecord {
  schema: 1;
  ownerId: string;
  pid: number;
  pidStartTime: string;
  createdAt: string;
  resources: Resource[];
}

type Entry = { resource: Resource; custom?: () => Promise<void> };

export class CleanupStack {
  private readonly entries: Entry[] = [];
  private readonly recordPath: string;
  private unwound = false;
  private unwinding: Promise<string[]> | undefined;

  constructor(readonly ownerId: string) {
    mkdirSync(ownersDir(), { recursive: true });
    this.recordPath = join(ownersDir(), `${ownerId}.json`);
    this.persist();
    track(this);
  }

  /**
   * Records a resource BEFORE it is created, so a crash between creation and
   * registration cannot leak it (undo of a missing resource is a no-op).
   * `custom` replaces the generic undo in this process (e.g. to flush tcpdump first);
   * the reaper always uses the generic one.
   */
  push(resource: Resource, custom?: () => Promise<void>): void {
    if (this.unwound) throw new Error(`cleanup stack ${this.ownerId} already unwound`);
    this.entries.push({ resource, custom });
    this.persist();
  }

  /** Forget a resource that was removed early by its owner (e.g. a finished process). */
  forget(resource: Resource): void {
    const i = this.entries.findIndex((e) => e.resource === resource);
    if (i >= 0) {
      this.entries.splice(i, 1);
      this.persist();
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** True once unwinding has begun (a process that restarts itself must then stay down). */
  isUnwinding(): boolean {
    return this.unwinding !== undefined;
  }

  /**
   * Undoes everything in reverse order; returns the resources that could not be removed.
   * A second call (e.g. a signal during a normal unwind) waits for the same unwind.
   */
  unwind(): Promise<string[]> {
    this.unwinding ??= this.unwindOnce();
    return this.unwinding;
  }

  private async unwindOnce(): Promise<string[]> {
    this.unwound = true;
    try {
      return await this.undoAll();
    } finally {
      untrack(this);
    }
  }

  private async undoAll(): Promise<string[]> {
    const failures: string[] = [];
    while (this.entries.length > 0) {
      const entry = this.entries[this.entries.length - 1];
      try {
        await (entry.custom ?? (() => undo(entry.resource)))();
      } catch (err) {
        failures.push(`${describe(entry.resource)}: ${(err as Error).message}`);
      }
      // By identity: the undo may have called forget() on its own entry already.
      const i = this.entries.lastIndexOf(entry);
      if (i >= 0) this.entries.splice(i, 1);
      this.persist();
    }
    rmSync(this.recordPath, { force: true });
    return failures;
  }

  private persist(): void {
    if (this.unwound && this.entries.length === 0) return;
    if (this.unwound) {
      // While unwinding, a record that cannot be written (its folder removed, a full disk)
      // must not stop the undo of the rest: the reaper only loses a record of removed things.
      try { this.write(); } catch { /* see above */ }
      return;
    }
    this.write();
  }

  private write(): void {
    const record: OwnerRecord = {
      schema: 1,
      ownerId: this.ownerId,
      pid: process.pid,
      pidStartTime: processStartTime(process.pid) ?? '',
      createdAt: new Date().toISOString(),
      resources: this.entries.map((e) => e.resource),
    };
    const tmp = `${this.recordPath}.tmp`;
    writeFileSync(tmp, JSON.stringify(record, null, 1));
    renameSync(tmp, this.recordPath);
  }
}

/**
 * Every stack of this process not yet unwound. Each is unwound by exactly one owner: the step
 * that created it, in its own `finally`. This list serves only two fallbacks: a fatal error
 * (uncaught exception) unwinds them all before exiting, and an interrupt whose owner has not
 * finished within GRACE_MS (a step stuck where no signal reaches) has them unwound here. Both
 * call the same memoised unwind(), so a stack is still undone once.
 */
const live = new Set<CleanupStack>();
/** Longest an interrupted owner may take to stop and unwind before the watchdog does it. */
const GRACE_MS = 120_000;
let interruptWatched = false;
let fatalAttached = false;
const log = (m: string) => process.stderr.write(m + '\n');
const onFatal = (err: unknown) => {
  // After Ctrl-C, a wait nobody awaits any more may still reject with the interruption (or a
  // closed page): that is the interrupt taking effect, not a bug; the owners are unwinding.
  if (interruptSignal().aborted && (isInterruption(err) || /has been closed|Target closed/.test(String((err as Error)?.message)))) return;
  log(`fatal: ${(err as Error)?.stack || String(err)}`);
  void unwindAll(log).finally(() => process.exit(ExitCode.internal));
};

/**
 * Registers a new live stack. In a process that handles its own signals (the CLI, the lab
 * supervisor), the fatal-error handlers are attached while any stack is live; a library user
 * (a test runner) keeps its own error handling.
 */
function track(stack: CleanupStack): void {
  if (live.size === 0 && handlesInterrupts()) {
    process.on('uncaughtException', onFatal);
    process.on('unhandledRejection', onFatal);
    process.on('beforeExit', onBeforeExit);
    fatalAttached = true;
  }
  live.add(stack);
  if (!interruptWatched) {
    interruptWatched = true;
    onInterrupt(onInterruptWhileLive);
  }
}

function untrack(stack: CleanupStack): void {
  if (!live.delete(stack) || live.size > 0) return;
  if (!fatalAttached) return;
  fatalAttached = false;
  process.off('uncaughtException', onFatal);
  process.off('unhandledRejection', onFatal);
  process.off('beforeExit', onBeforeExit);
}

/**
 * Nothing left to wait for but stacks still live (an owner awaiting what never comes): undo
 * them, once (beforeExit fires again each time the loop empties).
 */
function onBeforeExit(): void {
  process.off('beforeExit', onBeforeExit);
  if (live.size) void unwindAll(log);
}

function onInterruptWhileLive(signal: string, count: number): void {
  if (live.size === 0) return;
  const left = [...live].reduce((n, s) => n + s.size, 0);
  if (count > 1) {
    log(`${signal} again: still removing ${left} resource(s) (${[...live].map((s) => s.ownerId).join(', ')}); ` +
      'the process exits once they are gone (kill -9 leaves them to the reaper at the next start)');
    return;
  }
  log(`\n${signal}: stopping; ${left} resource(s) in ${live.size} cleanup stack(s) are removed first`);
  // Unref'd: a process whose owners finished on time never waits for it.
  setTimeout(() => {
    if (live.size === 0) return;
    log(`${signal}: the interrupted work did not stop within ${GRACE_MS / 1000} s; cleaning up for it`);
    void unwindAll(log).finally(() => process.exit(interruptReason(interruptSignal()).exitCode));
  }, GRACE_MS).unref();
}

/** Unwinds every live stack of this process at once (fatal error, stuck interrupt). */
async function unwindAll(log: (m: string) => void): Promise<void> {
  await Promise.allSettled([...live].map(async (stack) => {
    for (const f of await stack.unwind()) log(`  could not remove ${f} (the reaper will retry at the next start)`);
  }));
}

/** The cleanup stacks of this process not yet unwound (tests, the CLI's final check). */
export function liveStacks(): CleanupStack[] {
  return [...live];
}
