/**
 * How many of a browser crawl's traces the host disturbed, by the rule the worker's jobs-at-once
 * count uses (crawl/disturbed.ts), one mark per profile of each run:
 *   npx tsx bench/browser-traces.ts build/s39/br3/lab-browser [--profiles nebby-50,nebby-100]
 * 'D' disturbed, '.' clean; a profile with no disturbance record (no delay line) is not shown.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { browserRunTraces } from '../src/crawl/disturbed.js';
import { loadProfile } from '../src/shaper/profile.js';

async function main(): Promise<void> {
  const [root, ...rest] = process.argv.slice(2);
  if (!root) throw new Error('usage: bench/browser-traces.ts CRAWL_RUN_DIR [--profiles a,b]');
  const i = rest.indexOf('--profiles');
  const names = i >= 0 ? rest[i + 1].split(',') : ['nebby-50', 'nebby-100'];
  const profiles = await Promise.all(names.map((p) => loadProfile(p)));
  let n = 0;
  let disturbed = 0;
  for (const run of readdirSync(root).filter((d) => statSync(join(root, d)).isDirectory()).sort()) {
    const traces = browserRunTraces(join(root, run), profiles, 0);
    n += traces.length;
    disturbed += traces.filter((t) => t.disturbed).length;
    console.log(`${run}  ${traces.map((t) => (t.disturbed ? 'D' : '.')).join('')}`);
  }
  console.log(`${disturbed} of ${n} traces disturbed`);
}

main().catch((err: Error) => { console.error(err.message); process.exit(1); });
