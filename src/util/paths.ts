import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

/** The model shipped with ccbrowse (not a path relative to the working directory: that fails outside the repository). */
export function shippedModelPath(): string {
  return resolve(repoRoot(), 'models', 'ccbrowse-model.json');
}

/**
 * The user's cache folder for ccbrowse (CCB_CACHE_DIR, else $XDG_CACHE_HOME/ccbrowse, else
 * ~/.cache/ccbrowse): the single executable's extracted tree, remembered tool versions.
 */
export function userCacheDir(): string {
  if (process.env.CCB_CACHE_DIR) return resolve(process.env.CCB_CACHE_DIR);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ccbrowse');
}
