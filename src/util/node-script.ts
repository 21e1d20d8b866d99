import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './paths.js';

/**
 * Command line to run one of our own modules as a separate process (e.g. inside a
 * namespace): the compiled file when running from dist/, the TypeScript source through
 * tsx otherwise (tests, development), so both always run the code that is calling.
 */
export function nodeModuleCommand(srcRelative: string): string[] {
  const fromDist = import.meta.url.includes('/dist/');
  const root = repoRoot();
  if (fromDist) {
    const js = resolve(root, 'dist', srcRelative.replace(/\.ts$/, '.js'));
    if (existsSync(js)) return [process.execPath, js];
  }
  // An absolute loader path: `--import tsx` would resolve from the caller's cwd.
  const loader = pathToFileURL(resolve(root, 'node_modules/tsx/dist/loader.mjs')).href;
  return [process.execPath, '--import', loader, resolve(root, 'src', srcRelative)];
}
