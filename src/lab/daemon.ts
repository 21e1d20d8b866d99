/**
 * The lab supervisor: a detached process that owns the lab's cleanup stack, so the lab
 * outlives the `ccbrowse lab up` command, `lab down` (SIGTERM) unwinds it completely, and
 * if the supervisor is killed outright the reaper removes the lab at the next start.
 * A SIGTERM or SIGINT while the lab is still starting aborts the start (the same signal
 * every step takes), and this process, the stack's one owner, unwinds it before it exits.
 * Usage: node daemon.js <config path> <lab id>
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { CleanupStack } from '../net/cleanup.js';
import { processStartTime } from '../net/resources.js';
import { interruptReason, interruptSignal, isInterruption } from '../util/interrupt.js';
import { loadLabConfig } from './config.js';
import { startLab } from './lab.js';
import { labStartingPath, labStatePath, labStateDir } from './state.js';

const [configPath, labId] = process.argv.slice(2);
const log = (m: string) => process.stdout.write(`${m}\n`);

async function unwind(stack: CleanupStack): Promise<void> {
  for (const f of await stack.unwind()) log(`cleanup problem: ${f}`);
}

async function main(): Promise<number> {
  const signal = interruptSignal();
  const cfg = await loadLabConfig(configPath);
  const stack = new CleanupStack(`lab-${labId}`);
  const statePath = labStatePath(cfg.name);
  mkdirSync(labStateDir(), { recursive: true });
  stack.push({ kind: 'file', path: statePath });
  stack.push({ kind: 'file', path: labStartingPath(cfg.name) });
  try {
    const state = await startLab(stack, cfg, { labId, progress: log, signal });
    writeFileSync(statePath, JSON.stringify({ ...state, pid: process.pid, supervisorStartTime: processStartTime(process.pid) }, null, 1));
    rmSync(labStartingPath(cfg.name), { force: true });
    log(`ready ${statePath}`);
  } catch (err) {
    log(isInterruption(err) ? `stopped while starting: ${(err as Error).message}` : `failed: ${(err as Error).message}`);
    await unwind(stack);
    return signal.aborted ? interruptReason(signal).exitCode : 1;
  }
  // Up: serve until lab down (SIGTERM) or Ctrl-C, then remove everything.
  const keepAlive = setInterval(() => {}, 1 << 30); // a signal handler alone keeps no process alive
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  clearInterval(keepAlive);
  log(`stopping: ${interruptReason(signal).message}`);
  await unwind(stack);
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  log(`failed: ${(err as Error).message}`);
  process.exit(1);
});
