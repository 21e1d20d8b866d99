/**
 * Build step (`npm run build`, after tsc): bundles the report's front end once into
 * dist/report/frontend/{main.js,style.css}, which `ccbrowse report` reads.
 *   node dist/report/build-cli.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_FRONTEND_DIR, FRONTEND_DIR } from './bundle.js';
import { buildFrontend } from './frontend-build.js';

const bundle = await buildFrontend(FRONTEND_DIR);
mkdirSync(BUILT_FRONTEND_DIR, { recursive: true });
writeFileSync(join(BUILT_FRONTEND_DIR, 'main.js'), bundle.js);
writeFileSync(join(BUILT_FRONTEND_DIR, 'style.css'), bundle.css);
process.stdout.write(`report front end: ${join(BUILT_FRONTEND_DIR, 'main.js')} (${(bundle.js.length / 1024).toFixed(0)} kB)\n`);
