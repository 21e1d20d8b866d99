import { resolve } from 'node:path';

/**
 * The repository root, from both src/<dir>/x.ts (tsx, tests) and dist/<dir>/x.js (built):
 * both sit two levels below it. Only valid for modules exactly one folder deep.
 */
export function repoRoot(): string {
  return resolve(new URL('../..', import.meta.url).pathname);
}

export function buildPath(...parts: string[]): string {
  return resolve(repoRoot(), 'build', ...parts);
}
