/**
 * The front end as one JS file and one CSS file: esbuild bundles report/main.ts with the d3
 * modules it uses (nothing is loaded from a network at view time). Built once per process.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CcbError, ExitCode } from '../util/errors.js';

/** report/ sits two levels above this file both in src/report and in dist/report. */
export const FRONTEND_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'report');

export interface Bundle {
  js: string;
  css: string;
}

let cached: Promise<Bundle> | null = null;

async function build(): Promise<Bundle> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new CcbError('esbuild is not installed: the report cannot bundle its front end', 'run `npm ci` (esbuild is a dependency of the report)', ExitCode.missingPrerequisite);
  }
  const out = await esbuild.build({
    entryPoints: [join(FRONTEND_DIR, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const js = out.outputFiles[0].text;
  const css = readFileSync(join(FRONTEND_DIR, 'style.css'), 'utf8');
  return { js, css };
}

export function frontendBundle(): Promise<Bundle> {
  cached ??= build().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}
