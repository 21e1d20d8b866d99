/**
 * HighSpeed TCP is NewReno until its window passes Low_Window (RFC 3649: 38 packets): below it
 * the window grows 1 packet per RTT and a loss halves it. Only a back-off shallower than halving
 * (b(w) < 0.5, so the level after it over the level before, beta, above 0.5) shows HSTCP's own
 * response; a flow whose back-offs halve the window cannot be told from NewReno, whatever the
 * learned shapes lean to. WHY: fresh quiet lab rounds (s29 r1, r2) read every kernel NewReno
 * flow under nebby-100 (beta 0.49) HSTCP at 0.97, calibrated 0.91; lab HSTCP backs off to 0.56.
 */
import type { JsonObject } from './json.js';

export const HSTCP = 'HSTCP';

/** The back-off ratio the loss-based classifier measured (its explain() descriptor), or null. */
function measuredBeta(lossEvidence: JsonObject | undefined): number | null {
  const beta = (lossEvidence?.descriptor as { beta?: unknown } | undefined)?.beta;
  return typeof beta === 'number' && Number.isFinite(beta) ? beta : null;
}

/** Why an HSTCP answer is not shown by flows with these back-off ratios (null: shown, or nothing measured). */
export function hstcpNotShown(betas: Array<number | null>): string | null {
  const measured = betas.filter((b): b is number => b !== null);
  if (measured.length === 0 || measured.some((b) => b > 0.5)) return null;
  return `NewReno-like: back-offs halve the window (beta ${measured.map((b) => b.toFixed(2)).join(', ')}), where HSTCP behaves as NewReno (RFC 3649, below 38 packets); HSTCP not shown`;
}

/**
 * Why this answer cannot stand (null: it is not HSTCP, or some profile's back-offs show HSTCP's
 * own response): a flow verdict passes its own classifiers' explain() output, a fused verdict each
 * profile's (`evidence.classifiers`).
 */
export function hstcpWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  return label === HSTCP ? hstcpNotShown(classifiers.map((c) => measuredBeta(c?.['loss-based']))) : null;
}
