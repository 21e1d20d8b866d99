/**
 * How many of a browser crawl's traces the host disturbed, by the rule the worker's jobs-at-once
 * count uses (crawl/disturbed.ts), one mark per profile of each complete run (as the worker
 * counts them; each run's own profiles, from its run.json):
 *   npx tsx bench/browser-traces.ts build/s39/br3/lab-browser
 * 'D' disturbed, '.' clean; a profile with no disturbance record (no delay line) has no mark.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserRunTraces } from '../src/crawl/disturbed.js';

interface RunFile { status: string; profiles: Array<{ name: string; delayMs: number }> }

function main(): void {
  const root = process.argv[2];
  if (!root || !existsSync(root)) throw new Error('usage: npx tsx bench/browser-traces.ts CRAWL_RUN_DIR (the <out>/<crawl>/ of a browser crawl)');
  let n = 0;
  let disturbed = 0;
  let skipped = 0;
  for (const run of readdirSync(root).sort()) {
    const file = join(root, run, 'run.json');
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
    if (r.status !== 'complete') { skipped++; continue; }
    const traces = browserRunTraces(join(root, run), r.profiles, 0);
    n += traces.length;
    disturbed += traces.filter((t) => t.disturbed).length;
    console.log(`${run}  ${traces.map((t) => (t.disturbed ? 'D' : '.')).join('')}`);
  }
  console.log(`${disturbed} of ${n} traces disturbed${skipped ? ` (${skipped} incomplete run(s) not counted, as the worker does not)` : ''}`);
}

try {
  main();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
