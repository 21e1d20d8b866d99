/**
 * HighSpeed TCP is NewReno until its window passes Low_Window (RFC 3649: 38 packets): below it
 * the window grows 1 packet per RTT and a loss halves it. Only a back-off shallower than halving
 * (b(w) < 0.5, so the level after it over the level before, beta, above 0.53 as measured) shows HSTCP's own
 * response; a flow whose back-offs halve the window cannot be told from NewReno, whatever the
 * learned shapes lean to. WHY: fresh quiet lab rounds (s29 r1, r2) read every kernel NewReno
 * flow under nebby-100 (beta 0.49) HSTCP at 0.97, calibrated 0.91; lab HSTCP backs off to 0.56.
 *
 * The back-offs are read on the sender's whole window (senderWindow.ts) when the capture measured
 * what it cannot see: from far away both halve the visible bytes in flight or more (session 43:
 * NewReno 0.30-0.40, HSTCP 0.32-0.48 at 110-175 ms), on the whole window NewReno still halves
 * and HSTCP keeps Linux's 0.5625. A flow that halves a window well above 38 packets is still not
 * named NewReno by this: HSTCP's learned shape also takes other AIMD controllers that halve there
 * (session 43: kernel YeAH at 110 ms read HSTCP at 0.89, its whole window halved at 67 packets).
 */
import type { JsonObject } from './json.js';
import { wholeWindowOf } from './senderWindow.js';

export const HSTCP = 'HSTCP';
const NEW_RENO = 'NewReno';

/**
 * A back-off keeping more of the window than this is not halving: midway between NewReno's 0.5
 * and the 0.5625 Linux's HSTCP keeps between 38 and 118 packets (tcp_highspeed.c: 112/256 cut;
 * RFC 3649's formula keeps 0.5-0.53 below 67 packets, which then reads as not shown).
 */
export const SHALLOWER_THAN_HALVING = 0.53;

/** HSTCP's own response starts above Low_Window (RFC 3649): a shallower back-off of a smaller window is a measuring error. */
const LOW_WINDOW_PACKETS = 38;

/**
 * The back-off ratio the loss-based classifier measured: on the sender's whole window when it could
 * (capped at halving when that window was under 38 packets, where HSTCP halves too), else its
 * descriptor's; or null.
 */
function measuredBeta(lossEvidence: JsonObject | undefined): number | null {
  const whole = wholeWindowOf(lossEvidence);
  if (whole) return whole.peakPackets !== null && whole.peakPackets < LOW_WINDOW_PACKETS ? Math.min(whole.beta, 0.5) : whole.beta;
  const beta = (lossEvidence?.descriptor as { beta?: unknown } | undefined)?.beta;
  return typeof beta === 'number' && Number.isFinite(beta) ? beta : null;
}

/** One back-off alone is too noisy to withhold an answer on. */
export const MIN_BACKOFFS_AGAINST_NEW_RENO = 2;

/**
 * A TCP profile's back-offs that NewReno cannot have made: at least two, read on the sender's whole
 * window, whose median peak is >= 38 packets (Low_Window) and median ratio keeps more than halving
 * (> 0.53). WHY: round I of session 49 (h-quickack-110j2: no
 * delayed ACKs, 110 ms away) read lab HSTCP NewReno at 0.97 under nebby-50, its five back-offs
 * keeping 0.564 of a 68-packet window (Linux's 0.5625). Of the 18 lab NewReno TCP flows with
 * back-offs read in the rounds on disk then (sessions 47-49 and the committed fixtures), 17 kept
 * 0.44-0.51; the 18th, in a 0.6-BDP buffer 90 ms away, read 0.69 and was Unknown already. QUIC
 * is left out: no QUIC stack runs HSTCP, and the whole window read from QUIC flows strays further
 * (lab aioquic NewReno 0.615 at 82 packets behind `video`).
 */
function notHalvingAboveLowWindow(lossEvidence: JsonObject | undefined): string | null {
  const w = wholeWindowOf(lossEvidence);
  if (w?.transport !== 'tcp' || w.peakPackets === null || w.backoffs === null) return null;
  const shown = w.backoffs >= MIN_BACKOFFS_AGAINST_NEW_RENO && w.peakPackets >= LOW_WINDOW_PACKETS && w.beta > SHALLOWER_THAN_HALVING;
  return shown ? `${w.beta.toFixed(2)} of a ${Math.round(w.peakPackets)}-packet window (median of ${w.backoffs})` : null;
}

/** True when this profile's own back-offs (`measuredBeta`) kept more than halving: HSTCP's response shown in it. */
export function showsHstcpCut(lossEvidence: JsonObject | undefined): boolean {
  const beta = measuredBeta(lossEvidence);
  return beta !== null && beta > SHALLOWER_THAN_HALVING;
}

/** Why a NewReno answer cannot stand: some TCP profile's back-offs from >= 38 packets kept more than halving (null: none did). */
export function newRenoWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  if (label !== NEW_RENO) return null;
  const kept = classifiers.map((c) => notHalvingAboveLowWindow(c?.['loss-based'])).filter((x): x is string => x !== null);
  return kept.length === 0 ? null
    : `not NewReno's halving: back-offs kept ${kept.join('; ')} (NewReno halves; HSTCP keeps 0.56 from 38 packets up); NewReno not shown`;
}

/** Why an HSTCP answer is not shown by flows with these back-off ratios (null: shown, or nothing measured). */
export function hstcpNotShown(betas: Array<number | null>): string | null {
  const m = betas.filter((b): b is number => b !== null);
  if (m.length === 0 || m.some((b) => b > SHALLOWER_THAN_HALVING)) return null;
  return `NewReno-like: back-offs halve the window (beta ${m.map((b) => b.toFixed(2)).join(', ')}), where HSTCP behaves as NewReno (RFC 3649, below 38 packets); HSTCP not shown`;
}

/**
 * Why this answer cannot stand (null: it is not HSTCP, or some profile's back-offs show HSTCP's
 * own response): a flow verdict passes its own classifiers' explain() output, a fused verdict each
 * profile's (`evidence.classifiers`).
 */
export function hstcpWithheld(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  return label === HSTCP ? hstcpNotShown(classifiers.map((c) => measuredBeta(c?.['loss-based']))) : null;
}
