/**
 * Launches the system Chromium inside a network namespace through Playwright. Playwright
 * talks to the browser over a pipe, and `ip netns exec` keeps file descriptors, so a tiny
 * wrapper script as executablePath is all it takes. The wrapper records the browser's pid
 * so the run's cleanup stack can end it even if Playwright cannot.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import type { CleanupStack } from '../net/cleanup.js';
import { processStartTime, undo } from '../net/resources.js';
import { sleep } from '../util/exec.js';
import { CHROMIUM_PATH } from '../lab/sites/chromium.js';

export interface LaunchedBrowser {
  browser: Browser;
  /** Pid of the Chromium browser process (inside the namespace). */
  pid: number | undefined;
  close(): Promise<void>;
}

/**
 * An executable that starts the system Chromium inside `netns` (for Playwright's
 * executablePath) and writes the browser's pid to `pidFile`.
 */
export function namespaceChromium(stack: CleanupStack, netns: string): { path: string; pidFile: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-browser-'));
  const pidFile = join(dir, 'pid');
  const path = join(dir, 'chromium-in-netns');
  stack.push({ kind: 'file', path: dir });
  // exec keeps the pid: the recorded pid is Chromium's own.
  writeFileSync(path, `#!/bin/sh\necho $$ > '${pidFile}'\nexec ip netns exec '${netns}' '${CHROMIUM_PATH}' "$@"\n`);
  chmodSync(path, 0o755);
  return { path, pidFile, dir };
}

export async function launchInNamespace(stack: CleanupStack, opts: {
  netns: string; args: string[]; headless?: boolean; env?: Record<string, string>; timeoutMs?: number;
} & Pick<LaunchOptions, 'timeout'>): Promise<LaunchedBrowser> {
  const { path: wrapper, pidFile, dir } = namespaceChromium(stack, opts.netns);
  const browser = await chromium.launch({
    executablePath: wrapper,
    headless: opts.headless ?? true,
    args: opts.args,
    env: { ...process.env, ...opts.env } as Record<string, string>,
    timeout: opts.timeoutMs ?? 60_000,
  });
  let pid: number | undefined;
  try { pid = Number(readFileSync(pidFile, 'utf8').trim()); } catch { pid = undefined; }
  const resource = pid ? { kind: 'process' as const, pid, startTime: processStartTime(pid) ?? '', what: 'chromium' } : undefined;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await browser.close().catch(() => {});
    if (resource) stack.forget(resource);
    rmSync(dir, { recursive: true, force: true });
  };
  // On unwind: a polite close first, then the generic undo kills the pid if it still runs.
  if (resource) stack.push(resource, async () => { await Promise.race([close(), sleep(5000)]); await undo(resource); });
  return { browser, pid, close };
}
