/**
 * The lab supervisor: a detached process that owns the lab's cleanup stack, so the lab
 * outlives the `ccbrowse lab up` command, `lab down` (SIGTERM) unwinds it completely, and
 * if the supervisor is killed outright the reaper removes the lab at the next start.
 * Usage: node daemon.js <config path> <lab id>
 */
import { rmSync, writeFileSync } from 'node:fs';
import { CleanupStack, unwindOnSignals } from '../net/cleanup.js';
import { loadLabConfig } from './config.js';
import { startLab } from './lab.js';
import { labStatePath, labStateDir } from './state.js';
import { mkdirSync } from 'node:fs';

const [configPath, labId] = process.argv.slice(2);
const log = (m: string) => process.stdout.write(`${m}\n`);

async function main(): Promise<void> {
  const cfg = await loadLabConfig(configPath);
  const stack = new CleanupStack(`lab-${labId}`);
  const statePath = labStatePath(cfg.name);
  mkdirSync(labStateDir(), { recursive: true });
  stack.push({ kind: 'file', path: statePath });
  unwindOnSignals(stack, log);
  try {
    const state = await startLab(stack, cfg, { labId, progress: log });
    writeFileSync(statePath, JSON.stringify({ ...state, pid: process.pid }, null, 1));
    log(`ready ${statePath}`);
  } catch (err) {
    log(`failed: ${(err as Error).message}`);
    const failures = await stack.unwind();
    for (const f of failures) log(`cleanup problem: ${f}`);
    rmSync(statePath, { force: true });
    process.exit(1);
  }
  // Stay alive: the stack unwinds on SIGTERM/SIGINT (lab down).
  setInterval(() => {}, 1 << 30);
}

void main();
