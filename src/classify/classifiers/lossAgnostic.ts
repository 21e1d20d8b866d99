/**
 * Loss-agnostic sender: BBRv1 does not treat loss as a congestion signal, so through a
 * shallow buffer it keeps its window while losing a large share of what it sends. A
 * loss-based controller cannot do that: every loss shrinks its window, and at a loss rate p
 * a Reno-like sender holds about 1.22 / sqrt(p) segments (Mathis et al., 1997; CUBIC,
 * Scalable and HSTCP are Reno-friendly at such small windows). Drop-tail losses come in
 * bursts, which makes p high for the windows seen, so loss-based flows too read above that
 * window (TCP in the lab: 1.7-20x at 0.9-7% loss): the test needs both heavy loss and a wide
 * excess.
 *
 * Measured on every lab trace with loss counts (633: training, fresh, robustness and
 * cross-traffic sets; the rule's own smoothed median):
 * - quinn's BBR: 44-88% of bytes lost, in-flight 5.1-56x the Reno window;
 * - loss-based QUIC: 3.7-17.5% lost, 0.9-3.7x; under cross traffic 14-54% lost, 1.0-1.9x
 *   (two segments in flight, the floor);
 * - TCP, kernel BBR included: at most 9% lost (its 2-BDP window fits the 2-BDP buffer), so
 *   this rule is silent on it and the learned model speaks.
 *
 * Needs the trace's loss counts (TCP retransmissions, QUIC with a key log); silent without.
 */
import { z } from 'zod';
import type { JsonObject } from '../json.js';
import { jsonNumber } from '../json.js';
import { lossShareOf } from '../../trace/loss-timeline.js';
import { median, pick } from '../stats.js';
import { defineClassifier, type Claim } from '../types.js';
import type { FlowFeatures } from '../features.js';
import { BBR_V1 } from './bbr.js';

const paramsSchema = z.object({
  /** Below this share of sent bytes lost, losses say little about how the sender reacts. */
  minLossFraction: z.number().min(0).max(1),
  /** Enough losses to be a habit, not an accident (in segments). */
  minLostSegments: z.number().nonnegative(),
  /** Median in-flight must exceed the Reno window at the measured loss rate this many times. */
  minExcessOverReno: z.number().positive(),
  confidence: z.number().min(0).max(1),
});
export type LossAgnosticParams = z.infer<typeof paramsSchema>;

interface Findings {
  lossFraction: number | null;
  lostSegments: number | null;
  medianInFlightSegments: number | null;
  renoWindowSegments: number | null;
  excess: number | null;
  match: boolean;
}

function analyse(f: FlowFeatures, p: LossAgnosticParams): Findings {
  const none: Findings = { lossFraction: null, lostSegments: null, medianInFlightSegments: null, renoWindowSegments: null, excess: null, match: false };
  const lossFraction = lossShareOf(f.loss);
  if (lossFraction === null || !f.loss || !(f.segmentBytes > 0)) return none;
  const lostSegments = f.loss.lostBytes / f.segmentBytes;
  // In-flight over grid points not excluded (idle, application-limited).
  const usable = pick(f.y, (i) => f.mask[i] === 0);
  if (usable.length === 0 || lossFraction <= 0) return { ...none, lossFraction, lostSegments };
  const medianInFlightSegments = median(usable) / f.segmentBytes;
  const renoWindowSegments = 1.22 / Math.sqrt(lossFraction);
  const excess = medianInFlightSegments / renoWindowSegments;
  const match = lossFraction >= p.minLossFraction && lostSegments >= p.minLostSegments && excess >= p.minExcessOverReno;
  return { lossFraction, lostSegments, medianInFlightSegments, renoWindowSegments, excess, match };
}

// WHY these: 20% lies between loss-based flows in a quiet bottleneck (<= 17.5%) and quinn BBR
// (>= 44%); 4x lies between any loss-based flow at >= 10% loss (<= 3.7x) and quinn BBR (>= 5.1x).
// Confidence 0.9: holding the window through such loss also rules out BBRv2/v3, which bound
// in-flight after ~2% loss, so this claim outranks a rate rule's 'BBRv2' (0.85) in a merge.
const DEFAULT_PARAMS: LossAgnosticParams = { minLossFraction: 0.2, minLostSegments: 50, minExcessOverReno: 4, confidence: 0.9 };

/** Why the loss-based classifier left a flow alone (see keepsWindowThroughLoss). */
export const NO_LOSS_RESPONSE = 'keeps its window through heavy loss: no loss response to judge';

/**
 * True when the flow kept its window through heavy loss (the rule's default thresholds: the
 * loss-based classifier, which asks, does not see the model's loss-agnostic section). It
 * neither learns from nor judges such a flow: its shape is loss recovery, not a controller's
 * response to loss.
 */
export function keepsWindowThroughLoss(f: FlowFeatures): boolean {
  return analyse(f, DEFAULT_PARAMS).match;
}

export const lossAgnosticClassifier = defineClassifier<LossAgnosticParams>({
  name: 'loss-agnostic',
  description: 'Keeps its window through heavy loss (BBRv1 through a shallow buffer)',
  labels: [BBR_V1],
  paramsSchema,
  defaultParams: () => ({ ...DEFAULT_PARAMS }),
  fit: (_examples, params) => params,
  predict(f, p): Claim[] {
    const a = analyse(f, p);
    if (!a.match) return [];
    const note = `lost ${(100 * (a.lossFraction ?? 0)).toFixed(0)}% of bytes sent yet kept a median ${a.medianInFlightSegments?.toFixed(1)} segments in flight, ` +
      `${a.excess?.toFixed(1)}x what a loss-based sender holds at that loss`;
    return [{ classifier: 'loss-agnostic', label: BBR_V1, scope: 'flow', confidence: p.confidence, note }];
  },
  explain(f, p): JsonObject {
    const a = analyse(f, p);
    return {
      lossFraction: a.lossFraction === null ? null : jsonNumber(a.lossFraction),
      lostSegments: a.lostSegments === null ? null : jsonNumber(a.lostSegments, 1),
      medianInFlightSegments: a.medianInFlightSegments === null ? null : jsonNumber(a.medianInFlightSegments, 2),
      renoWindowSegments: a.renoWindowSegments === null ? null : jsonNumber(a.renoWindowSegments, 2),
      excessOverReno: a.excess === null ? null : jsonNumber(a.excess, 2),
      decision: a.match ? BBR_V1 : null,
      note: f.loss ? (a.match ? 'keeps its window through heavy loss' : 'reacts to loss as a loss-based sender can') : 'losses unknown: the trace could not count them (QUIC without a key log)',
    };
  },
});
