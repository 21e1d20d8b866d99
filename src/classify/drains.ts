/**
 * Vegas holds a level a few packets above the BDP and leaves it only on a loss (halving, then
 * growing back one packet per RTT) or a rise in delay; it never drains the level for a moment and
 * comes straight back. BBR does: its ProbeRTT drops the window for ~200 ms plus a round trip
 * every 5-10 s. A flow that drained a held level like that at least twice, seconds apart, is not
 * named Vegas, whatever its learned shape says. WHY (session 45): lab BBRv2 behind `video` at
 * 30 ms cruises flat between ProbeRTT drains 10 s apart, no ProbeBW probing to read, and the
 * learned Vegas class took it at 1.00 (0.86-0.88 calibrated). Over every stored lab set (~1400
 * flows) no Vegas flow (86) had two such drains, the lossy conditions' included: a loss recovery
 * comes as a cluster of dips, not as lone drains. AkamaiCC-like is left out: its own rule reads
 * periodic back-offs to a level it returns to (akamai.ts), which could be such drains.
 *
 * Drains are the bbr classifier's dips (rate analysis: short falls below the held level, kept in
 * its explain() output); a drain is lone when no other dip lies within LONE_GAP_SECONDS of it.
 */
import type { JsonObject } from './json.js';

const LEVEL_HOLDERS: ReadonlySet<string> = new Set(['Vegas']);

/** A dip this close to another belongs to one episode (a loss recovery's several falls), not a lone drain. */
const LONE_GAP_SECONDS = 2;
/** Lone drains closer than this count once: ProbeRTT comes every 5 s (BBRv2/v3) or 10 s (BBRv1) at the most. */
const MIN_SPACING_SECONDS = 3.5;
/** Two drains are a rhythm; one may be anything (a start-up's last drain, a host stall). */
const MIN_DRAINS = 2;

interface Dip { tStart: number; tEnd: number; depth: number }

function dipsOf(bbrEvidence: JsonObject | undefined): Dip[] {
  const dips = bbrEvidence?.dips;
  if (!Array.isArray(dips)) return [];
  return dips.filter((d): d is Dip & JsonObject => typeof d === 'object' && d !== null && !Array.isArray(d)
    && typeof d.tStart === 'number' && typeof d.tEnd === 'number' && typeof d.depth === 'number');
}

/** The lone drains at least MIN_SPACING_SECONDS apart, in time order. */
export function loneDrains(dips: Dip[]): Dip[] {
  const lone = dips.filter((d, i) => (i === 0 || d.tStart - dips[i - 1].tEnd >= LONE_GAP_SECONDS)
    && (i === dips.length - 1 || dips[i + 1].tStart - d.tEnd >= LONE_GAP_SECONDS));
  const spaced: Dip[] = [];
  for (const d of lone) if (spaced.length === 0 || d.tStart - spaced[spaced.length - 1].tStart >= MIN_SPACING_SECONDS) spaced.push(d);
  return spaced;
}

/**
 * Why this answer cannot stand (null: not Vegas, or no profile's trace drained its
 * level twice): a flow verdict passes its own classifiers' explain() output, a fused verdict each
 * profile's (`evidence.classifiers`).
 */
export function drainsWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (!LEVEL_HOLDERS.has(label)) return null;
  for (const c of classifiers) {
    const drains = loneDrains(dipsOf(c?.bbr));
    if (drains.length < MIN_DRAINS) continue;
    const at = drains.map((d) => d.tStart.toFixed(1)).join(', ');
    const deepest = Math.max(...drains.map((d) => d.depth));
    return `${label} leaves its level only on loss or delay, and the flow drained it ${drains.length} times (at ${at} s, by up to ${(100 * deepest).toFixed(0)}%), each time back within moments: ProbeRTT-like, a BBR-like sender looks like this`;
  }
  return null;
}
