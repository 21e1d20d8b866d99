/**
 * The front end as one JS file and one CSS file. Built once at `npm run build`
 * (src/report/build-cli.ts, esbuild) into frontend/ beside the compiled report (dist/report/),
 * so a built ccbrowse, and the single executable, read two files and need no build tool.
 * Running from the sources (tsx, tests) there is no built copy and it is bundled in the
 * process, once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** report/ (the front end's sources) sits two levels above this file both in src/report and in dist/report. */
export const FRONTEND_DIR = join(HERE, '..', '..', 'report');
/** Where the build writes the bundled front end: dist/report/frontend/. */
export const BUILT_FRONTEND_DIR = join(HERE, 'frontend');

export interface Bundle {
  js: string;
  css: string;
}

let cached: Promise<Bundle> | null = null;

async function load(): Promise<Bundle> {
  const js = join(BUILT_FRONTEND_DIR, 'main.js');
  if (existsSync(js)) return { js: readFileSync(js, 'utf8'), css: readFileSync(join(BUILT_FRONTEND_DIR, 'style.css'), 'utf8') };
  const { buildFrontend } = await import('./frontend-build.js');
  return buildFrontend(FRONTEND_DIR);
}

export function frontendBundle(): Promise<Bundle> {
  cached ??= load().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}
