/** Helpers for integration tests that use real namespaces. */
import { execFileSync } from 'node:child_process';

export const isRoot = process.getuid?.() === 0;

export function listNamespaces(): string[] {
  const out = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
}

export function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}
