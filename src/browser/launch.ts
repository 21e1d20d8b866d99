/**
 * Launches the system Chromium inside a network namespace through Playwright. Playwright
 * talks to the browser over a pipe, and `ip netns exec` keeps file descriptors, so a tiny
 * wrapper script as executablePath is all it takes. The wrapper records the browser's pid
 * so the run's cleanup stack can end it even if Playwright cannot.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import type { CleanupStack } from '../net/cleanup.js';
import { processStartTime, undo } from '../net/resources.js';
import { sleep } from '../util/exec.js';
import { CHROMIUM_PATH, SIGNALS_ARE_OURS } from './chromium.js';

export interface LaunchedBrowser {
  browser: Browser;
  /** Pid of the Chromium browser process (inside the namespace). */
  pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Who the browser runs as. Measured sites are untrusted: by default Chromium runs as an
 * unprivileged user with its sandbox on (CCB_BROWSER_USER=root opts out, e.g. where user
 * namespaces are disabled and the sandbox cannot start).
 */
export interface BrowserUser { uid: number; gid: number; name: string }

export function browserUser(): BrowserUser | null {
  if (process.getuid?.() !== 0) return null; // already unprivileged: nothing to drop
  const wanted = process.env.CCB_BROWSER_USER ?? 'nobody';
  if (wanted === 'root' || !existsSync('/usr/bin/setpriv')) return null;
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${wanted}:`));
    if (!line) return null;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid), name: wanted };
  } catch {
    return null;
  }
}

/** Lets the browser's user write the files it must write itself (NetLog, key log). */
export function giveToBrowserUser(dir: string, user: BrowserUser | null): void {
  if (user) chownSync(dir, user.uid, user.gid);
}

/**
 * An executable that starts the system Chromium inside `netns` (for Playwright's
 * executablePath), as `user` when given, and writes the browser's pid to `pidFile`.
 */
export function namespaceChromium(stack: CleanupStack, netns: string, user: BrowserUser | null = null): { path: string; pidFile: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ccb-browser-'));
  const pidFile = join(dir, 'pid');
  const path = join(dir, 'chromium-in-netns');
  stack.push({ kind: 'file', path: dir });
  const drop = user
    // The profile directory Playwright made (as root) must belong to the browser's user.
    ? `for a in "$@"; do case "$a" in --user-data-dir=*) chown -R ${user.uid}:${user.gid} "\${a#--user-data-dir=}";; esac; done\n` +
      `export HOME='${dir}/home'; mkdir -p "$HOME"; chown ${user.uid}:${user.gid} "$HOME"\n`
    : '';
  const run = user ? `setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups '${CHROMIUM_PATH}'` : `'${CHROMIUM_PATH}'`;
  // exec keeps the pid: the recorded pid is Chromium's own.
  writeFileSync(path, `#!/bin/sh\necho $$ > '${pidFile}'\n${drop}exec ip netns exec '${netns}' ${run} "$@"\n`);
  chmodSync(path, 0o755);
  return { path, pidFile, dir };
}

export async function launchInNamespace(stack: CleanupStack, opts: {
  netns: string; args: string[]; headless?: boolean; env?: Record<string, string>; timeoutMs?: number;
} & Pick<LaunchOptions, 'timeout'>): Promise<LaunchedBrowser> {
  const user = browserUser();
  const { path: wrapper, pidFile, dir } = namespaceChromium(stack, opts.netns, user);
  const browser = await chromium.launch({
    ...SIGNALS_ARE_OURS,
    executablePath: wrapper,
    headless: opts.headless ?? true,
    // Unprivileged: the sandbox stays on (Playwright would otherwise add --no-sandbox).
    chromiumSandbox: user !== null,
    args: user ? opts.args.filter((a) => a !== '--no-sandbox') : opts.args,
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
