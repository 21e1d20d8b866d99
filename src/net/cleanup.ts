/**
 * One cleanup stack per run (like Go's defer / Python's ExitStack): every resource is
 * pushed at creation, and normal exit, an exception, SIGINT and SIGTERM unwind it in
 * reverse. The stack is mirrored in an owner record on disk so that, if the process is
 * killed outright, the reaper at the next start can undo exactly what this run made and
 * nothing else.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Stacks to unwind on a signal or a fatal error, with their loggers (several when probes run concurrently). */
const guarded = new Map<CleanupStack, (msg: string) => void>();
let exiting = false;

/** Unwinds every guarded stack at once, then exits: the first stack done must not end the others' cleanup. */
function unwindAllAndExit(code: number, headline: (stack: CleanupStack) => string): void {
  if (exiting) return; // a second Ctrl-C while cleaning up: keep cleaning
  exiting = true;
  const stacks = [...guarded];
  void Promise.allSettled(stacks.map(async ([stack, log]) => {
    log(headline(stack));
    for (const f of await stack.unwind()) log(`  could not remove ${f} (the reaper will retry at the next start)`);
  })).finally(() => process.exit(code));
}

const onSignal = (signal: NodeJS.Signals) =>
  unwindAllAndExit(signal === 'SIGINT' ? 130 : 143, (stack) => `\n${signal}: cleaning up ${stack.size} resource(s) of ${stack.ownerId}...`);
const onFatal = (err: unknown) => {
  const first = [...guarded.values()][0] ?? ((m: string) => process.stderr.write(m + '\n'));
  if (!exiting) first(`fatal: ${(err as Error)?.stack ?? String(err)}`);
  unwindAllAndExit(70, (stack) => `cleaning up ${stack.size} resource(s) of ${stack.ownerId}...`);
};

/**
 * Makes SIGINT, SIGTERM and uncaught errors unwind the stack before the process exits (all
 * guarded stacks, concurrently, and only then exit). Returns a function that stops guarding
 * this stack (call it after a normal unwind).
 */
export function unwindOnSignals(stack: CleanupStack, log: (msg: string) => void = (m) => process.stderr.write(m + '\n')): () => void {
  if (guarded.size === 0) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('uncaughtException', onFatal);
    process.on('unhandledRejection', onFatal);
  }
  guarded.set(stack, log);
  return () => {
    if (!guarded.delete(stack) || guarded.size > 0) return;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  };
}
