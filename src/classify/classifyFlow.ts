/**
 * Top level: one flow's BiF series -> one verdict. Gates first (invalid, short,
 * application-limited), then the pipeline, then every registered classifier, then fusion.
 */
import type { BifSeries } from '../trace/types.js';
import type { PipelineConfig } from './config.js';
import { EXCLUDED_APP_LIMITED, EXCLUDED_NONE } from './exclusion.js';
import { activeCount, extractFlowFeatures, type FlowFeatures } from './features.js';
import { decideFromClaims, probeRttOutweighs, signatureNotShown, v2FromRhythmAlone, type FlowDecision } from './fusion.js';
import { jsonNumber, type JsonObject } from './json.js';
import type { Model } from './model.js';
import { classifierRegistry } from './registry.js';
import { median, pick } from './stats.js';
import { UNKNOWN, type Claim } from './types.js';
import { seriesGate } from './validate.js';
import { APP_LIMITED, SHORT_FLOW, shapeClusterOf, type FlowEvidence, type SegmentEvidence, type Verdict, type VerdictConditions } from './verdict.js';
import { checkEnvelope, UPSTREAM_LOSS_AXIS, VERDICT_INSIDE_SCALES, type EnvelopeCheck } from './envelope.js';
import { disturbedReason, type HostDisturbance } from './disturbance.js';
import { BBR_V1, BBR_V2, type V1BackingEvidence } from './classifiers/bbr.js';

const MAX_DRAW_POINTS = 512;

function emptyEvidence(series: BifSeries): FlowEvidence {
  const n = series.t.length;
  return {
    rttSeconds: jsonNumber(series.rttSeconds, 6) ?? 0,
    durationSeconds: n ? (jsonNumber(series.t[n - 1] - series.t[0], 6) ?? 0) : 0,
    samples: n,
    appLimitedFraction: 0,
    slowStartEndSeconds: null,
    levelBytes: null,
    smoothed: { t0: 0, dt: 0, bif: [] },
    backoffs: [],
    segments: [],
    claims: [],
    classifiers: {},
    lossPosterior: null,
  };
}

function nonAnswer(label: string, kind: Verdict['kind'], reason: string, evidence: FlowEvidence | null): Verdict {
  return { schemaVersion: 1, label, kind, confidence: 0, reason, shapeCluster: null, evidence };
}

function buildEvidence(f: FlowFeatures, claims: Claim[], explained: Record<string, JsonObject>): FlowEvidence {
  const step = Math.max(1, Math.ceil(f.y.length / MAX_DRAW_POINTS));
  const drawn: number[] = [];
  for (let i = 0; i < f.y.length; i += step) drawn.push(jsonNumber(f.y[i], 1) ?? 0);
  const segClaims = new Map<number, Claim>();
  for (const c of claims) if (c.scope === 'segment' && c.segmentIndex !== undefined) segClaims.set(c.segmentIndex, c);
  const segments: SegmentEvidence[] = f.segments.map(({ segment: s, fit }) => {
    const e: SegmentEvidence = {
      index: s.index,
      tStart: jsonNumber(s.tStart, 4) ?? 0,
      tEnd: jsonNumber(s.tEnd, 4) ?? 0,
      durationRtts: jsonNumber(s.durationRtts, 2) ?? 0,
      samples: s.samples,
      openedBy: s.openedBy,
      closedBy: s.closedBy,
      usable: s.usable,
    };
    if (s.dropReason) e.dropReason = s.dropReason;
    if (fit) {
      e.polynomial = {
        degree: fit.degree,
        coefficients: fit.coefficients.map((c) => jsonNumber(c, 6) ?? 0),
        mse: jsonNumber(fit.mse, 8) ?? 0,
        score: jsonNumber(fit.score, 8) ?? 0,
      };
    }
    const c = segClaims.get(s.index);
    if (c) {
      e.match = c.label;
      if (c.posterior) e.posterior = Object.fromEntries(Object.entries(c.posterior).map(([k, v]) => [k, jsonNumber(v) ?? 0]));
      if (c.note) e.note = c.note;
    }
    return e;
  });
  const lossClaim = claims.find((c) => c.classifier === 'loss-based' && c.scope === 'flow' && c.posterior);
  const lossPosterior = lossClaim?.posterior
    ? Object.fromEntries(Object.entries(lossClaim.posterior).map(([k, v]) => [k, jsonNumber(v) ?? 0]))
    : null;
  const active = pick(f.y, (i) => i >= f.slowStartEnd && f.mask[i] === 0);
  return {
    rttSeconds: jsonNumber(f.rttSeconds, 6) ?? 0,
    durationSeconds: jsonNumber(f.durationSeconds, 6) ?? 0,
    samples: f.sampleCount,
    appLimitedFraction: jsonNumber(f.appLimitedFraction) ?? 0,
    slowStartEndSeconds: f.slowStartEnd < f.y.length ? jsonNumber(f.t0 + f.slowStartEnd * f.dt, 4) : null,
    levelBytes: active.length ? jsonNumber(median(active), 1) : null,
    smoothed: { t0: jsonNumber(f.t0, 6) ?? 0, dt: jsonNumber(f.dt * step, 6) ?? 0, bif: drawn },
    backoffs: f.backoffs.map((b) => ({ tPeak: jsonNumber(b.tPeak, 4) ?? 0, tTrough: jsonNumber(b.tTrough, 4) ?? 0, depth: jsonNumber(b.depth) ?? 0 })),
    segments,
    claims: claims.map((c) => ({ ...c, confidence: jsonNumber(c.confidence) ?? 0, ...(c.posterior ? { posterior: Object.fromEntries(Object.entries(c.posterior).map(([k, v]) => [k, jsonNumber(v, 6) ?? 0])) } : {}) })),
    classifiers: explained,
    lossPosterior,
  };
}

/** At least this many bursts, most of them cut by idle time, make a flow request-limited. */
const REQUEST_LIMITED_MIN_BURSTS = 4;
/**
 * ...and the trace must show the sender out of data for this share of the time. Bulk lab
 * probes stay at or below 0.125 (their idle gaps are loss recovery: quinn's BBR), the lab
 * audio stream's segment-by-segment flow is at 0.21-0.25.
 */
const REQUEST_LIMITED_MIN_APP_LIMITED = 0.15;

/**
 * A flow with no stretch of sending long enough to judge, because idle or application-limited
 * time cut it into short bursts, is paced by the application's requests (e.g. an audio player
 * fetching one small segment at a time): say so instead of 'shape outside every trained class'.
 * It relabels an Unknown, or a likeness the learned shapes alone saw in those bursts (issue 16:
 * with classes trained across the grid, the lab audio stream's bursts fell inside a Westwood
 * class at 0.98); never a rule-based claim, which reads a signature.
 */
export function requestLimited(f: FlowFeatures, d: FlowDecision, claims: Claim[]): FlowDecision {
  if (d.kind !== 'unknown' && d.kind !== 'cca') return d;
  if (claims.some((c) => c.label !== UNKNOWN && c.classifier !== 'loss-based')) return d;
  if (f.appLimitedFraction < REQUEST_LIMITED_MIN_APP_LIMITED || f.segments.some((s) => s.segment.usable)) return d;
  const bursts = f.segments.map((s) => s.segment).filter((s) => s.openedBy === 'excluded' || s.closedBy === 'excluded');
  if (bursts.length < REQUEST_LIMITED_MIN_BURSTS || bursts.length < f.segments.length / 2) return d;
  const rtts = median(bursts.map((s) => s.durationRtts));
  return {
    label: APP_LIMITED,
    kind: 'application-limited',
    confidence: 0,
    reason: `request-limited: ${bursts.length} bursts between idle periods (median ${rtts.toFixed(1)} RTTs), no stretch of sending long enough to judge; ${d.reason}`,
  };
}

/**
 * A TCP flow the learned shapes call BBRv1 without BBRv1's signature (bbr.ts bbrV1Backing, kept in
 * the bbr classifier's evidence) is Unknown:
 * BBRv3, Copa and Hybla fall in that class too, and a census must not name YouTube's BBRv3 BBRv1.
 */
export function unbackedBbrV1(d: FlowDecision, bbrEvidence: JsonObject | undefined): FlowDecision {
  const b = bbrEvidence as Partial<V1BackingEvidence> | undefined;
  if (d.kind !== 'cca' || d.label !== BBR_V1 || b?.v1Backed !== false) return d;
  return { label: UNKNOWN, kind: 'unknown', confidence: 0,
    reason: `BBR-like, version not shown: the learned shape says BBRv1 (${d.confidence.toFixed(2)}) but the trace has ${b.v1Backing} (BBRv2/v3 and delay-based controllers look like this)` };
}

/**
 * BBRv1's ProbeRTT seen at least twice at its spacing (bbr.ts: drains, pauses or dips ~10 s apart,
 * `v1Repeated`) outweighs a learned shape that named a loss-based controller in the same flow
 * (fusion.ts probeRttOutweighs; not Vegas, Copa or AkamaiCC-like, whose delay rules can drain): such
 * a controller does not give up its window for 200 ms every ~10 s, while the learned shapes, drawn
 * under other bottlenecks, can take BBR's plateau for an AIMD cycle. WHY: session 58, over every
 * stored held-out set (1850 single-profile verdicts, rounds AE and AF included) the 7
 * flows where the two claims conflicted were all kernel BBR (the shapes said Veno, YeAH, H-TCP or
 * HSTCP); the ProbeRTT signature alone came from kernel BBR only since session 57's quick-drain bound.
 */
export function probeRttOverShape(d: FlowDecision, claims: Claim[], bbrEvidence: JsonObject | undefined): FlowDecision {
  const b = bbrEvidence as Partial<V1BackingEvidence> | undefined;
  if (d.kind !== 'unknown' || b?.v1Repeated !== true) return d;
  const signature = claims.filter((c) => c.classifier === 'bbr' && c.label === BBR_V1);
  const shape = claims.filter((c) => c.classifier === 'loss-based' && probeRttOutweighs(c.label));
  if (!signature.length || !shape.length) return d;
  const rest = decideFromClaims(claims.filter((c) => !shape.includes(c)));
  if (rest.kind !== 'cca' || rest.label !== BBR_V1) return d;
  const said = [...new Set(shape.map((c) => c.label))].join(', ');
  return { ...rest, reason: `${rest.reason}; the learned shape's ${said} set aside: a loss-based controller does not give up its window at ProbeRTT's spacing` };
}

/**
 * The bbr rule's BBRv2 signature (a cruise and ProbeRTT every ~5 s) is BBRv3's too: both enter
 * ProbeRTT every 5 s (IETF BBR draft, ProbeRTTInterval). Where the model knows BBRv3 for the
 * flow's transport, a BBRv2 answer resting on that rhythm alone, the learned shapes not naming
 * BBRv2, is Unknown (fusion.ts v2FromRhythmAlone, which the fusion reads too). WHY
 * (session 60): over every stored held-out set and committed fixture (about 4000 single-profile
 * flows) the rule named BBRv2 once, a lab BBRv3 in a 0.6-BDP buffer 90 ms away; with more groups
 * trained beyond the first conditions its learned shape no longer said BBRv1 and the rule's
 * BBRv2 stood at 0.95 fused.
 */
export function sharedV2Rhythm(d: FlowDecision, claims: Claim[]): FlowDecision {
  if (d.kind !== 'cca' || d.label !== BBR_V2 || !v2FromRhythmAlone(claims)) return d;
  return { label: UNKNOWN, kind: 'unknown', confidence: 0,
    reason: `BBR-like, version not shown: ${d.reason}, which BBRv2 and BBRv3 share (both enter ProbeRTT every 5 s), and the learned shapes did not name the version` };
}

/** An answer whose own signature the trace does not show is Unknown (fusion.ts signatureNotShown). */
function unshownSignature(d: FlowDecision, explained: Record<string, JsonObject>): FlowDecision {
  const why = d.kind === 'cca' ? signatureNotShown(d.label, [explained]) : null;
  return why ? { label: UNKNOWN, kind: 'unknown', confidence: 0, reason: `${why}; the learned shape said ${d.label} (${d.confidence.toFixed(2)})` } : d;
}

/** What a caller knows of a measurement beyond its series. */
export interface ClassifyContext {
  /** How the measuring host disturbed the bottleneck during the flow (the delay line's late releases). */
  disturbance?: HostDisturbance | null;
}

export function classifyFlow(series: BifSeries, model: Model, ctx: ClassifyContext = {}): Verdict {
  const v = classifyShape(seenFromSender(series, model.pipeline), model);
  return judgeConditions(v, series, model, ctx);
}

const senderViews = new WeakMap<BifSeries, { cfg: PipelineConfig; view: BifSeries }>();

/**
 * The series as the sender's whole path would show it (pipeline `path`): RTT-based units in the
 * sender's own round trip, and the bytes the server's side of the path holds added back. The
 * same object for the same series and pipeline, so features are extracted once (features.ts).
 */
export function seenFromSender(series: BifSeries, cfg: PipelineConfig): BifSeries {
  const p = cfg.path;
  const c = series.conditions;
  const server = c?.serverSideRttSeconds ?? null;
  if (!p || (!p.fullRtt && !p.invisiblePipe) || !c || server === null || !(server > 0)) return series;
  const hit = senderViews.get(series);
  if (hit && hit.cfg === cfg) return hit.view;
  const rate = c.deliveryKbit !== null ? (c.deliveryKbit * 1000) / 8 : 0;
  const hidden = p.invisiblePipe ? rate * server : 0;
  const view: BifSeries = {
    ...series,
    rttSeconds: p.fullRtt ? series.rttSeconds + server : series.rttSeconds,
    bif: hidden > 0 ? Float64Array.from(series.bif, (b) => (b > 0 ? b + hidden : 0)) : series.bif,
  };
  senderViews.set(series, { cfg, view });
  return view;
}

/**
 * The shape's verdict stands only under conditions the model was trained under, through a
 * bottleneck the host did not disturb; otherwise it becomes Unknown with the reason (and says
 * what the shape alone would have named).
 */
function judgeConditions(v: Verdict, series: BifSeries, model: Model, ctx: ClassifyContext): Verdict {
  const shapes = checkEnvelope(model.envelope, series.conditions, [], VERDICT_INSIDE_SCALES);
  const underLoss = !shapes.inside && signatureRepeated(v) ? signatureUnderLoss(shapes, model, series) : null;
  const env = underLoss?.check ?? shapes;
  const disturbed = disturbedReason(ctx.disturbance, series.rttSeconds);
  const conditions: VerdictConditions = {
    measured: series.conditions ?? null, inside: env.inside, distance: model.envelope && series.conditions ? Number(env.distance.toFixed(3)) : null,
    outsideReason: env.reason, disturbed, ...(underLoss ? { skippedAxes: [UPSTREAM_LOSS_AXIS] } : {}),
  };
  const why = !env.inside ? env.reason : v.kind === 'cca' ? disturbed : null;
  if (!why) return { ...v, ...(underLoss ? { reason: `${v.reason}; ${underLoss.note}` } : {}), conditions };
  const shapeSaid = v.kind === 'cca' ? `; the shape alone said ${v.label} (${v.confidence.toFixed(2)})` : '';
  // Outside the trained conditions only: a disturbed bottleneck distorts the shape itself.
  const said = v.kind === 'cca' && !env.inside ? { shapeSaid: { label: v.label, confidence: v.confidence } } : {};
  return { ...v, label: UNKNOWN, kind: 'unknown', confidence: 0, shapeCluster: null, reason: `${why}${shapeSaid}`, conditions: { ...conditions, ...said } };
}

/** A BBRv1 answer whose trace showed BBRv1's own signature more than once (bbr.ts v1Repeated). */
function signatureRepeated(v: Verdict): boolean {
  const b = v.evidence?.classifiers?.bbr as Partial<V1BackingEvidence> | undefined;
  return v.kind === 'cca' && v.label === BBR_V1 && b?.v1Repeated === true;
}

/**
 * Loss on the server's side of the capture point hides a loss-based controller's shape (envelope.ts)
 * but not BBRv1's ProbeRTT, a drain to 4 packets every ~10 s whatever was lost: a BBRv1 answer that
 * saw it more than once stands when loss is the only axis outside the trained conditions. WHY
 * (session 43): under 0.15-0.6% random loss on the server's side kernel BBR read BBRv1 in 7 of 8
 * measurements and no other lab or open-set flow was named BBRv1 there; withheld with the rest,
 * the census would lose its most common answer on lossy paths.
 */
function signatureUnderLoss(shapes: EnvelopeCheck, model: Model, series: BifSeries): { check: EnvelopeCheck; note: string } | null {
  const rest = checkEnvelope(model.envelope, series.conditions, [UPSTREAM_LOSS_AXIS], VERDICT_INSIDE_SCALES);
  if (!rest.inside) return null;
  return { check: rest, note: `its ProbeRTT signature read under ${shapes.reason?.replace(/^conditions unlike any the model was trained under: /, '')}, where learned shapes are not` };
}

function classifyShape(series: BifSeries, model: Model): Verdict {
  const cfg = model.pipeline;
  const gate = seriesGate(series, cfg);
  if (gate?.kind === 'invalid') return nonAnswer(UNKNOWN, 'unknown', gate.reason, null);
  if (gate?.kind === 'short') return nonAnswer(SHORT_FLOW, 'short-flow', gate.reason, emptyEvidence(series));

  const f = extractFlowFeatures(series, cfg);
  if (f.appLimitedFraction > cfg.appLimited.maxFraction) {
    return nonAnswer(APP_LIMITED, 'application-limited', `application-limited ${(100 * f.appLimitedFraction).toFixed(0)}% of the time`, buildEvidence(f, [], {}));
  }
  const activeRtts = (activeCount(f) * f.dt) / f.rttSeconds;
  if (activeRtts < cfg.shortFlow.minActiveRtts) {
    let appLimitedPoints = 0;
    let excluded = 0;
    for (let i = f.slowStartEnd; i < f.mask.length; i++) {
      if (f.mask[i] !== EXCLUDED_NONE) excluded++;
      if (f.mask[i] === EXCLUDED_APP_LIMITED) appLimitedPoints++;
    }
    const evidence = buildEvidence(f, [], {});
    if (excluded > 0 && appLimitedPoints >= excluded / 2) {
      return nonAnswer(APP_LIMITED, 'application-limited', `only ${activeRtts.toFixed(1)} RTTs left after excluding application-limited time`, evidence);
    }
    return nonAnswer(SHORT_FLOW, 'short-flow', `only ${activeRtts.toFixed(1)} RTTs after slow start and idle time`, evidence);
  }

  const claims: Claim[] = [];
  const explained: Record<string, JsonObject> = {};
  for (const c of classifierRegistry) {
    const params = model.classifiers[c.name] ?? c.defaultParams();
    claims.push(...c.predict(f, params));
    explained[c.name] = c.explain(f, params);
  }
  // The bbr classifier's explain() already judged whether a BBRv1 answer is backed (TCP only).
  const d = unshownSignature(sharedV2Rhythm(unbackedBbrV1(requestLimited(f, probeRttOverShape(decideFromClaims(claims), claims, explained.bbr), claims), explained.bbr), claims), explained);
  return {
    schemaVersion: 1,
    label: d.label,
    kind: d.kind,
    confidence: d.confidence,
    reason: d.reason,
    shapeCluster: d.kind === 'cca' ? shapeClusterOf(d.label) : null,
    evidence: buildEvidence(f, claims, explained),
  };
}
