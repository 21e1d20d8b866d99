/**
 * Adds the sender's loss counts and their half-second checkpoints (`loss`) to a dataset traced
 * before they were kept, without touching its series: each entry's capture is traced again
 * and the flow whose first 30 s match the entry's series gives its counts. When the trace
 * code has changed the series since (a few samples more or fewer), the capture's only flow of
 * the entry's protocol is taken instead.
 *
 *   npx tsx src/train/scripts/add-sender-loss.ts IN.json OUT.json
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FlowResult } from '../../trace/result.js';
import { MAX_TRACE_SECONDS, traceProbeDir, truncateSeries, type DatasetEntry } from '../dataset.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: add-sender-loss.ts IN.json OUT.json');
  process.exit(2);
}

/** Same length and the same value at every 7th sample. */
function sameSeries(f: FlowResult, e: DatasetEntry): boolean {
  if (!f.series) return false;
  const s = truncateSeries(f.series, MAX_TRACE_SECONDS);
  if (s.bif.length !== e.bif.length) return false;
  for (let i = 0; i < s.bif.length; i += 7) if (Math.round(s.bif[i]) !== e.bif[i]) return false;
  return true;
}

const dataset = JSON.parse(readFileSync(input, 'utf8')) as { entries: DatasetEntry[] };
let added = 0;
const missed: string[] = [];
for (const [i, e] of dataset.entries.entries()) {
  process.stderr.write(`\r${i + 1}/${dataset.entries.length}`);
  const pcap = `${e.dir}/capture.pcap`;
  if (!existsSync(pcap)) {
    missed.push(`${e.origin} ${e.profile} rep ${e.rep}: ${pcap} is gone`);
    continue;
  }
  const tr = await traceProbeDir(e.dir);
  const ofProtocol = tr.flows.filter((f) => f.series && (e.protocol === 'tcp' ? f.kind === 'tcp' : f.kind === 'quic'));
  const flow = ofProtocol.find((f) => sameSeries(f, e)) ?? (ofProtocol.length === 1 ? ofProtocol[0] : undefined);
  // As entryFromProbe keeps them: recounted at the 30 s cut.
  const loss = flow?.series ? truncateSeries(flow.series, MAX_TRACE_SECONDS).loss : undefined;
  if (!loss) {
    missed.push(`${e.origin} ${e.profile} rep ${e.rep}: ${!flow ? 'no matching flow' : flow.series?.loss ? 'no loss checkpoint before the 30 s cut' : 'no loss counts (QUIC without a key log?)'}`);
    delete e.loss;
    continue;
  }
  e.loss = { ...loss };
  added++;
}
process.stderr.write('\n');
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, JSON.stringify(dataset));
console.log(`${added} of ${dataset.entries.length} entries now carry loss counts; written ${output}`);
for (const m of missed) console.log(`  left without: ${m}`);
