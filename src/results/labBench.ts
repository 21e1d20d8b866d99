/**
 * The lab benchmark result (a classifier run against ground-truth lab origins), which the
 * report's Lab page draws. Written by the classifier benchmark; one file per benchmark run.
 *
 * matrix[i][j] = traces whose true class is trueClasses[i] and which were labelled
 * predictedLabels[j]. predictedLabels usually extends trueClasses with the non-answers
 * (Unknown, Short flow, ...). perClass and unknownRate are checked against the matrix so a
 * report never shows numbers that disagree with their own table.
 */
import { z } from 'zod';

export const LAB_BENCH_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();
const unit = z.number().min(0).max(1);

export const labBenchSchema = z
  .object({
    schemaVersion: z.literal(LAB_BENCH_SCHEMA_VERSION),
    /** A short name for the benchmark ("lab-linux-12", "quic-stacks"). */
    name: z.string().min(1),
    createdAt: z.iso.datetime({ offset: true }),
    model: z.string(),
    profiles: z.array(z.string()).default([]),
    trueClasses: z.array(z.string().min(1)).min(1),
    predictedLabels: z.array(z.string().min(1)).min(1),
    matrix: z.array(z.array(count)),
    perClass: z.array(z.object({ label: z.string(), n: count, correct: count, accuracy: unit })),
    /** Share of all traces labelled Unknown (any non-answer counts as unknown here). */
    unknownRate: unit,
    /** Median trace length, seconds. */
    medianTraceSeconds: z.number().nonnegative(),
    overallAccuracy: unit,
    note: z.string().optional(),
  })
  .superRefine((b, ctx) => {
    if (b.matrix.length !== b.trueClasses.length) {
      ctx.addIssue({ code: 'custom', path: ['matrix'], message: `has ${b.matrix.length} rows, trueClasses has ${b.trueClasses.length}` });
      return;
    }
    b.matrix.forEach((row, i) => {
      if (row.length !== b.predictedLabels.length) {
        ctx.addIssue({ code: 'custom', path: ['matrix', i], message: `has ${row.length} columns, predictedLabels has ${b.predictedLabels.length}` });
      }
    });
    for (const [i, pc] of b.perClass.entries()) {
      const r = b.trueClasses.indexOf(pc.label);
      if (r < 0) {
        ctx.addIssue({ code: 'custom', path: ['perClass', i, 'label'], message: `"${pc.label}" is not in trueClasses` });
        continue;
      }
      const row = b.matrix[r] ?? [];
      const n = row.reduce((a, x) => a + x, 0);
      const c = b.predictedLabels.indexOf(pc.label);
      const correct = c >= 0 ? (row[c] ?? 0) : 0;
      if (n !== pc.n || correct !== pc.correct) {
        ctx.addIssue({ code: 'custom', path: ['perClass', i], message: `n/correct (${pc.n}/${pc.correct}) disagree with the matrix (${n}/${correct})` });
      }
    }
  });

export type LabBench = z.infer<typeof labBenchSchema>;

/** Builds a consistent bench result from labelled outcomes (what a benchmark script calls). */
export function labBenchFromOutcomes(
  meta: { name: string; createdAt: string; model: string; profiles?: string[]; note?: string },
  outcomes: Array<{ truth: string; predicted: string; traceSeconds: number }>,
  nonAnswers: readonly string[] = ['Unknown', 'Short flow', 'Application-limited'],
): LabBench {
  const trueClasses = [...new Set(outcomes.map((o) => o.truth))].sort();
  const extra = [...new Set(outcomes.map((o) => o.predicted))].filter((l) => !trueClasses.includes(l)).sort();
  const predictedLabels = [...trueClasses, ...extra];
  const matrix = trueClasses.map(() => predictedLabels.map(() => 0));
  for (const o of outcomes) matrix[trueClasses.indexOf(o.truth)][predictedLabels.indexOf(o.predicted)]++;
  const perClass = trueClasses.map((label, i) => {
    const n = matrix[i].reduce((a, x) => a + x, 0);
    const correct = matrix[i][i];
    return { label, n, correct, accuracy: n ? correct / n : 0 };
  });
  const total = outcomes.length;
  const lengths = outcomes.map((o) => o.traceSeconds).sort((a, b) => a - b);
  const mid = lengths.length >> 1;
  const median = lengths.length === 0 ? 0 : lengths.length % 2 ? lengths[mid] : (lengths[mid - 1] + lengths[mid]) / 2;
  return {
    schemaVersion: LAB_BENCH_SCHEMA_VERSION,
    name: meta.name,
    createdAt: meta.createdAt,
    model: meta.model,
    profiles: meta.profiles ?? [],
    trueClasses,
    predictedLabels,
    matrix,
    perClass,
    unknownRate: total ? outcomes.filter((o) => nonAnswers.includes(o.predicted)).length / total : 0,
    medianTraceSeconds: median,
    overallAccuracy: total ? perClass.reduce((a, p) => a + p.correct, 0) / total : 0,
    ...(meta.note ? { note: meta.note } : {}),
  };
}
