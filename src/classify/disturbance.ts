/**
 * When the measuring host's own stalls make a trace unreliable (issue 16). A VM descheduled for
 * 5-20 ms holds the bottleneck's packets back and releases them in a burst (measured on the
 * development machines: src/shaper/host-stalls.ts); at the Nebby profiles' rates that reshapes
 * bytes in flight, and a second lab on the same 2-core host once turned a CUBIC flow into
 * "BBRv1". The session records the delay line's late releases during each flow
 * (src/shaper/disturbance.ts); a verdict taken through a bottleneck disturbed beyond these
 * bounds says so instead of naming a CCA.
 */

/** The part of the session's disturbance record the classifier reads. */
export interface HostDisturbance {
  windowSeconds: number;
  stalls: number;
  stalledMs: number;
  maxStallMs: number;
}

/** Share of the flow's time the bottleneck may be held back before its verdict is withheld. */
export const MAX_STALLED_SHARE = 0.02;
/** ... and the longest single stall, as a share of the RTT. */
export const MAX_STALL_RTT_SHARE = 0.5;

/**
 * Why the disturbance bears on a verdict, or null. WHY these bounds: the low-pass filter keeps
 * nothing faster than 1/RTT, so a stall well under an RTT only blurs a sample or two; on the
 * grid's base condition (4 probes at once beside other work) stalls of 35-67 ms, 0.1-0.5% of the
 * time, left the shipped model's answers as right as on a quiet host (34 of 36 TCP), while a rule
 * at a tenth of an RTT withheld a third of them. The host-load condition measures the bounds
 * (docs/benchmarks/conditions.md).
 */
export function disturbedReason(d: HostDisturbance | null | undefined, rttSeconds: number): string | null {
  if (!d || d.windowSeconds <= 0) return null;
  const share = d.stalledMs / 1000 / d.windowSeconds;
  if (share > MAX_STALLED_SHARE) return `the measuring host held the bottleneck back ${(100 * share).toFixed(1)}% of the time (${d.stalls} stalls, longest ${d.maxStallMs.toFixed(0)} ms): a disturbed trace`;
  if (rttSeconds > 0 && d.maxStallMs / 1000 > MAX_STALL_RTT_SHARE * rttSeconds) {
    return `the measuring host stalled the bottleneck for ${d.maxStallMs.toFixed(0)} ms, over half an RTT: a disturbed trace`;
  }
  return null;
}
