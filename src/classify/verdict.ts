/**
 * The verdict: a label (a CCA, or an honest non-answer), a confidence, a reason, and the
 * evidence the report draws (segments with their polynomials, back-offs, periods,
 * posteriors). Plain JSON: JSON.parse(JSON.stringify(v)) deep-equals v.
 */
import { z } from 'zod';
import type { FlowConditions } from '../trace/types.js';
import type { Json, JsonObject } from './json.js';
import type { Claim } from './types.js';

export const SHORT_FLOW = 'Short flow';
export const APP_LIMITED = 'Application-limited';
export { UNKNOWN } from './types.js';

export type VerdictKind = 'cca' | 'short-flow' | 'application-limited' | 'unknown';
export type ShapeCluster = 'linear' | 'quadratic' | 'cubic';

/** Nebby Table 6.3: which polynomial degree each loss-based Linux CCA's segments take. */
export const SHAPE_CLUSTERS: Readonly<Record<string, ShapeCluster>> = {
  bic: 'linear',
  yeah: 'linear',
  scalable: 'linear',
  hstcp: 'linear',
  vegas: 'linear',
  veno: 'linear',
  illinois: 'quadratic',
  newreno: 'quadratic',
  reno: 'quadratic',
  westwood: 'quadratic',
  cubic: 'cubic',
  htcp: 'cubic',
};

export function shapeClusterOf(label: string): ShapeCluster | null {
  return SHAPE_CLUSTERS[label.toLowerCase().replace(/[^a-z]/g, '')] ?? null;
}

export interface SegmentEvidence {
  index: number;
  tStart: number;
  tEnd: number;
  durationRtts: number;
  samples: number;
  openedBy: string;
  closedBy: string;
  usable: boolean;
  dropReason?: string;
  /** coefficients[k] multiplies x^k on x in [0, 1], BiF normalised to [0, 1]. */
  polynomial?: { degree: number; coefficients: number[]; mse: number; score: number };
  match?: string;
  posterior?: Record<string, number>;
  note?: string;
}

export interface FlowEvidence {
  rttSeconds: number;
  durationSeconds: number;
  samples: number;
  appLimitedFraction: number;
  slowStartEndSeconds: number | null;
  /** Median smoothed BiF after slow start (bytes). */
  levelBytes: number | null;
  /** The smoothed series, decimated for drawing: t = t0 + i * dt. */
  smoothed: { t0: number; dt: number; bif: number[] };
  backoffs: Array<{ tPeak: number; tTrough: number; depth: number }>;
  segments: SegmentEvidence[];
  claims: Claim[];
  /** Each classifier's explain() output, by classifier name. */
  classifiers: Record<string, JsonObject>;
  /** Mean loss-based posterior over judged segments. */
  lossPosterior: Record<string, number> | null;
}

export interface Verdict {
  schemaVersion: 1;
  label: string;
  kind: VerdictKind;
  /** In [0, 1]; 0 for non-answers. */
  confidence: number;
  reason: string;
  shapeCluster: ShapeCluster | null;
  evidence: FlowEvidence | null;
  /** For a fused verdict: the per-profile verdicts it was built from. */
  profiles?: Verdict[];
  /** Extra notes from fusion (e.g. the AkamaiCC level-vs-BDP check). */
  notes?: string[];
  /** The conditions the verdict was read under, and whether the model was trained under such. */
  conditions?: VerdictConditions;
  /**
   * For a "low confidence" Unknown: the answer the calibration held back, with its calibrated
   * confidence and the model's minimum answer it fell below. Not an answer: readers that
   * weigh evidence (a check) may show it and weigh it against their own bar.
   */
  withheld?: WithheldAnswer;
}

export interface WithheldAnswer {
  label: string;
  confidence: number;
  minAnswer: number;
}

export interface VerdictConditions {
  /** What the capture showed of its own conditions (src/trace/conditions.ts), when measured. */
  measured: FlowConditions | null;
  /** Inside the conditions the model was trained under (envelope.ts). */
  inside: boolean;
  /** Largest per-axis distance to the nearest training flow, in axis units (<= 1 is inside; up to log2(2.8) / 1 on the BDP axis, envelope.ts VERDICT_INSIDE_SCALES). */
  distance: number | null;
  /** Why the conditions are outside, when they are. */
  outsideReason: string | null;
  /**
   * Axes left out of the check because the answer does not rest on a learned shape (classifyFlow.ts
   * signatureUnderLoss: BBRv1's ProbeRTT under loss before the capture point); `distance` is then
   * the distance on the other axes, and the fusion does not weigh this profile's learned shape.
   */
  skippedAxes?: string[];
  /** How the measuring host disturbed the bottleneck, when it did enough to matter. */
  disturbed: string | null;
  /**
   * When the verdict was withheld for conditions outside the trained ones: the CCA its shape
   * alone named, and how sure (raw, uncalibrated). Not an answer; the fusion reads it as a
   * disagreement with another profile's lone answer (fusion.ts loneProfileDoubt).
   */
  shapeSaid?: { label: string; confidence: number };
}


const claimSchema = z.object({
  classifier: z.string(),
  label: z.string(),
  scope: z.enum(['flow', 'segment']),
  segmentIndex: z.number().int().optional(),
  confidence: z.number().min(0).max(1),
  posterior: z.record(z.string(), z.number()).optional(),
  inDistribution: z.array(z.string()).optional(),
  gateRatio: z.number().optional(),
  nearer: z.string().optional(),
  idleBeyond: z.array(z.string()).optional(),
  beyondTrained: z.array(z.string()).optional(),
  note: z.string().optional(),
});

const segmentEvidenceSchema = z.object({
  index: z.number().int(),
  tStart: z.number(),
  tEnd: z.number(),
  durationRtts: z.number(),
  samples: z.number().int(),
  openedBy: z.string(),
  closedBy: z.string(),
  usable: z.boolean(),
  dropReason: z.string().optional(),
  polynomial: z.object({ degree: z.number().int(), coefficients: z.array(z.number()), mse: z.number(), score: z.number() }).optional(),
  match: z.string().optional(),
  posterior: z.record(z.string(), z.number()).optional(),
  note: z.string().optional(),
});

const jsonSchema: z.ZodType<Json> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(jsonSchema), z.record(z.string(), jsonSchema)]),
);

const flowEvidenceSchema = z.object({
  rttSeconds: z.number(),
  durationSeconds: z.number(),
  samples: z.number().int(),
  appLimitedFraction: z.number(),
  slowStartEndSeconds: z.number().nullable(),
  levelBytes: z.number().nullable(),
  smoothed: z.object({ t0: z.number(), dt: z.number(), bif: z.array(z.number()) }),
  backoffs: z.array(z.object({ tPeak: z.number(), tTrough: z.number(), depth: z.number() })),
  segments: z.array(segmentEvidenceSchema),
  claims: z.array(claimSchema),
  classifiers: z.record(z.string(), z.record(z.string(), jsonSchema)),
  lossPosterior: z.record(z.string(), z.number()).nullable(),
});

/** For readers of stored verdicts (e.g. verdicts.json): validates one verdict, fused or not. */
export const verdictSchema: z.ZodType<Verdict> = z.lazy(() =>
  z.object({
    schemaVersion: z.literal(1),
    label: z.string(),
    kind: z.enum(['cca', 'short-flow', 'application-limited', 'unknown']),
    confidence: z.number().min(0).max(1),
    reason: z.string(),
    shapeCluster: z.enum(['linear', 'quadratic', 'cubic']).nullable(),
    evidence: flowEvidenceSchema.nullable(),
    profiles: z.array(verdictSchema).optional(),
    notes: z.array(z.string()).optional(),
    conditions: z.object({
      measured: z.record(z.string(), z.unknown()).nullable(),
      inside: z.boolean(),
      distance: z.number().nullable(),
      outsideReason: z.string().nullable(),
      skippedAxes: z.array(z.string()).optional(),
      disturbed: z.string().nullable(),
      shapeSaid: z.object({ label: z.string(), confidence: z.number().min(0).max(1) }).optional(),
    }).optional(),
    withheld: z.object({ label: z.string(), confidence: z.number().min(0).max(1), minAnswer: z.number().min(0).max(1) }).optional(),
  }) as z.ZodType<Verdict>,
);
