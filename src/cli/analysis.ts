/**
 * `ccbrowse classify` and `ccbrowse trace`: one capture or many (files, run directories, quoted
 * globs, directories walked recursively) in one process. Several captures are analysed by a
 * pool of worker threads, one capture per job (--concurrency, default: the cores), and printed
 * in the order given as each is done: a table or CSV for a person, `--jsonl` one JSON line per
 * flow, `--csv` a row per flow. A capture that cannot be read is reported on stderr (and as a
 * JSON line with --jsonl), the others go on, and the command exits 1 at the end.
 * Registration only: the analysis modules load when the command runs (analysis-job.ts).
 */
import { Option, type Command } from 'commander';
import { opt } from './options.js';
import { shippedModelPath } from '../util/paths.js';

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
const CONCURRENCY = () => opt.count('--concurrency <n>', 'captures analysed at once, each in its own worker thread (default: the cores)', 1, 64);
const PATHS_HELP = 'pcap/pcapng files, run directories (holding capture.pcap), directories (walked for captures) or quoted globs';

export function registerBatch(program: Command): void {
  program
    .command('trace')
    .description('flows and bytes in flight of one or many captures (TCP and QUIC)')
    .argument('<paths...>', PATHS_HELP)
    .option('--keylog <file>', 'TLS key log for exact QUIC BiF (a run directory brings its own)')
    .option('--flow <id>', 'only this flow (tcp-0, quic-1, or a tuple)')
    .option('--client <ips>', 'client addresses, comma-separated (else inferred)')
    .addOption(opt.profile('the ccbrowse network profile the capture was taken behind: QUIC without keys then replays its bottleneck'))
    .addOption(new Option('--csv', 'print the BiF series as CSV (several captures: an input column first)').conflicts(['jsonl', 'json']))
    .addOption(new Option('--jsonl', 'one JSON line per flow (no samples), streamed capture by capture').conflicts(['json']))
    .addOption(CONCURRENCY())
    .addOption(opt.json())
    .action(async (paths: string[], o: { keylog?: string; flow?: string; client?: string; profile?: string; csv?: boolean; jsonl?: boolean; json?: boolean; concurrency?: number }, cmd: Command) => {
      const { runBatch } = await import('./batch.js');
      const format = o.json ? 'json' : o.jsonl ? 'jsonl' : o.csv ? 'series' : 'flows';
      await runBatch(cmd, paths, o.concurrency, (input, many) => ({
        command: 'trace', input, many, format, keylog: o.keylog, flowId: o.flow, clientIps: o.client ? list(o.client) : undefined,
      }), o.profile);
    });

  program
    .command('classify')
    .description('trace one or many captures (or probe run directories) and classify every flow: verdict, calibrated confidence, capture conditions')
    .argument('<paths...>', PATHS_HELP)
    .option('--model <file>', 'model file (default: the shipped models/ccbrowse-model.json, wherever ccbrowse is installed)')
    .option('--keylog <file>', 'TLS key log for exact QUIC BiF (a run directory brings its own)')
    .option('--client <ips>', 'client addresses, comma-separated')
    .addOption(opt.profile('the ccbrowse network profile the capture was taken behind (a probe run dir records it)'))
    .addOption(new Option('--jsonl', 'one JSON line per flow, streamed capture by capture').conflicts(['json', 'csv']))
    .addOption(new Option('--csv', 'one CSV row per flow (verdict, confidence, conditions)').conflicts(['json']))
    .addOption(CONCURRENCY())
    .addOption(opt.json())
    .action(async (paths: string[], o: { model?: string; keylog?: string; client?: string; profile?: string; json?: boolean; jsonl?: boolean; csv?: boolean; concurrency?: number }, cmd: Command) => {
      const { runBatch } = await import('./batch.js');
      const format = o.json ? 'json' : o.jsonl ? 'jsonl' : o.csv ? 'csv' : 'table';
      await runBatch(cmd, paths, o.concurrency, (input, many) => ({
        command: 'classify', input, many, format, model: o.model ?? shippedModelPath(), keylog: o.keylog, clientIps: o.client ? list(o.client) : undefined,
        explicitProfile: o.profile !== undefined,
      }), o.profile);
    });
}
