/**
 * Confidence that means probability (issue 16): a monotone map from a verdict's raw confidence
 * to how often verdicts of that confidence were right on conditions the model never trained on
 * (leave one condition out), fitted by isotonic regression (pool adjacent violators). WHY
 * isotonic: the raw scores (naive-Bayes posteriors, rule confidences, the fusion's agreement
 * factor) are ordered sensibly but far from probabilities: naive Bayes is overconfident, and a
 * posterior of 0.99 on a path unlike the lab's is right much less often than 99 in 100.
 */
import { z } from 'zod';
import { confidenceModelSchema } from './confidence.js';

export const calibrationSchema = z.object({
  /** Raw confidences (ascending) and the probability of being right at each; linear between. */
  raw: z.array(z.number().min(0).max(1)),
  calibrated: z.array(z.number().min(0).max(1)),
  /** What it was fitted on (e.g. leave one condition out over which grid). */
  fittedOn: z.string(),
}).refine((c) => c.raw.length === c.calibrated.length && c.raw.length > 0, 'raw and calibrated must be non-empty and as long as each other');
export type Calibration = z.infer<typeof calibrationSchema>;

/** Isotonic regression of outcomes (1 right, 0 wrong) on raw confidence. */
export function fitCalibration(points: Array<{ confidence: number; right: boolean }>, fittedOn: string, minBlock = 10): Calibration {
  const sorted = [...points].sort((a, b) => a.confidence - b.confidence);
  // Blocks of [sum of outcomes, count, mean raw]; merge while a block's mean exceeds the next's.
  const blocks: Array<{ y: number; n: number; x: number }> = [];
  for (const p of sorted) {
    blocks.push({ y: p.right ? 1 : 0, n: 1, x: p.confidence });
    for (;;) {
      const k = blocks.length;
      if (k < 2) break;
      const [a, b] = [blocks[k - 2], blocks[k - 1]];
      // Pool violators, and keep merging blocks too small to be a rate.
      if (a.y / a.n >= b.y / b.n || a.n < minBlock) {
        blocks.splice(k - 2, 2, { y: a.y + b.y, n: a.n + b.n, x: (a.x * a.n + b.x * b.n) / (a.n + b.n) });
      } else break;
    }
  }
  // A last block too small to stand merges into the one before it.
  while (blocks.length > 1 && blocks[blocks.length - 1].n < minBlock) {
    const b = blocks.pop()!;
    const a = blocks.pop()!;
    blocks.push({ y: a.y + b.y, n: a.n + b.n, x: (a.x * a.n + b.x * b.n) / (a.n + b.n) });
  }
  if (blocks.length === 0) return { raw: [0, 1], calibrated: [0, 1], fittedOn };
  return {
    raw: blocks.map((b) => Number(b.x.toFixed(4))),
    calibrated: blocks.map((b) => Number((b.y / b.n).toFixed(4))),
    fittedOn,
  };
}

/** The calibrated probability of a raw confidence (linear between fitted points, flat beyond). */
export function calibrate(c: Calibration | undefined, raw: number): number {
  if (!c) return raw;
  const { raw: xs, calibrated: ys } = c;
  if (raw <= xs[0]) return ys[0];
  if (raw >= xs[xs.length - 1]) return ys[ys.length - 1];
  let i = 1;
  while (xs[i] < raw) i++;
  const f = (raw - xs[i - 1]) / (xs[i] - xs[i - 1] || 1);
  return ys[i - 1] + f * (ys[i] - ys[i - 1]);
}

/**
 * The model's maps: one for verdicts fused over several profiles, one for a single flow's verdict
 * (a foreign capture, a single-profile run): their raw confidences come from different rules.
 */
export const calibrationsSchema = z.object({
  fused: calibrationSchema,
  single: calibrationSchema,
  /**
   * When present, a verdict's indicators (confidence.ts) go through these logistic models first
   * and the isotonic maps above take their output, not the raw confidence.
   */
  fusedModel: confidenceModelSchema.optional(),
  singleModel: confidenceModelSchema.optional(),
  /**
   * A verdict whose calibrated confidence stays below this names no CCA: it is Unknown with
   * "low confidence" and what it would have said (0: every answer stands, with its confidence).
   */
  minAnswer: z.number().min(0).max(1).default(0),
  /**
   * The same for a verdict read under one profile only (absent: minAnswer). WHY higher: one trace
   * is one look at the sender; leaving one grid condition out, single-profile answers at 0.9-0.95
   * were right 6 times in 9.
   */
  minAnswerSingle: z.number().min(0).max(1).optional(),
});
export type Calibrations = z.infer<typeof calibrationsSchema>;
