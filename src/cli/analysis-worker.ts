/**
 * A worker thread of a batch `classify` / `trace` (util/worker-pool.ts): analyses one capture
 * per message with the same code as a single capture (analysis-job.ts) and answers with the
 * formatted text. Its model is parsed once and kept for every capture it gets.
 */
import { parentPort } from 'node:worker_threads';
import type { PoolJobResult, WorkerJobMessage } from '../util/worker-pool.js';
import { analyse, type AnalysisJob, type AnalysisReply } from './analysis-job.js';

parentPort!.on('message', async ({ index, job }: WorkerJobMessage<AnalysisJob>) => {
  let reply: PoolJobResult<AnalysisReply>;
  try {
    reply = { index, ok: true, value: await analyse(job) };
  } catch (err) {
    const e = err as Error & { fix?: string };
    reply = { index, ok: false, error: `${e.message ?? String(err)}${e.fix ? ` (fix: ${e.fix})` : ''}` };
  }
  parentPort!.postMessage(reply);
});
