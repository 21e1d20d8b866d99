import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CcbError } from './errors.js';

let root: string | undefined;

/**
 * The ccbrowse package root (where package.json, build/, shapers/ and labs/ are): the first
 * folder above this module whose package.json is named "ccbrowse". The one way every module
 * finds it, from src/ (tsx, tests), dist/ (built) or an installed copy, at any depth.
 */
export function repoRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = resolve(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'ccbrowse') return (root = dir);
      } catch { /* not ours: keep walking */ }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new CcbError(`cannot find the ccbrowse package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export function buildPath(...parts: string[]): string {
  return resolve(repoRoot(), 'build', ...parts);
}
