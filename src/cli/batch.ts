/**
 * Runs `classify` / `trace` over the captures a user named: one in this process, many on a
 * pool of worker threads (util/worker-pool.ts), printed in the order given as each is done.
 * A capture that fails is reported and the rest go on; exit 1 at the end.
 */
import type { Command } from 'commander';
import { BadInputError, ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import { defaultPoolSize, runPool, type PoolJobResult } from '../util/worker-pool.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { analyse, csvHeader, type AnalysisJob, type AnalysisReply } from './analysis-job.js';
import { expandCaptureInputs } from './inputs.js';
import { reporterFor } from './output.js';

/** The worker module beside this one (TypeScript under tests and tsx, JavaScript when built). */
const WORKER_URL = new URL(`./analysis-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

/** `--profile NAME` as the bottleneck model for QUIC BiF without keys (an error if it cannot be replayed). */
async function bottleneckOption(name: string | undefined): Promise<BottleneckModel | undefined> {
  if (!name) return undefined;
  const { loadProfile } = await import('../shaper/profile.js');
  const { bottleneckModelOf } = await import('../shaper/bottleneck-model.js');
  const b = bottleneckModelOf(await loadProfile(name));
  if (!b) throw new BadInputError(`profile ${name} cannot be replayed for QUIC bytes in flight (shared queue or random loss); leave out --profile to use Nebby's heuristic`);
  return b;
}

export async function runBatch(
  cmd: Command, paths: string[], concurrency: number | undefined,
  makeJob: (input: string, many: boolean) => AnalysisJob, profile: string | undefined,
): Promise<void> {
  const { inputs, unmatched } = await expandCaptureInputs(paths);
  if (inputs.length === 0) {
    throw new BadInputError(`no capture found in ${unmatched.join(', ')}`, 'give pcap/pcapng files, run directories (holding capture.pcap), directories or quoted globs');
  }
  const bottleneck = await bottleneckOption(profile);
  const many = inputs.length > 1 || unmatched.length > 0;
  const jobs = inputs.map((input) => ({ ...makeJob(input, many), ...(bottleneck ? { bottleneck } : {}) }));
  const format = jobs[0].format;
  const say = reporterFor(cmd);
  const out = (s: string) => { if (s) process.stdout.write(s); };
  const warn = (s: string) => process.stderr.write(`${s}\n`);
  for (const u of unmatched) warn(`ccbrowse: ${u}: no such file, directory or matching capture`);

  // One capture: this process, and its errors are the command's (exit 2 for a bad file, as always).
  if (!many) {
    const r = await analyse(jobs[0]);
    for (const w of r.warnings) warn(`warning: ${w}`);
    if (format === 'csv') out(await csvHeader(jobs[0]));
    out(format === 'json' ? r.text + '\n' : r.text);
    if (r.unread.length && format !== 'json') warn(`${r.unread.length} of ${r.flows} flow(s) could not be read: ${r.unread.join(', ')}`);
    process.exitCode = r.unread.length ? ExitCode.checkFailed : ExitCode.ok;
    return;
  }

  const signal = interruptSignal();
  const size = Math.min(concurrency ?? defaultPoolSize(), jobs.length);
  // One worker would only add a thread's start-up: a pool of one runs here.
  const results: AsyncIterable<PoolJobResult<AnalysisReply>> = size > 1
    ? runPool<AnalysisJob, AnalysisReply>(WORKER_URL, jobs, { size, signal })
    : (async function* () {
      for (let index = 0; index < jobs.length && !signal.aborted; index++) {
        try { yield { index, ok: true, value: await analyse(jobs[index]) }; } catch (err) { yield { index, ok: false, error: (err as Error).message }; }
      }
    })();

  if (format === 'csv' || format === 'flows' || format === 'series') out(await csvHeader(jobs[0]));
  const documents: string[] = [];
  const failed: { input: string; error: string }[] = unmatched.map((u) => ({ input: u, error: 'no such file, directory or matching capture' }));
  let flows = 0;
  let unread = 0;
  let done = 0;
  const t0 = Date.now();
  for await (const r of results) {
    const input = jobs[r.index].input;
    done++;
    if (!r.ok || !r.value) {
      failed.push({ input, error: r.error ?? 'failed' });
      warn(`ccbrowse: ${r.error?.includes(input) ? '' : `${input}: `}${r.error}`);
      if (format === 'jsonl') out(JSON.stringify({ input, error: r.error }) + '\n');
    } else {
      flows += r.value.flows;
      unread += r.value.unread.length;
      for (const w of r.value.warnings) if (format !== 'json' && format !== 'jsonl') warn(`warning: ${input}: ${w}`);
      if (r.value.unread.length && format === 'table') warn(`${input}: ${r.value.unread.length} of ${r.value.flows} flow(s) could not be read: ${r.value.unread.join(', ')}`);
      if (format === 'json') documents.push(r.value.text);
      else out(r.value.text);
    }
    say.progress(`analysed ${done}/${jobs.length} captures, ${flows} flows, ${failed.length} failed`);
  }
  say.done();
  if (format === 'json') out(`{"files":[${documents.join(',')}],"errors":${JSON.stringify(failed)}}\n`);
  say.info(`${done} of ${jobs.length} capture(s) analysed in ${((Date.now() - t0) / 1000).toFixed(1)} s on ${size} thread(s): ${flows} flows` +
    `${unread ? `, ${unread} could not be read` : ''}${failed.length ? `; ${failed.length} failed: ${failed.map((f) => f.input).join(', ')}` : ''}`);
  process.exitCode = failed.length || unread ? ExitCode.checkFailed : ExitCode.ok;
}
