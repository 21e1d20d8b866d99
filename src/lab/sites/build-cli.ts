/**
 * Set-up step for the lab: certificates and sites.
 *   node --import tsx src/lab/sites/build-cli.ts [--out build/lab/sites] [--certs build/lab/certs] [--config lab.json]
 * --config is a JSON file matching LabSitesConfig (urls, media). Prints a JSON summary
 * (including the SPKI hash Chromium needs).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_LAB_CERT_NAMES, ensureLabCerts } from '../certs.js';
import { CcbError } from '../../util/errors.js';
import { buildLabSites } from './build.js';
import { configHostnames } from './config.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, certs: { type: 'string' }, config: { type: 'string' } },
    strict: true,
  });
  const input = values.config ? (JSON.parse(await readFile(values.config, 'utf8')) as object) : {};
  const sites = await buildLabSites(values.out ?? 'build/lab/sites', input);
  const certs = await ensureLabCerts(values.certs ?? 'build/lab/certs', [...DEFAULT_LAB_CERT_NAMES, ...configHostnames(sites.config.urls)]);
  process.stdout.write(
    JSON.stringify({ sites: sites.outDir, urls: sites.config.urls, cert: certs.certPath, key: certs.keyPath, ca: certs.caCertPath, spki: certs.spki }, null, 2) + '\n',
  );
}

main().catch((err: unknown) => {
  const e = err as Error;
  process.stderr.write(`lab build failed: ${e.message}\n${e instanceof CcbError && e.fix ? `fix: ${e.fix}\n` : ''}`);
  process.exit(e instanceof CcbError ? e.exitCode : 70);
});
