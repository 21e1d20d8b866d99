/**
 * The one cancellation path of a ccbrowse process. SIGINT and SIGTERM abort a single
 * AbortController; every long step (topology, capture, browser activity, probe, lab start,
 * training) takes its signal and stops at its next check. Nothing here unwinds anything:
 * the step that made a cleanup stack unwinds it in its own `finally` (net/cleanup.ts), and
 * the command line exits only once that is done (cli/main.ts). A second Ctrl-C only says
 * what is still being removed; SIGKILL is the reaper's business.
 */
import { CcbError, ExitCode, type ExitCodeValue } from './errors.js';

export type InterruptSignalName = 'SIGINT' | 'SIGTERM';

/** The reason of an interrupted process's signal, and what an interrupted step throws. */
export class InterruptedError extends CcbError {
  constructor(readonly signalName: InterruptSignalName) {
    super(`interrupted by ${signalName}`, undefined, exitCodeOf(signalName));
    this.name = 'InterruptedError';
  }
}

function exitCodeOf(signal: InterruptSignalName): ExitCodeValue {
  return signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated;
}

let controller: AbortController | undefined;
let signalsSeen = 0;
const listeners = new Set<(signal: InterruptSignalName, count: number) => void>();

function onSignal(signal: NodeJS.Signals): void {
  signalsSeen++;
  const name = signal as InterruptSignalName;
  if (!controller!.signal.aborted) controller!.abort(new InterruptedError(name));
  for (const l of listeners) l(name, signalsSeen);
}

/**
 * The process's interrupt signal. The first call installs the SIGINT/SIGTERM handlers (from
 * then on a signal no longer ends the process by itself: whoever owns work must stop it).
 */
export function interruptSignal(): AbortSignal {
  if (!controller) {
    controller = new AbortController();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return controller.signal;
}

/**
 * Called at every SIGINT/SIGTERM with how many have come so far (messages, watchdogs), once
 * the process handles its signals (interruptSignal() was called: the CLI, the lab supervisor).
 * Registering installs nothing: a library user (a test) keeps the default signal behaviour.
 */
export function onInterrupt(listener: (signal: InterruptSignalName, count: number) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether this process handles SIGINT/SIGTERM itself (the CLI and the lab supervisor do). */
export function handlesInterrupts(): boolean {
  return controller !== undefined;
}

/** The InterruptedError of an aborted signal (or a generic one for a signal aborted otherwise). */
export function interruptReason(signal: AbortSignal): InterruptedError {
  return signal.reason instanceof InterruptedError ? signal.reason : new InterruptedError('SIGINT');
}

/** Throws the signal's InterruptedError if it was aborted: the check between two steps. */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw interruptReason(signal);
}

/** True for an InterruptedError or the AbortError a DOM-style API throws on abort. */
export function isInterruption(err: unknown): boolean {
  return err instanceof InterruptedError || (err instanceof Error && err.name === 'AbortError');
}

/** Waits `ms`, or less when the signal aborts (then throws its InterruptedError). */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interruptReason(signal));
    const onAbort = () => { clearTimeout(timer); reject(interruptReason(signal!)); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves as `promise` does, or rejects with the InterruptedError when the signal aborts first. */
export function unlessInterrupted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // no longer awaited: its later failure (a closed page) is nobody's error
    return Promise.reject(interruptReason(signal));
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(interruptReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}
