/**
 * Writing a run directory's JSON files: validated against the schema first (a writer bug
 * fails loudly here, not in a reader months later), then written atomically (temp + rename),
 * so a crash never leaves a half-written file that looks complete.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { RUN_FILES } from './read.js';
import { assetsFileSchema, flowsFileSchema, runSchema, verdictsFileSchema } from './schema.js';

export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(value, null, 1) + '\n');
  renameSync(tmp, path);
}

function checked<S extends z.ZodType>(schema: S, value: z.input<S>, what: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new Error(`refusing to write ${what}: ${first.path.map(String).join('.') || '(top level)'}: ${first.message}`);
  }
  return r.data;
}

export interface RunFilesInput {
  run: z.input<typeof runSchema>;
  flows?: z.input<typeof flowsFileSchema>;
  verdicts?: z.input<typeof verdictsFileSchema>;
  assets?: z.input<typeof assetsFileSchema>;
}

/** Writes the given files into dir (created if needed); omitted files are not touched. */
export function writeRunFiles(dir: string, files: RunFilesInput): void {
  mkdirSync(dir, { recursive: true });
  if (files.flows) writeJsonAtomic(join(dir, RUN_FILES.flows), checked(flowsFileSchema, files.flows, RUN_FILES.flows));
  if (files.verdicts) writeJsonAtomic(join(dir, RUN_FILES.verdicts), checked(verdictsFileSchema, files.verdicts, RUN_FILES.verdicts));
  if (files.assets) writeJsonAtomic(join(dir, RUN_FILES.assets), checked(assetsFileSchema, files.assets, RUN_FILES.assets));
  // run.json last: its presence marks a directory as a run.
  writeJsonAtomic(join(dir, RUN_FILES.run), checked(runSchema, files.run, RUN_FILES.run));
}
