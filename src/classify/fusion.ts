/**
 * Verdict fusion. Within a flow (Nebby's rule): a flow is CCA X when some of its segments
 * or flow-level claims say X and none says another known CCA; conflicting or absent
 * claims give 'Unknown'. Across network profiles of one measurement: agreeing CCA
 * verdicts reinforce each other, disagreeing ones give 'Unknown'.
 */
import { jsonNumber, type JsonObject } from './json.js';
import { UNKNOWN, type Claim } from './types.js';
import { APP_LIMITED, SHORT_FLOW, shapeClusterOf, type Verdict, type VerdictKind } from './verdict.js';
import { AKAMAI } from './classifiers/akamai.js';
import { BBR_V1, BBR_V2, BBR_V3, type V1BackingEvidence } from './classifiers/bbr.js';
import { calibrate, type Calibrations } from './calibration.js';
import { hstcpWithheld, newRenoWithheld } from './hstcp.js';
import { drainsWithheld } from './drains.js';
import { akamaiQueueWithheld, vegasQueueWithheld } from './vegasQueue.js';
import { depthWithoutQueueWithheld, venoWithheld } from './backoffQueue.js';
import { BACKOFF_DEFINED, lossResponseWithheld } from './lossResponse.js';
import { confidenceOf, reliabilityOf } from './confidence.js';
import { ONE_PROFILE_BEYOND } from './oneProfileSignatures.js';

export interface FlowDecision {
  label: string;
  kind: VerdictKind;
  confidence: number;
  reason: string;
}

export function decideFromClaims(claims: Claim[]): FlowDecision {
  const known = claims.filter((c) => c.label !== UNKNOWN);
  const judgedSegments = claims.filter((c) => c.scope === 'segment').length;
  const labels = mergeBbrVersions([...new Set(known.map((c) => c.label))].sort(), known);
  if (labels.length === 0) {
    const notes = claims.filter((c) => c.note).map((c) => `${c.classifier}: ${c.note}`);
    const why = notes.length ? notes.join('; ') : judgedSegments > 0 ? `${judgedSegments} segment(s) judged, none matched a known CCA` : 'no loss-based shape and no rate-based signature';
    return { label: UNKNOWN, kind: 'unknown', confidence: 0, reason: why };
  }
  if (labels.length > 1) {
    const parts = labels.map((l) => `${l} (${known.filter((c) => c.label === l).length})`);
    return { label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `conflicting claims: ${parts.join(' vs ')}` };
  }
  const label = labels[0];
  const mine = known.filter((c) => c.label === label || (isBbr(label) && isBbr(c.label)));
  const segs = mine.filter((c) => c.scope === 'segment').length;
  const classifiers = [...new Set(mine.map((c) => c.classifier))];
  // Each classifier's own confidence; the answer takes the surest. WHY not their mean: agreeing
  // evidence from another classifier must not lower the answer. It did: a lab BBRv1 flow whose
  // shape matched at 1.00 dropped to 0.90 once its first ProbeRTT (the bbr rule's 0.80 claim)
  // was seen, and the calibration read that as 0.55-0.76, Unknown from 22 s of trace on.
  const confidence = Math.max(...classifiers.map((name) => ownConfidence(mine.filter((c) => c.classifier === name), judgedSegments)));
  const detail = segs > 0 ? `${segs} of ${judgedSegments} judged segment(s) match` : mine.map((c) => c.note ?? '').join('; ');
  return { label, kind: 'cca', confidence: jsonNumber(confidence) ?? 0, reason: `${classifiers.join(', ')}: ${detail}` };
}

/** One classifier's claims for an answer: their mean confidence, discounted when only some judged segments agree. */
function ownConfidence(claims: Claim[], judgedSegments: number): number {
  const mean = claims.reduce((a, c) => a + c.confidence, 0) / claims.length;
  const segs = claims.filter((c) => c.scope === 'segment').length;
  // Segment support: all judged segments agreeing is stronger than one out of many.
  return judgedSegments > 0 && segs > 0 ? mean * (0.5 + (0.5 * segs) / judgedSegments) : mean;
}

const isBbr = (l: string): boolean => l.startsWith('BBR');

/**
 * Claims that differ only in the BBR version are one answer: the learned model knows the lab's
 * BBRv1, the rule-based detector reads ProbeRTT timing; the more confident claim names it.
 */
export function mergeBbrVersions(labels: string[], claims: Array<{ label: string; confidence: number }>): string[] {
  if (labels.length < 2 || !labels.every(isBbr)) return labels;
  const best = claims.filter((c) => isBbr(c.label)).reduce((a, b) => (b.confidence > a.confidence ? b : a));
  return [best.label];
}

/**
 * True when the answer would rest on one profile's flow that never backed off after start-up
 * (only its growth is seen, not its loss response) while no other profile's flow was like any
 * trained class. WHY: held out of training, BIC and Scalable under nebby-100 grow slowly
 * without a loss in 30 s, which Illinois also does; their nebby-50 flows matched nothing. Every
 * such answer in the lab benchmarks was wrong (6 of 6, hold one out), every right answer from
 * one judged profile had >= 1.7 back-offs per 100 RTTs (13 of 13).
 */
function growthAlone(verdicts: Verdict[], judged: number): boolean {
  if (judged !== 1 || verdicts.length < 2) return false;
  const isJudged = (v: Verdict) => (lossClaimOf(v)?.inDistribution ?? []).length > 0;
  const judgedFlow = verdicts.find(isJudged);
  // The others must have been judged and matched nothing (not short, idle or unclaimed flows).
  const othersMatchedNothing = verdicts.every((v) => v === judgedFlow || (lossClaimOf(v) !== undefined && !isJudged(v)));
  return othersMatchedNothing && judgedFlow !== undefined && backoffsPer100Rtt(judgedFlow) === 0;
}

/** Back-offs per 100 RTTs after start-up in a verdict's learned descriptor (undefined: not judged). */
const backoffsPer100Rtt = (v: Verdict): number | undefined =>
  ((v.evidence?.classifiers?.['loss-based'] as { descriptor?: Record<string, unknown> } | undefined)?.descriptor?.backoffsPer100Rtt as number | undefined);

/**
 * True when a BBRv2 answer among these claims (one flow's, or every profile's of a measurement)
 * would rest on the bbr rule's ~5 s ProbeRTT rhythm alone where the learned shapes know BBRv3: no
 * loss-based claim named BBRv2, and a loss-based posterior holds BBRv3 (the model has that class
 * for the flow's transport). Both BBR versions enter ProbeRTT every 5 s (IETF BBR draft), so the
 * rhythm does not tell them apart (classifyFlow.ts sharedV2Rhythm; the fusion reads it the same way).
 */
export function v2FromRhythmAlone(claims: Claim[]): boolean {
  const shapes = claims.filter((c) => c.classifier === 'loss-based');
  return !shapes.some((c) => c.label === BBR_V2) && shapes.some((c) => c.posterior?.[BBR_V3] !== undefined);
}

/** True when some rule-based classifier (not the learned shapes) named a CCA in this verdict's flow. */
const ruleClaimed = (v: Verdict): boolean => (v.evidence?.claims ?? []).some((c) => c.classifier !== 'loss-based' && c.label !== UNKNOWN);

/** A verdict's flow-level loss-based claim with its posterior, if the classifier judged it. */
const lossClaimOf = (v: Verdict): Claim | undefined =>
  v.evidence?.claims.find((c) => c.classifier === 'loss-based' && c.scope === 'flow' && c.posterior);

/** The class with the highest posterior (the first on a tie) and its probability. */
const likeliest = (posterior: Record<string, number>): [string, number] =>
  Object.entries(posterior).reduce((a, b) => (b[1] > a[1] ? b : a), ['', -Infinity] as [string, number]);

const NON_ANSWER_PRIORITY: string[] = [UNKNOWN, APP_LIMITED, SHORT_FLOW];

/**
 * BBR versions told apart by their learned shapes alone: named only when every profile's flow
 * lies inside the conditions the model was trained under and was not disturbed (versionDoubt).
 * WHY: v2 and v3 differ in details (ProbeBW DOWN at 0.75 vs 0.91 of the bandwidth, v3's 2 extra
 * packets in UP, v2's packet conservation in recovery), not in a signature a rule reads; issue
 * 17's busy-host round at 60 ms with jitter (a condition never trained on) had a BBRv3 named
 * BBRv2 at 0.94 by nebby-100, its nebby-50 flow lying outside the trained conditions. Like the
 * other doubts it applies to calibrated verdicts (fuseProfiles with a calibration).
 */
const VERSION_LABELS = new Set(['BBRv2', 'BBRv3']);

/**
 * Why a BBR version is not named although a profile named it (VERSION_LABELS), or null. A
 * rule's own claim of the version (the bbr rule's cruise and ~5 s ProbeRTT) reads a signature
 * and stands, as in loneProfileDoubt.
 */
export function versionDoubt(label: string, all: Verdict[], lossOnly: boolean): string | null {
  if (!lossOnly || !VERSION_LABELS.has(label) || all.length < 2) return null;
  const outside = all.filter((v) => !judgeable(v));
  if (outside.length === 0) return null;
  return `BBR-like, version not shown: ${label} named, but ${outside.length} of ${all.length} profiles' flows lie outside the conditions the model was trained under or were disturbed, and the version is told from the learned shapes alone`;
}

/**
 * The visible share of the round trip under which a BBR version is not told from a learned shape
 * alone (versionHiddenDoubt). WHY: v2 and v3 differ by at most ~16% of the window in ProbeBW DOWN
 * and 2 packets in UP; seen from a capture that holds under about half of the round trip (the
 * server far away), a small bottleneck's 16-packet window shows that as a packet or two, and the
 * two versions' trained shapes overlap: with both trained at 40, 80, 150 and 250 ms (session 46,
 * labs/grid-issue17-far.ts), lab BBRv2/v3 at 95-160 ms behind nebby-50 (visible share 0.38-0.51)
 * named the other version 7 times in 18 at 0.85-1.00 (the right one 4 times), while behind
 * nebby-100 (0.55-0.67) none did. Found on held-out conditions (labs/grid-heldout-delay.ts
 * hd-rtt-95j2 to hd-rtt-160j4); judged on ones chosen before it (hd-rtt-55j2, hd-rtt-205j3).
 */
export const VERSION_MIN_VISIBLE_SHARE = 0.55;

/**
 * Why a BBR version resting on learned shapes alone is not named: every judged profile that named
 * it, or whose shapes favour it (a fused answer may win on the product while each profile alone
 * stayed under its bar), saw less than VERSION_MIN_VISIBLE_SHARE of the round trip. Null
 * otherwise, or when a capture could not measure its share (a foreign capture without one is
 * judged as before). The bar equals the least share a nebby-100 flow had there: no margin.
 */
export function versionHiddenDoubt(label: string, all: Verdict[], lossOnly: boolean): string | null {
  if (!lossOnly || !VERSION_LABELS.has(label)) return null;
  const naming = all.filter(judgeable).filter((v) => {
    const c = lossClaimOf(v);
    return (v.kind === 'cca' && v.label === label) || (c !== undefined && favours(c, label));
  });
  const shares = naming.map((v) => v.conditions?.measured?.visibleShare ?? null);
  if (shares.length === 0 || shares.some((s) => s === null || s >= VERSION_MIN_VISIBLE_SHARE)) return null;
  const seen = Math.max(...(shares as number[]));
  return `BBR-like, version not shown: ${label} named from the learned shapes alone by ${shares.length > 1 ? 'flows that saw at most' : 'a flow that saw'} ${Math.round(100 * seen)}% of the round trip (under ${Math.round(100 * VERSION_MIN_VISIBLE_SHARE)}%, BBRv2 and BBRv3 look alike)`;
}

/** A profile that names a CCA while another judged profile names none must be at least this sure itself (calibrated, one profile). */
export const LONE_PROFILE_MIN_CONFIDENCE = 0.8;

/**
 * How sure a shape outside the trained conditions must be to contradict another profile's lone
 * answer: its raw posterior (such a verdict has no calibrated confidence: the maps were fitted on
 * verdicts inside the trained conditions), so a bar above the calibrated 0.8.
 */
export const SHAPE_SAID_MIN_RAW = 0.9;

/** A profile's answer; `shapeSaid`: what its shape alone named when its conditions withheld it (verdict.ts). */
type ProfileAnswer = { label: string; confidence: number; shapeSaid?: { label: string; confidence: number } };

/**
 * An answer resting on the learned shapes alone that only some profiles named, the others naming
 * nothing (a profile outside the model's conditions counts as naming nothing): the naming
 * profiles' surest own confidence (calibrated as a single-profile verdict) and the silent
 * profiles' labels, or null when every profile named something. `othersSilent`: no profile named
 * another CCA (a BBR version the fusion merged, say).
 */
function loneAnswer(label: string, profiles: ProfileAnswer[], lossOnly: boolean): { surest: number; naming: number; silent: string[]; othersSilent: boolean; contradicted: string[] } | null {
  if (!lossOnly || profiles.length < 2) return null;
  const silentOnes = profiles.filter((p) => NON_ANSWER_PRIORITY.includes(p.label));
  if (silentOnes.length === 0) return null;
  const naming = profiles.filter((p) => p.label === label);
  const surest = Math.max(0, ...naming.map((p) => p.confidence));
  const contradicted = silentOnes.flatMap((p) => (p.shapeSaid && p.shapeSaid.label !== label && p.shapeSaid.confidence >= SHAPE_SAID_MIN_RAW ? [`${p.shapeSaid.label} (${p.shapeSaid.confidence.toFixed(2)})`] : []));
  return { surest, naming: naming.length, silent: silentOnes.map((p) => p.label), othersSilent: naming.length + silentOnes.length === profiles.length, contradicted };
}

/**
 * Why a lone answer (loneAnswer) is withheld, or null. WHY: leaving one grid condition out, such
 * answers were right 40 times in 41 when the naming profile's own calibrated confidence was >= 0.8
 * and 20 times in 33 below it, and the fused calibration lifted the latter to 0.8-1.0. Rule-based
 * claims (BBR's drains, Copa's cycle) still stand from one profile: they read a signature, not a
 * likeness.
 */
export function loneProfileDoubt(label: string, profiles: ProfileAnswer[], lossOnly: boolean): string | null {
  const lone = loneAnswer(label, profiles, lossOnly);
  if (!lone) return null;
  const only = `only ${profiles.length - lone.silent.length} of ${profiles.length} profiles named ${label}, the surest at ${lone.surest.toFixed(2)} on its own`;
  // A silent profile withheld for its conditions whose shape alone named another CCA disagrees:
  // its shape is less trusted there, not evidence for the lone answer. WHY (session 44): the
  // held-out sets' one confident wrong that a condition-withheld profile saw: lab Veno at 110 ms
  // with 5 ms jitter, Illinois at 0.99 from nebby-100 while nebby-50's shape said Veno (1.00).
  if (lone.contradicted.length > 1) return `${only}; profiles withheld for their conditions looked like ${lone.contradicted.join(', ')}`;
  if (lone.contradicted.length === 1) return `${only}; a profile withheld for its conditions looked like ${lone.contradicted[0]}`;
  if (lone.surest >= LONE_PROFILE_MIN_CONFIDENCE) return null;
  return `${only} (the other: ${lone.silent.join(', ')})`;
}

/**
 * How sure a lone answer (loneAnswer) that loneProfileDoubt let through is: its surest naming
 * profile's own calibrated confidence, or null when it is not a lone answer. The fusion takes it
 * where the fused map reads lower, so such an answer always stands (it is >= 0.8 on its own, the
 * minimum answer of the shipped model). WHY: the fused map was fitted on every lone answer of the
 * grid, the unsure ones with the sure (right 60 times in 74 together) and through the fusion's
 * discount for a profile that did not agree; leaving one grid condition out, those whose naming
 * profile was >= 0.8 on its own were right 40 times in 41. Lab BBRv2 answers at 0.93-0.99 on
 * their own, the other profile outside every class, read 0.73-0.79 fused and were withheld
 * (issue 17's rounds `q10`, `q11`). A lone BBR version whose other profile lies outside the
 * trained conditions is still withheld (versionDoubt).
 */
export function loneAnswerConfidence(label: string, profiles: ProfileAnswer[], lossOnly: boolean): number | null {
  const lone = loneAnswer(label, profiles, lossOnly);
  return lone && lone.naming > 0 && lone.othersSilent ? lone.surest : null;
}

/**
 * Why an answer cannot stand because the trace does not show its own signature, or shows one it
 * cannot make, or null: HSTCP from back-offs that halve the window and NewReno from back-offs
 * that keep more than half of a large one (hstcp.ts), a controller told
 * by its loss response from a flow that showed none (lossResponse.ts), Vegas from a flow
 * that drained its level ProbeRTT-like (drains.ts) or held it with no queue (vegasQueue.ts), AkamaiCC-like
 * from a held level with a few packets queued where the akamai rule matched nowhere (vegasQueue.ts),
 * Veno from back-offs that kept far more than half the window under a queue Veno halves at, and a
 * controller told by its back-offs' depth from back-offs that all came with no queue (backoffQueue.ts). A
 * flow verdict passes its own classifiers' explain() output (classifyFlow.ts), a fused verdict
 * each judged profile's.
 */
export function signatureNotShown(label: string, classifiers: Array<Record<string, JsonObject> | undefined>): string | null {
  return hstcpWithheld(label, classifiers) ?? newRenoWithheld(label, classifiers) ?? lossResponseWithheld(label, classifiers) ?? drainsWithheld(label, classifiers)
    ?? vegasQueueWithheld(label, classifiers) ?? akamaiQueueWithheld(label, classifiers) ?? venoWithheld(label, classifiers) ?? depthWithoutQueueWithheld(label, classifiers);
}

/**
 * A profile's loss-based claim favours `label`: its likeliest class on its own, where no other
 * class's trained flows lie clearly nearer the flow (lossBased nearerClassFactor: the pick then
 * rests on the Gaussians' tails).
 */
const favours = (c: Claim, label: string): boolean => likeliest(c.posterior ?? {})[0] === label && c.nearer === undefined && !c.idleBeyond?.includes(label);

/** The profiles among `judged` whose learned shapes favour `label` (`favours`). */
function favouringProfiles(label: string, judged: Verdict[]): Verdict[] {
  return judged.filter((v) => {
    const c = lossClaimOf(v);
    return c !== undefined && favours(c, label);
  });
}

/**
 * The judged profiles whose learned shapes favour `label`, when there are some and none of them
 * backed off after start-up (a profile not judged by the learned shapes counts as having backed
 * off); else null. The evidence noBackoffDoubt and uncutAimdDoubt weigh.
 */
function uncutFavouring(label: string, judged: Verdict[]): Verdict[] | null {
  const favouring = favouringProfiles(label, judged);
  return favouring.length === 0 || favouring.some((v) => (backoffsPer100Rtt(v) ?? 1) > 0) ? null : favouring;
}

/**
 * Why a controller defined by its back-offs is not named from flows that never backed off, or
 * null: when the only judged profiles whose learned shapes favour it saw no back-off after
 * start-up, only its growth and level were read, which a stranger shares. Profiles outside the
 * trained conditions or disturbed give no evidence either way. WHY: the open set on a quiet host
 * (session 31, 10 TCP-NV measurements): NV keeps a few packets queued and never backed off under
 * nebby-50, where BIC's class took it at 0.80-0.90, 3 times in 10 (growthAlone, above, covers
 * the case where the other profile matched nothing; here it lay inside BIC's and Illinois's
 * classes, or was not judged). Applies to calibrated verdicts, as the other doubts.
 */
export function noBackoffDoubt(label: string, all: Verdict[], lossOnly: boolean): string | null {
  const judged = all.filter(judgeable);
  if (!lossOnly || !BACKOFF_DEFINED.has(label) || judged.length < 2) return null;
  const favouring = uncutFavouring(label, judged);
  if (!favouring) return null;
  // Every judged profile favouring it is evidence of its own: a shallow back-off (Scalable's 1/8) reads as none.
  if (favouring.length === judged.length) return null;
  return `${label} is told by its back-offs, and the only profile${favouring.length > 1 ? 's' : ''} whose shapes favour it (${favouring.length} of ${judged.length}) saw none after start-up: growth and level alone do not show it`;
}

/**
 * The controllers whose learned classes differ mainly in how deep they cut: the AIMD designs, one
 * increase per RTT and a multiplicative cut scaled by the window, the delay or the rate (NewReno,
 * HSTCP, Westwood+, Veno, Illinois; bench.ts DESIGN_FAMILIES).
 */
const CUT_TOLD_AIMD: ReadonlySet<string> = new Set(['NewReno', 'HSTCP', 'Westwood', 'Veno', 'Illinois']);
/** Envelope distance (envelope.ts; 1 = the edge of the trained conditions) from which uncutAimdDoubt applies. */
export const UNCUT_AIMD_FROM_DISTANCE = 0.5;

/**
 * Why an AIMD controller is not named from flows that never cut their window after start-up in the
 * outer half of the trained conditions (envelope distance >= 0.5), or null: what tells those
 * controllers apart is how deep they cut, and such a flow was named from its growth and level
 * alone, which the learned shapes read reliably only on bottlenecks like the trained ones.
 * WHY: held-out rounds at other bottleneck rates (session 54: 250-800 kbit/s behind nebby-50's
 * delay, envelope distance 0.58-1.0) read kernel Veno as Illinois at 0.81 and 0.95 and kernel
 * Scalable as Veno at 0.81, each flow without a cut after start-up; on the lab's own conditions
 * (distance ~0) such flows are named right (nebby-100: Illinois, Westwood, Veno at 0.87-1.00 with
 * no cut in 30 s), so they keep their answers there.
 * Profiles outside the trained conditions or disturbed give no evidence either way; a profile with
 * no measured conditions counts as trained. QUIC NewReno is held to it too (lab QUIC flows cut
 * often; none was seen without a cut). Applies to calibrated verdicts, as the other doubts.
 */
export function uncutAimdDoubt(label: string, all: Verdict[], lossOnly: boolean): string | null {
  if (!lossOnly || !CUT_TOLD_AIMD.has(label)) return null;
  const favouring = uncutFavouring(label, all.filter(judgeable));
  if (!favouring) return null;
  const distance = Math.min(...favouring.map((v) => v.conditions?.distance ?? 0));
  if (!(distance >= UNCUT_AIMD_FROM_DISTANCE)) return null;
  const which = favouring.length > 1 ? `the ${favouring.length} profiles` : 'the profile';
  return `${label} not shown: the AIMD controllers are told apart by how deep they cut, and ${which} whose shapes favour it never cut after start-up, in the outer half of the trained conditions (envelope distance ${distance.toFixed(2)}, threshold ${UNCUT_AIMD_FROM_DISTANCE}) where growth and level alone do not tell them apart`;
}

/**
 * Why an answer that rests on the groups added beyond the trained conditions (lossBased.ts
 * groupsNeedOutside; the claim's beyondTrained) is not given from one profile, or null: such an
 * answer needs two judged profiles whose shapes favour it. WHY: session 55, groups trained on 23
 * held-out conditions (other bottleneck rates, mostly), read on round W, which they never saw
 * (480 and 650 kbit/s behind both Nebby profiles): gated at 0.3 and answering from one profile,
 * they read 41 of 66 fused measurements right and none wrong (27 before), but single profiles
 * named a wrong CCA at 0.81-1.00 six times in 115 (none before); with this rule and the gate at
 * 0.5 (shipped), 37 / 0 fused and 29 / 0 single. A group of one or two flows per rate also holds
 * a neighbour's shape; the second profile, another window on the same server, tells them apart.
 * A profile whose answer the other groups alone gave (at 0.9 or more) needs no second one, nor
 * does a profile showing the signature its label asks for (oneProfileSignatures.ts). Applies to
 * one profile's verdict too.
 */
export function beyondTrainedDoubt(label: string, all: Verdict[], lossOnly: boolean): string | null {
  if (!lossOnly) return null;
  const favouring = favouringProfiles(label, all.filter(judgeable));
  if (!favouring.length || favouring.some((v) => !lossClaimOf(v)!.beyondTrained?.includes(label)) || favouring.length >= 2) return null;
  const own = ONE_PROFILE_BEYOND.get(label);
  if (own && favouring.every(own.shows)) return null;
  return `${label} named by groups trained beyond the model's first conditions (other bottleneck rates, buffers, distances) in one profile only: such an answer needs two profiles whose shapes favour it${own ? `, or one showing ${own.signature}` : ''}`;
}

/** Why profiles that found `label` likeliest do not favour it: another class's trained flows lie clearly nearer. */
function nearerNote(claims: Claim[], label: string): string | undefined {
  const c = claims.find((c) => likeliest(c.posterior ?? {})[0] === label && c.nearer !== undefined);
  return c ? `${label} likeliest in a profile, but ${c.nearer}'s trained flows lie clearly nearer its shape` : undefined;
}

/** Probability under which the profiles' combined loss-based posterior stays Unknown. */
const MIN_COMBINED_POSTERIOR = 0.7;

/**
 * The loss-based posteriors of the profiles multiplied (naive Bayes across independent
 * traces of one server). The winner must lie inside its class's training distribution in
 * every profile that judged the flow: a controller never seen in training rarely does. A profile
 * whose flow lies outside the winner's trained shapes but finds it likeliest all the same, and
 * which named nothing (no rule-based claim either: a BBR rule's "other version" beside a
 * BBRv1-like shape still vetoes BBRv1), does not veto it when another profile holds the flow
 * inside and favours it there (the excused profile is no favour of its own). WHY (session 59): at bottleneck rates no
 * group is trained on, one profile's flow often falls just outside the class its other profile
 * holds (kernel CUBIC at 700 kbit/s: nebby-50 CUBIC, nebby-100 "likeliest CUBIC but outside");
 * over every stored held-out set then (1259 fused) this gave 10 more right answers (3 BBRv2, 3
 * BBRv3, 2 CUBIC, Copa, YeAH) and no wrong one; judged on rounds AJ and AK and an open-set round
 * at held-out rates.
 * It must also be favoured by at least one profile on its own (its likeliest class there, with
 * no other class's trained flows clearly nearer: `favours`). WHY: a controller
 * never trained on often sits between classes, one profile leaning to X, the other to Y; the
 * product then crowns a third class Z that neither preferred but both held somewhere in
 * their tails (hold one out: YeAH -> BBRv1 when its profiles leaned NewReno and Scalable).
 * On the lab benchmarks this turned 5 of 21 held-out confident wrongs into Unknown and
 * changed no other answer (docs/benchmarks/classifier.md).
 */
export function combineLossPosteriors(verdicts: Verdict[]): { label: string; confidence: number; posterior: Record<string, number>; judged: number; note?: string } | null {
  // A profile whose flow lies outside every trained class gives no evidence either way.
  // Nor does one whose flow was too short or request-limited to read a shape from. One whose
  // flow left the link idler than a class's training flows did vetoes that class (linkIdle.ts):
  // yielding the link is a signature of its own, not a missing shape.
  const judgedClaims = verdicts
    .filter((v) => v.kind !== 'application-limited' && v.kind !== 'short-flow')
    .map(lossClaimOf)
    .filter((c): c is Claim => c !== undefined);
  const vetoed = new Set(judgedClaims.flatMap((c) => c.idleBeyond ?? []));
  const claims = judgedClaims.filter((c) => (c.inDistribution ?? []).length > 0);
  if (claims.length === 0) return null;
  const logp: Record<string, number> = {};
  for (const c of claims) for (const [k, v] of Object.entries(c.posterior ?? {})) logp[k] = (logp[k] ?? 0) + Math.log(v + 1e-12);
  const m = Math.max(...Object.values(logp));
  let z = 0;
  for (const k of Object.keys(logp)) z += Math.exp(logp[k] - m);
  const posterior: Record<string, number> = {};
  for (const k of Object.keys(logp)) posterior[k] = Math.exp(logp[k] - m) / z;
  const [best, p] = likeliest(posterior);
  const insideOf = (c: Claim) => (c.inDistribution ?? []).includes(best);
  // Profiles that named nothing at all, no rule-based claim of theirs either, whose shape favours `best`.
  const silentFavouring = new Set(verdicts.filter((v) => v.kind === 'unknown' && !ruleClaimed(v)).map(lossClaimOf).filter((c) => c !== undefined && favours(c, best)));
  const inside = claims.some(insideOf) && claims.every((c) => insideOf(c) || silentFavouring.has(c)) && !vetoed.has(best);
  // Favoured by a profile that holds the flow inside: an excused outside profile cannot be all the favour.
  const favoured = claims.some((c) => insideOf(c) && favours(c, best));
  const alone = growthAlone(verdicts, claims.length);
  const label = inside && favoured && p >= MIN_COMBINED_POSTERIOR && !alone ? best : UNKNOWN;
  const note = vetoed.has(best)
    ? `${best}'s training flows never left the link as idle as this flow did in a profile (a controller that yields the link)`
    : !inside
    ? `${best} lies outside its trained shapes in a profile`
    : !favoured
      ? nearerNote(claims, best) ?? `no profile on its own found ${best} likeliest`
      : p < MIN_COMBINED_POSTERIOR
        ? `${best} only at ${p.toFixed(2)}`
        : alone
          ? `${best} from one profile whose flow never backed off (growth alone), the other profiles' flows matching no trained class`
          : undefined;
  return { label, confidence: label === UNKNOWN ? 0 : p, posterior, judged: claims.length, ...(label === UNKNOWN && note ? { note } : {}) };
}

/**
 * Fuse the verdicts of one measurement under several network profiles into one answer: the
 * loss-based posteriors are combined (combineLossPosteriors), the rule-based classifiers'
 * claims from every profile are pooled, and one answer stands only if they all agree.
 */
export function fuseProfiles(given: Verdict[], opts: { calibration?: Calibrations } = {}): Verdict {
  const all = withSharedBbrV1Backing(given);
  const v = fuseJudged(all);
  if (v.kind !== 'cca' || !opts.calibration) return v;
  const c = opts.calibration;
  const [map, model] = all.length > 1 ? [c.fused, c.fusedModel] : [c.single, c.singleModel];
  const score = model ? confidenceOf(model, reliabilityOf(v)) : v.confidence;
  const fusedP = jsonNumber(calibrate(map, score)) ?? 0;
  const lossOnly = restsOnShapesAlone(v.label, all);
  const single = (x: Verdict) => (x.kind === 'cca' ? calibrate(c.single, c.singleModel ? confidenceOf(c.singleModel, reliabilityOf(x)) : x.confidence) : 0);
  const perProfile = all.map((x) => ({ label: x.label, confidence: single(x), ...(x.conditions?.shapeSaid ? { shapeSaid: x.conditions.shapeSaid } : {}) }));
  const doubt = loneProfileDoubt(v.label, perProfile, lossOnly);
  const doubtful = doubt ?? versionDoubt(v.label, all, lossOnly) ?? versionHiddenDoubt(v.label, all, lossOnly) ?? noBackoffDoubt(v.label, all, lossOnly) ?? uncutAimdDoubt(v.label, all, lossOnly)
    ?? beyondTrainedDoubt(v.label, all, lossOnly);
  if (doubtful) return { ...v, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null, reason: doubtful };
  const p = Math.max(fusedP, loneAnswerConfidence(v.label, perProfile, lossOnly) ?? 0);
  const minAnswer = all.length > 1 ? c.minAnswer : c.minAnswerSingle ?? c.minAnswer;
  if (p < minAnswer) {
    return { ...v, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null,
      reason: `low confidence: ${v.label} would be right about ${Math.min(Math.round(100 * p), Math.ceil(100 * minAnswer - 1e-9) - 1)} times in 100 under conditions like these (${v.reason})`,
      withheld: { label: v.label, confidence: p, minAnswer } };
  }
  return { ...v, confidence: p };
}

/** True when no judged profile's rule-based classifier (BBR's drains, Copa's cycle, ...) claimed `label`: the answer rests on the learned shapes alone. */
export function restsOnShapesAlone(label: string, profiles: Verdict[]): boolean {
  return !profiles.filter(judgeable).some((x) => (x.evidence?.claims ?? []).some((c) => c.classifier !== 'loss-based' && c.label === label));
}

const bbrBacking = (v: Verdict) => v.evidence?.classifiers?.bbr as Partial<V1BackingEvidence> | undefined;

/**
 * A profile whose learned shape said BBRv1 but whose own trace did not show BBRv1's signature
 * (classifyFlow.ts unbackedBbrV1) agrees with a BBRv1 that another profile's trace backs: a fused
 * BBRv1 needs the signature once (bbrV1Unbacked), not in every profile. WHY: `ccbrowse check`
 * of a lab kernel-BBR video (54 s, both Nebby profiles) failed 1 run in 6: its nebby-50 trace
 * showed 2 ProbeRTT drains not ~10 s apart, so that profile counted as not agreeing and the fused
 * BBRv1 fell to 0.77-0.79, under the 0.8 minimum answer.
 */
function withSharedBbrV1Backing(all: Verdict[]): Verdict[] {
  if (!all.some((v) => v.kind === 'cca' && v.label === BBR_V1 && bbrBacking(v)?.v1Backed === true && judgeable(v))) return all;
  return all.map((v) => {
    if (v.kind !== 'unknown' || bbrBacking(v)?.v1Backed !== false || !judgeable(v)) return v;
    const shape = (v.evidence?.claims ?? []).find((c) => c.classifier === 'loss-based' && c.scope === 'flow' && c.label === BBR_V1);
    if (!shape) return v;
    return { ...v, label: BBR_V1, kind: 'cca', confidence: shape.confidence, shapeCluster: null,
      reason: `BBRv1 by its learned shape (${shape.confidence.toFixed(2)}), BBRv1's signature shown by another profile's trace (alone: ${v.reason})` };
  });
}

/**
 * The learned labels of loss-based controllers, which fill the buffer and back off on loss: none
 * gives up its window at ProbeRTT's spacing (classifyFlow.ts probeRttOverShape). Not the delay- and
 * model-based ones (Vegas, Copa, AkamaiCC-like, BBR): Copa 110-190 ms away has shown ProbeRTT-like
 * drains twice (session 53).
 */
const LOSS_BASED_LABELS: ReadonlySet<string> = new Set(['NewReno', 'CUBIC', 'BIC', 'HTCP', 'HSTCP', 'Illinois', 'Scalable', 'Veno', 'Westwood', 'YeAH']);

/** Whether BBRv1's ProbeRTT seen twice may set aside a learned shape that named `label`. */
export const probeRttOutweighs = (label: string): boolean => LOSS_BASED_LABELS.has(label);

/** A BBRv1 answer standing by ProbeRTT seen twice over a learned shape that named a loss-based controller (classifyFlow.ts probeRttOverShape). */
export function shapeSetAside(v: Verdict): boolean {
  const shape = lossClaimOf(v)?.label;
  return v.kind === 'cca' && v.label === BBR_V1 && bbrBacking(v)?.v1Repeated === true && shape !== undefined && probeRttOutweighs(shape);
}

/** A profile whose conditions the model never saw, or whose bottleneck the host disturbed, gives no evidence. */
const judgeable = (v: Verdict): boolean => !v.conditions || (v.conditions.inside && v.conditions.disturbed === null);

function fuseJudged(all: Verdict[]): Verdict {
  const base = { schemaVersion: 1 as const, evidence: null, profiles: all };
  if (all.length === 0) {
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: 'no profile verdicts to fuse', shapeCluster: null };
  }
  const verdicts = all.filter(judgeable);
  if (verdicts.length === 0) {
    const why = [...new Set(all.map((v) => v.conditions?.outsideReason ?? v.conditions?.disturbed ?? v.reason))];
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `no profile could be judged: ${why.join(' / ')}`, shapeCluster: null };
  }
  // A profile that stood only by a signature (an axis skipped: classifyFlow.ts signatureUnderLoss)
  // gives no learned-shape evidence, for or against.
  // Nor does one whose BBRv1 ProbeRTT signature set its learned shape aside (classifyFlow.ts probeRttOverShape).
  const shapesRead = verdicts.filter((v) => !v.conditions?.skippedAxes?.length && !shapeSetAside(v));
  const loss = combineLossPosteriors(shapesRead);
  const ruleClaims = verdicts.flatMap((v) => (v.evidence?.claims ?? []).filter((c) => c.classifier !== 'loss-based' && c.label !== UNKNOWN));
  // Flows without evidence (fused earlier, or from older files) count by their label.
  const bare = verdicts.filter((v) => v.kind === 'cca' && !v.evidence).map((v) => ({ label: v.label, confidence: v.confidence }));
  const votes: Array<{ label: string; confidence: number; source: string }> = [
    ...(loss && loss.label !== UNKNOWN ? [{ label: loss.label, confidence: loss.confidence, source: `loss-based over ${loss.judged} profile(s)` }] : []),
    ...ruleClaims.map((c) => ({ label: c.label, confidence: c.confidence, source: c.classifier })),
    ...bare.map((b) => ({ ...b, source: 'profile verdict' })),
    // Such a profile's own answer stands by its signature (BBRv1's ProbeRTT seen twice), not by claims the fusion reads.
    ...verdicts.filter((v) => v.kind === 'cca' && v.conditions?.skippedAxes?.length).map((v) => ({ label: v.label, confidence: v.confidence, source: 'its signature under loss' })),
  ];
  let labels = [...new Set(votes.map((v) => v.label))].sort();
  labels = mergeBbrVersions(labels, votes);
  // A profile's own loss-based answer that the combination did not keep (the other profile's
  // flow lay outside that class) still contradicts a claim of another CCA: without it, a lone
  // rule-based claim from one profile would stand against a profile that named something else.
  const dissent = loss && loss.label !== UNKNOWN ? [] : shapesRead
    .flatMap((v) => (v.evidence?.claims ?? []).filter((c) => c.classifier === 'loss-based' && c.scope === 'flow' && c.label !== UNKNOWN))
    .map((c) => ({ label: c.label, confidence: c.confidence, source: 'loss-based in one profile' }));
  const contested = votes.length && dissent.length ? mergeBbrVersions([...new Set([...labels, ...dissent.map((d) => d.label)])].sort(), [...votes, ...dissent]) : labels;
  if (labels.length > 1 || contested.length > 1) {
    const all = [...votes, ...dissent];
    const parts = contested.map((l) => `${l} (${[...new Set(all.filter((v) => v.label === l).map((v) => v.source))].join(', ')})`);
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `profiles disagree: ${parts.join(' vs ')}`, shapeCluster: null };
  }
  // Profiles that each named a CCA of their own and name different ones disagree, whatever the
  // product of their posteriors favours. WHY: the product crowned one profile's answer over the
  // other's (lab NewReno read NewReno at 200 kbit/s and HSTCP at 100: fused HSTCP at 0.96, 5 of
  // 13 confident wrongs when leaving one grid condition out).
  const named = verdicts.filter((v) => v.kind === 'cca').map((v) => ({ label: v.label, confidence: v.confidence, source: 'one profile' }));
  if (named.length > 1 && mergeBbrVersions([...new Set(named.map((n) => n.label))].sort(), named).length > 1) {
    const parts = [...new Set(named.map((n) => n.label))].map((l) => `${l} (${named.filter((n) => n.label === l).length} profile(s))`);
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `profiles disagree: ${parts.join(' vs ')}`, shapeCluster: null };
  }
  if (labels.length === 1 && lossAgnosticAlone(verdicts, votes)) {
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null,
      reason: `window kept through heavy loss in only ${verdicts.filter(keptWindow).length} of ${verdicts.length} profiles, and the other profile's flow, judged by its shape, matched no BBR class (${verdicts.map((v) => v.label).join(', ')})` };
  }
  const unshown = labels.length === 1 ? signatureNotShown(labels[0], verdicts.map((v) => v.evidence?.classifiers)) : null;
  if (unshown) return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null, reason: unshown };
  if (labels.length === 1 && labels[0] === BBR_V2 && loss?.label !== BBR_V2 && v2FromRhythmAlone(verdicts.flatMap((v) => v.evidence?.claims ?? []))) {
    return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null,
      reason: 'BBR-like, version not shown: a cruise and ProbeRTT every ~5 s, which BBRv2 and BBRv3 share, and the learned shapes did not name the version' };
  }
  if (labels.length === 1 && labels[0] === BBR_V1) {
    const unbacked = bbrV1Unbacked(verdicts);
    if (unbacked) return { ...base, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null, reason: unbacked };
  }
  if (labels.length === 1) {
    const label = labels[0];
    const mine = votes.filter((v) => v.label === label || (isBbr(label) && isBbr(v.label)));
    // Mean of the profiles' confidences, discounted when not every profile says it.
    const agreeingVerdicts = verdicts.filter((v) => v.label === label);
    const agreeing = agreeingVerdicts.length;
    // Profiles that said it themselves carry their own confidence; otherwise the claims'.
    const source = agreeing ? agreeingVerdicts : mine;
    const meanConf = source.reduce((a, v) => a + v.confidence, 0) / source.length;
    let confidence = meanConf * (0.5 + (0.5 * Math.max(agreeing, 1)) / verdicts.length);
    const notes: string[] = [];
    if (label === AKAMAI) {
      const check = akamaiLevelCheck(verdicts.filter((v) => v.kind === 'cca'));
      if (check) {
        notes.push(check.note);
        if (!check.independentOfBdp) confidence *= 0.5;
      }
    }
    const reason = `${label} from ${[...new Set(mine.map((v) => v.source))].join(' and ')}; per profile: ${verdicts.map((v) => v.label).join(', ')}`;
    const out: Verdict = { ...base, label, kind: 'cca', confidence: jsonNumber(confidence) ?? 0, reason, shapeCluster: shapeClusterOf(label) };
    if (notes.length) out.notes = notes;
    return out;
  }
  const present = new Set(verdicts.map((v) => v.label));
  const label = NON_ANSWER_PRIORITY.find((l) => present.has(l)) ?? UNKNOWN;
  const kind: VerdictKind = label === SHORT_FLOW ? 'short-flow' : label === APP_LIMITED ? 'application-limited' : 'unknown';
  const why = loss ? `; combined loss-based answer withheld: ${loss.note ?? `best ${likeliest(loss.posterior).map(String).join(' at ')}`}` : '';
  return { ...base, label, kind, confidence: 0, reason: `no profile identified a CCA (${verdicts.map((v) => v.label).join(', ')})${why}`, shapeCluster: null };
}

/**
 * A fused BBRv1 needs one TCP profile whose flow shows BBRv1's own signature (bbr.ts
 * bbrV1Backing): the profiles' learned BBRv1 likeness alone also takes BBRv3, Copa and Hybla.
 * Verdicts without the evidence (QUIC, older files) leave the answer alone.
 */
function bbrV1Unbacked(verdicts: Verdict[]): string | null {
  const backing = verdicts.map((v) => v.evidence?.classifiers?.bbr as Partial<V1BackingEvidence> | undefined);
  const judged = backing.filter((b): b is { v1Backed: boolean; v1Backing: string | null } => typeof b?.v1Backed === 'boolean');
  if (judged.length === 0 || judged.some((b) => b.v1Backed)) return null;
  return `BBR-like, version not shown: the profiles' shapes say BBRv1, but no profile's trace shows BBRv1's signature (${[...new Set(judged.map((b) => b.v1Backing))].join('; ')}); BBRv2/v3 and delay-based controllers look like this`;
}

const keptWindow = (v: Verdict): boolean => (v.evidence?.claims ?? []).some((c) => c.classifier === 'loss-agnostic' && c.label !== UNKNOWN);

/**
 * True when the only evidence for the answer is the loss-agnostic rule (a window kept through
 * heavy loss) in some profiles, while another profile's flow was judged by its shape (the learned
 * model saw a loss response there) and matched no BBR class. WHY (issue 17): TCP Hybla, a
 * stranger to every class, regrows its halved window within an RTT under nebby-100 (rho = 8.4:
 * ~70 segments per RTT), so it read as a window kept through 21-22% loss and was named BBRv1 in
 * 13 of 13 measurements, while its nebby-50 flow lay outside every trained class. Quinn's BBR,
 * what the rule is for, keeps its window through loss under both profiles (44-88% lost); kernel
 * BBR is named by its drains and shape, not by this rule.
 */
function lossAgnosticAlone(verdicts: Verdict[], votes: Array<{ source: string }>): boolean {
  if (verdicts.length < 2 || votes.length === 0 || !votes.every((v) => v.source === 'loss-agnostic')) return false;
  return verdicts.some((v) => {
    if (keptWindow(v)) return false;
    const lb = v.evidence?.claims.find((c) => c.classifier === 'loss-based' && c.scope === 'flow');
    // Judged: the learned model weighed its shape (a posterior exists) and found no BBR class.
    return lb !== undefined && lb.posterior !== undefined && !(lb.inDistribution ?? []).some(isBbr) && !(v.evidence?.claims ?? []).some((c) => isBbr(c.label));
  });
}

/**
 * AkamaiCC holds a level that ignores the BDP: across profiles with different RTTs the
 * level should stay put, where a BDP-tracking or fixed-rate sender's would scale with RTT.
 * Issue 17: FAST TCP (the lab's AkamaiCC-like sender) holds a fixed number of its own packets
 * queued, so the level is the BDP plus that queue: what ignores the BDP is the queue (level in
 * segments minus the measured BDP). Lab FAST: level 34 and 51 segments, queue 18 and 19, for
 * BDPs of 16 and 33 segments (nebby-50, nebby-100). Either reading passes.
 */
function akamaiLevelCheck(vs: Verdict[]): { independentOfBdp: boolean; note: string } | null {
  const pts = vs.filter((v) => v.evidence !== null && v.evidence.levelBytes !== null);
  if (pts.length < 2) return null;
  const [va, vb] = [pts[0], pts[pts.length - 1]];
  const [a, b] = [va.evidence as NonNullable<Verdict['evidence']>, vb.evidence as NonNullable<Verdict['evidence']>];
  const rttRatio = b.rttSeconds / a.rttSeconds;
  if (Math.abs(Math.log(rttRatio)) < 0.1) return null; // profiles too alike to tell
  const levelRatio = (b.levelBytes ?? 0) / (a.levelBytes ?? 1);
  const levelIgnoresBdp = Math.abs(Math.log(levelRatio)) < Math.abs(Math.log(rttRatio)) / 2;
  const queue = (v: Verdict): { q: number; bdp: number } | null => {
    const c = v.conditions?.measured;
    const level = v.evidence?.levelBytes;
    if (!c || !(c.segmentBytes > 0) || !(Number(c.bdpPackets) > 0) || level === null || level === undefined) return null;
    return { q: level / c.segmentBytes - Number(c.bdpPackets), bdp: Number(c.bdpPackets) };
  };
  const [qa, qb] = [queue(va), queue(vb)];
  let queueNote = '';
  let queueIgnoresBdp = false;
  if (qa && qb && qa.q > 0 && qb.q > 0 && Math.abs(Math.log(qb.bdp / qa.bdp)) >= 0.1) {
    queueIgnoresBdp = Math.abs(Math.log(qb.q / qa.q)) < Math.abs(Math.log(qb.bdp / qa.bdp)) / 2;
    queueNote = `; queue above the BDP ${qa.q.toFixed(1)} and ${qb.q.toFixed(1)} segments for BDP ${qa.bdp.toFixed(1)} and ${qb.bdp.toFixed(1)}`;
  }
  const independentOfBdp = levelIgnoresBdp || queueIgnoresBdp;
  return {
    independentOfBdp,
    note: `level ratio ${levelRatio.toFixed(2)} for RTT ratio ${rttRatio.toFixed(2)}${queueNote}: ${independentOfBdp ? (levelIgnoresBdp ? 'level ignores the BDP, as AkamaiCC does' : 'the queue it keeps ignores the BDP, as FAST does') : 'level tracks the RTT, unlike AkamaiCC'}`,
  };
}
