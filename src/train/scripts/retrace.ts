/**
 * Traces every entry of one or more datasets again from its run directory with the current
 * trace code (the sender's loss account, the capture's own conditions), keeping each entry's
 * label, grid conditions and host disturbance, and rewrites the files in place. Entries whose
 * run directory is gone are kept as they were and counted.
 *
 *   npx tsx src/train/scripts/retrace.ts build/grid/g1/*.json
 */
import { loadDataset, retraceEntry, saveDataset, type DatasetEntry } from '../dataset.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: retrace.ts DATASET.json [...]');
  process.exit(2);
}
for (const file of files) {
  const d = loadDataset(file);
  const out: DatasetEntry[] = [];
  let kept = 0;
  for (const [i, e] of d.entries.entries()) {
    process.stderr.write(`\r${file}: ${i + 1}/${d.entries.length}`);
    const fresh = await retraceEntry(e).catch(() => null);
    if (fresh) out.push(fresh);
    else {
      out.push(e);
      kept++;
    }
  }
  saveDataset(file, out);
  process.stderr.write(`\r${file}: ${out.length} entries, ${kept} kept as they were (run directory gone or unreadable)\n`);
}
