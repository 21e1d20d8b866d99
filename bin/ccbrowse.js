#!/usr/bin/env node
// Entry point for `npx ccbrowse`: runs the compiled CLI (built by the set-up step).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('ccbrowse is not built yet: run ./setup.sh (or `npm run build`) from the repository root.');
  process.exit(3);
}
await import(main.href);
