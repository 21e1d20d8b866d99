/** `lab up / down / status`: start the supervisor detached, stop it, read its state. */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from '../net/launch.js';
import { isSameProcess } from '../net/resources.js';
import { CcbError } from '../util/errors.js';
import { sleep } from '../util/exec.js';
import { interruptReason } from '../util/interrupt.js';
import { nodeModuleCommand } from '../util/node-script.js';
import { defaultLabConfigPath, loadLabConfig } from './config.js';
import { newLabId } from './network.js';
import { labStartingPath, labStateDir, readRunningLab, readStartingLab, type RunningLab } from './state.js';

export interface LabUpOptions {
  config?: string;
  progress?: (m: string) => void;
  timeoutMs?: number;
  /**
   * Ctrl-C while the lab starts: the supervisor (in its own session, so a terminal's Ctrl-C
   * does not reach it) is told to stop, and labUp returns only once it has removed everything.
   */
  signal?: AbortSignal;
}

export async function labUp(opts: LabUpOptions = {}): Promise<RunningLab> {
  const configPath = opts.config ?? defaultLabConfigPath();
  const cfg = await loadLabConfig(configPath); // validate here, for a clear error before anything starts
  const running = readRunningLab(cfg.name);
  if (running) return running;
  mkdirSync(labStateDir(), { recursive: true });
  const timeoutMs = opts.timeoutMs ?? 600_000;
  // A supervisor of an earlier `lab up` (killed before the lab was up) is still starting it: wait for that one.
  const starting = readStartingLab(cfg.name);
  if (starting) return waitUntilUp(cfg.name, { pid: starting.pid, startTime: starting.startTime }, starting.log, opts, timeoutMs);

  const logPath = join(labStateDir(), `${cfg.name}.log`);
  const fd = openSync(logPath, 'w');
  const [node, ...args] = nodeModuleCommand('lab/daemon.ts');
  let supervisor;
  try {
    // No stack: the supervisor owns the lab's stack and outlives this command.
    supervisor = await launch(node, [...args, configPath, newLabId()], {
      what: `lab ${cfg.name} supervisor`, stack: null, outlivesUs: true, stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  supervisor.child.unref();
  const proc = { pid: supervisor.pid, startTime: supervisor.resource.kind === 'process' ? supervisor.resource.startTime : '' };
  writeFileSync(labStartingPath(cfg.name), JSON.stringify({ ...proc, log: logPath }));
  return waitUntilUp(cfg.name, proc, logPath, opts, timeoutMs);
}

async function waitUntilUp(name: string, supervisor: { pid: number; startTime: string }, logPath: string, opts: LabUpOptions, timeoutMs: number): Promise<RunningLab> {
  const deadline = Date.now() + timeoutMs;
  const alive = () => isSameProcess(supervisor.pid, supervisor.startTime);
  let shown = 0;
  for (;;) {
    const log = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
    const lines = log.split('\n').filter(Boolean);
    for (const l of lines.slice(shown)) opts.progress?.(l);
    shown = lines.length;
    if (/^ready /m.test(log)) {
      const lab = readRunningLab(name);
      if (lab) return lab;
    }
    if (opts.signal?.aborted) {
      opts.progress?.(`stopping the lab supervisor (pid ${supervisor.pid}): it removes what it started`);
      await stopSupervisor(supervisor, 120_000);
      throw interruptReason(opts.signal);
    }
    if (/^failed: /m.test(log) || !alive()) {
      throw new CcbError(`the lab did not start: ${/^failed: (.*)$/m.exec(log)?.[1] ?? 'supervisor exited'}`, `see ${logPath}`);
    }
    if (Date.now() > deadline) {
      await stopSupervisor(supervisor, 120_000);
      throw new CcbError(`the lab did not start within ${timeoutMs / 1000} s`, `see ${logPath}`);
    }
    await sleep(200);
  }
}

/** SIGTERM to the supervisor (it unwinds the lab's stack), then wait until it is gone. */
async function stopSupervisor(p: { pid: number; startTime: string }, timeoutMs: number): Promise<void> {
  if (!isSameProcess(p.pid, p.startTime)) return;
  process.kill(p.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isSameProcess(p.pid, p.startTime)) return;
    await sleep(100);
  }
  throw new CcbError(`the lab supervisor (pid ${p.pid}) did not stop within ${timeoutMs / 1000} s`);
}

/** Stops the lab of that name (running, or still starting); false when there was none. */
export async function labDown(name = 'default', timeoutMs = 60_000): Promise<boolean> {
  const lab = readRunningLab(name);
  const starting = lab ? undefined : readStartingLab(name);
  const supervisor = lab ? { pid: lab.pid, startTime: lab.supervisorStartTime ?? '' } : starting;
  if (!supervisor) return false;
  if (!supervisor.startTime) {
    // A state file from before supervisorStartTime was recorded: by pid alone.
    process.kill(supervisor.pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try { process.kill(supervisor.pid, 0); } catch { return true; }
      await sleep(100);
    }
    throw new CcbError(`the lab supervisor (pid ${supervisor.pid}) did not stop within ${timeoutMs / 1000} s`);
  }
  await stopSupervisor(supervisor, timeoutMs);
  return true;
}
