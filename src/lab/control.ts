/** `lab up / down / status`: start the supervisor detached, stop it, read its state. */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CcbError } from '../util/errors.js';
import { sleep } from '../util/exec.js';
import { nodeModuleCommand } from '../util/node-script.js';
import { defaultLabConfigPath, loadLabConfig } from './config.js';
import { newLabId } from './network.js';
import { labStateDir, readRunningLab, type RunningLab } from './state.js';

export async function labUp(opts: { config?: string; progress?: (m: string) => void; timeoutMs?: number } = {}): Promise<RunningLab> {
  const configPath = opts.config ?? defaultLabConfigPath();
  const cfg = await loadLabConfig(configPath); // validate here, for a clear error before anything starts
  const running = readRunningLab(cfg.name);
  if (running) return running;
  mkdirSync(labStateDir(), { recursive: true });
  const logPath = join(labStateDir(), `${cfg.name}.log`);
  const fd = openSync(logPath, 'w');
  const [node, ...args] = nodeModuleCommand('lab/daemon.ts');
  const child = spawn(node, [...args, configPath, newLabId()], { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  let shown = 0;
  for (;;) {
    const log = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
    const lines = log.split('\n').filter(Boolean);
    for (const l of lines.slice(shown)) opts.progress?.(l);
    shown = lines.length;
    if (/^ready /m.test(log)) {
      const lab = readRunningLab(cfg.name);
      if (lab) return lab;
    }
    if (/^failed: /m.test(log) || child.exitCode !== null) {
      throw new CcbError(`the lab did not start: ${/^failed: (.*)$/m.exec(log)?.[1] ?? 'supervisor exited'}`, `see ${logPath}`);
    }
    if (Date.now() > deadline) throw new CcbError(`the lab did not start within ${(opts.timeoutMs ?? 600_000) / 1000} s`, `see ${logPath}`);
    await sleep(200);
  }
}

export async function labDown(name = 'default', timeoutMs = 60_000): Promise<boolean> {
  const lab = readRunningLab(name);
  if (!lab) return false;
  process.kill(lab.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try { process.kill(lab.pid, 0); } catch { return true; }
    await sleep(100);
  }
  throw new CcbError(`the lab supervisor (pid ${lab.pid}) did not stop within ${timeoutMs / 1000} s`);
}
