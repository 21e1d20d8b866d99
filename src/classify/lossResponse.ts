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
 *
 * Nor are they named from a TCP flow that backed off while it lost and resent nothing: no response
 * to loss is shown. WHY (session 47): lab Copa behind `video` 125 ms away (held-out hd-video-125j2)
 * backed off 3 times, lost nothing and read Illinois (calibrated 0.86-0.96), 3 runs in 3; of the
 * session's 257 flows the only ones to back off with nothing lost or resent were Copa (12) and
 * TCP-CDG (5), none a loss-based sender. Resends are counted as they pass the capture point
 * (FlowConditions.resentPackets, gap-filling ones included), not when they are resolved as losses,
 * so a cut or growing trace never reads "resent nothing" while a resend it holds is unresolved. Any
 * resend, even one that was no loss (spurious, go-back-N), keeps the answer: it moves a loss-based
 * window too; so does a capture that did not count them (QUIC, older traces). A loss-based sender
 * behind a path that marks ECN backs off without loss as well: it reads Unknown here.
 */
import type { JsonObject } from './json.js';

export const BACKOFF_DEFINED: ReadonlySet<string> = new Set(['NewReno', 'CUBIC', 'BIC', 'HTCP', 'HSTCP', 'Scalable', 'Illinois', 'Westwood', 'Veno', 'YeAH']);

interface LossLook {
  lostBytes: number | null;
  backoffsPer100Rtt: number | null;
  resentPackets: number | null;
}

/** What the loss-based classifier's explain() output says of the flow's loss and back-offs. */
function lookOf(lossEvidence: JsonObject | undefined): LossLook | null {
  if (!lossEvidence) return null;
  const lost = lossEvidence.lostBytes;
  const backoffs = (lossEvidence.descriptor as { backoffsPer100Rtt?: unknown } | undefined)?.backoffsPer100Rtt;
  const resent = lossEvidence.resentPackets;
  return {
    lostBytes: typeof lost === 'number' ? lost : null,
    backoffsPer100Rtt: typeof backoffs === 'number' && Number.isFinite(backoffs) ? backoffs : null,
    resentPackets: typeof resent === 'number' ? resent : null,
  };
}

/**
 * Why this answer cannot stand (null: not such a controller, or some profile's trace lost bytes or
 * could not count its loss or back-offs, or some profile that backed off resent something or did
 * not count its resends): a flow verdict passes its own classifiers' explain() output, a fused
 * verdict each judged profile's (`evidence.classifiers`).
 */
export function lossResponseWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (!BACKOFF_DEFINED.has(label)) return null;
  const looks = classifiers.map((c) => lookOf(c?.['loss-based']));
  if (looks.length === 0) return null;
  const measuredNoLoss = (l: LossLook | null): l is LossLook & { backoffsPer100Rtt: number } => l !== null && l.lostBytes === 0 && l.backoffsPer100Rtt !== null;
  if (!looks.every(measuredNoLoss)) return null;
  if (looks.every((l) => l.backoffsPer100Rtt === 0)) {
    return `${label} is told by its response to loss, and the flow lost nothing and never backed off after start-up: growth and level alone do not show it (a delay-based controller looks like this)`;
  }
  if (looks.every((l) => l.resentPackets === 0)) {
    return `${label} backs off on loss, and the flow backed off while it lost and resent nothing: no response to loss is shown (delay-based controllers such as Copa or TCP-CDG back off like this)`;
  }
  return null;
}
