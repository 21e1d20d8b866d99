/**
 * Stage 3b: the feature vector of one usable segment: the fitted polynomial (padded to
 * cubic, constant term dropped as in Nebby's a, b, c), physical descriptors that separate
 * AIMD variants (back-off depth = 1 - beta, start level, growth per RTT), and three shape
 * descriptors that do not depend on which degree won (so a degree flip between two fits
 * of the same shape does not move the segment across the feature space):
 *  - meanLevel: area under the normalised curve (concave growth high, late pulse low);
 *  - halfRiseAt: where the curve first reaches half its range;
 *  - logTotalVariation: path length / net rise (1 for a monotone ramp, large for noise).
 */
import type { PipelineConfig } from './config.js';
import type { Segment } from './segment.js';
import { fitBestPolynomial, normaliseSegment, type ShapeFit } from './shape.js';

export const SEGMENT_FEATURE_NAMES = [
  'c3',
  'c2',
  'c1',
  'degree',
  'logMse',
  'startRatio',
  'closingDepth',
  'logDurationRtts',
  'logGrowthPerRtt',
  'meanLevel',
  'halfRiseAt',
  'logTotalVariation',
] as const;
export type SegmentFeatureName = (typeof SEGMENT_FEATURE_NAMES)[number];

export interface SegmentShape {
  segment: Segment;
  /** Present for usable segments only. */
  fit?: ShapeFit;
  /** Ordered as SEGMENT_FEATURE_NAMES; present for usable segments only. */
  vector?: number[];
}

export function describeSegment(y: Float64Array, seg: Segment, cfg: Pick<PipelineConfig, 'shape' | 'segments'>): SegmentShape {
  if (!seg.usable) return { segment: seg };
  const norm = normaliseSegment(y, seg.iStart, seg.iEnd, cfg.segments.resamplePoints);
  const fit = fitBestPolynomial(norm, cfg.shape.lambda, cfg.shape.maxDegree);
  let peak = 0;
  for (let i = seg.iStart; i <= seg.iEnd; i++) peak = Math.max(peak, y[i]);
  const start = y[seg.iStart];
  const startRatio = peak > 0 ? start / peak : 0;
  const growthPerRtt = seg.durationRtts > 0 ? (1 - startRatio) / seg.durationRtts : 0;
  const c = (k: number): number => fit.coefficients[k] ?? 0;
  let area = 0;
  let tv = 0;
  let half = 1;
  for (let p = 0; p < norm.length; p++) {
    area += norm[p] / norm.length;
    if (p > 0) tv += Math.abs(norm[p] - norm[p - 1]);
    if (half === 1 && norm[p] >= 0.5) half = p / (norm.length - 1);
  }
  const netRise = Math.max(norm[norm.length - 1] - norm[0], 0.05);
  const vector = [
    c(3),
    c(2),
    c(1),
    fit.degree,
    Math.log10(fit.mse + 1e-5),
    startRatio,
    seg.closingDepth ?? 0,
    Math.log10(Math.max(seg.durationRtts, 1e-3)),
    Math.log10(growthPerRtt + 1e-4),
    area,
    half,
    Math.log10(tv / netRise),
  ];
  return { segment: seg, fit, vector };
}
