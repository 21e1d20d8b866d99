/**
 * Build time only: esbuild bundles report/main.ts with the d3 modules it uses into one JS
 * file (nothing is loaded from a network at view time). `npm run build` runs it once
 * (src/report/build-cli.ts) and writes the result beside the compiled report, where
 * bundle.ts reads it: `ccbrowse report` itself needs no build tool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CcbError, ExitCode } from '../util/errors.js';
import type { Bundle } from './bundle.js';

export async function buildFrontend(frontendDir: string): Promise<Bundle> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new CcbError('esbuild is not installed: the report front end cannot be bundled', 'run `npm ci` then `npm run build` (esbuild is a build-time dependency)', ExitCode.missingPrerequisite);
  }
  const out = await esbuild.build({
    entryPoints: [join(frontendDir, 'main.ts')],
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
  return { js: out.outputFiles[0].text, css: readFileSync(join(frontendDir, 'style.css'), 'utf8') };
}
