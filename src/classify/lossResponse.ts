/**
 * The controllers told apart by how they respond to loss (AIMD and probing designs) are named only
 * from a trace that shows some response: a flow that lost nothing and never backed off after
 * start-up shows only its growth and level, which a delay-based stranger shares. WHY: over every
 * stored lab set and the session-36 rounds (~1000 single-profile answers naming such a controller),
 * the answers from such flows were 3, all wrong (lab Copa behind `video` read Illinois at 1.00,
 * calibrated 0.81; open-set TCP-NV read Illinois twice), while no right answer came from one; with
 * "lost under 0.1%" instead of nothing, 3 right answers (Westwood, Veno) would have gone too.
 * The delay- and model-based controllers (Vegas, BBR, Copa, FAST) are not concerned: an unlossy
 * flat shape is their signature.
 */
import type { JsonObject } from './json.js';

export const BACKOFF_DEFINED: ReadonlySet<string> = new Set(['NewReno', 'CUBIC', 'BIC', 'HTCP', 'HSTCP', 'Scalable', 'Illinois', 'Westwood', 'Veno', 'YeAH']);

interface LossLook {
  lostBytes: number | null;
  backoffsPer100Rtt: number | null;
}

/** What the loss-based classifier's explain() output says of the flow's loss and back-offs. */
function lookOf(lossEvidence: JsonObject | undefined): LossLook | null {
  if (!lossEvidence) return null;
  const lost = lossEvidence.lostBytes;
  const backoffs = (lossEvidence.descriptor as { backoffsPer100Rtt?: unknown } | undefined)?.backoffsPer100Rtt;
  return {
    lostBytes: typeof lost === 'number' ? lost : null,
    backoffsPer100Rtt: typeof backoffs === 'number' && Number.isFinite(backoffs) ? backoffs : null,
  };
}

/**
 * Why this answer cannot stand (null: not such a controller, or some profile's trace lost bytes,
 * backed off, or could not count either): a flow verdict passes its own classifiers' explain()
 * output, a fused verdict each judged profile's (`evidence.classifiers`).
 */
export function lossResponseWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (!BACKOFF_DEFINED.has(label)) return null;
  const looks = classifiers.map((c) => lookOf(c?.['loss-based']));
  if (looks.length === 0 || looks.some((l) => l === null || l.lostBytes === null || l.backoffsPer100Rtt === null || l.lostBytes > 0 || l.backoffsPer100Rtt > 0)) return null;
  return `${label} is told by its response to loss, and the flow lost nothing and never backed off after start-up: growth and level alone do not show it (a delay-based controller looks like this)`;
}
