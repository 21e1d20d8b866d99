/**
 * Looks at something that grows (a capture being written) every few seconds until a look says
 * enough or the caller stops it. Shared by `probe --stop-when-stable` (ends a download) and
 * `run --stop-when-stable` (ends a scenario's activity): the judging is theirs, the loop is one.
 * A look that throws (a capture not yet readable) is skipped: the next one tries again. Looks
 * never overlap: a slow look (a loaded host) only delays the next.
 */
import { abortableSleep } from './interrupt.js';

export interface LookLoop {
  /** Ends the loop and waits for a look in progress to finish. */
  stop(): Promise<void>;
}

/** `look` returns true to end the loop (then `onEnough` is called once). */
export function lookEvery(everySeconds: number, look: () => Promise<boolean>, onEnough: () => void = () => {}): LookLoop {
  const over = new AbortController();
  const loop = (async () => {
    while (!over.signal.aborted) {
      try { await abortableSleep(everySeconds * 1000, over.signal); } catch { return; }
      let said = false;
      try { said = await look(); } catch { continue; }
      if (said && !over.signal.aborted) {
        onEnough();
        return;
      }
    }
  })();
  return { stop: async () => { over.abort(); await loop; } };
}
