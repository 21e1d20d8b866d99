/**
 * The files of a run directory, as zod schemas: the contract between the run pipeline (which
 * writes them once) and everything that reads them back (the store, the report, `analyze`).
 *
 *   run.json       what ran: scenario, site, region, profiles, times, status, versions
 *   flows.json     every transport flow seen in the capture, per profile
 *   verdicts.json  one congestion-control verdict per flow, with the evidence the report draws
 *   assets.json    one record per HAR entry: what it was, how big, which flow carried it
 *
 * Every file carries `schemaVersion` (integer, bumped on breaking change). Times inside a
 * profile session (flow start, asset start/end) are milliseconds since that session's
 * navigation start; times inside a flow's evidence are seconds since the flow's first packet.
 * Unknown keys are dropped on read (not an error), so writers may add fields before the schema
 * names them.
 */
import { z } from 'zod';

export const RESULTS_SCHEMA_VERSION = 1;
const version = z.literal(RESULTS_SCHEMA_VERSION);

const nonNegInt = z.number().int().nonnegative();
const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const isoTime = z.iso.datetime({ offset: true });
/** Ids are referenced across files and used in the store: keep them short and printable. */
const id = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

// ---------------------------------------------------------------------------------- run.json

// The scenario schema owns the list of activity kinds.
import { SCENARIO_KINDS } from '../scenario/schema.js';
export { SCENARIO_KINDS };

/**
 * `run --stop-when-stable` (issue 20), per profile: the rule, each flow that mattered with the
 * checkpoints it was judged at and the trace length its verdict needed, and why the activity
 * ended early or ran its full length (session/activity-stop.ts says which flows matter).
 */
export const activityEarlyStopSchema = z.object({
  rule: z.object({
    floorSeconds: finite.positive(), stepSeconds: finite.positive(), stableCheckpoints: z.number().int().positive(),
    minConfidence: finite.min(0).max(1), minBytes: nonNegInt, quietSeconds: finite.positive(),
  }),
  /** The ceiling: the scenario's own activity length (seconds of wall time). */
  ceilingSeconds: finite.nonnegative(),
  /** How long the activity really ran (null: it never started). */
  activitySeconds: finite.nonnegative().nullable(),
  endedActivity: z.boolean(),
  /**
   * stable: ended early, every flow that mattered had a stable verdict; nothing-held: ended early,
   * no flow carrying data mattered; ceiling: ran its full length, `holding` says which flows kept
   * it; activity-ended: ran its full length with nothing holding at the end; interrupted: Ctrl-C;
   * no-activity: the session never reached its activity (navigation or steps failed).
   */
  why: z.enum(['stable', 'nothing-held', 'ceiling', 'activity-ended', 'interrupted', 'no-activity']),
  /** Looks at the growing capture. */
  looks: nonNegInt,
  holding: z.array(z.object({ flow: z.string(), standing: z.string() })),
  flows: z.array(z.object({
    flow: z.string(), serverIp: z.string(), protocol: z.enum(['tcp', 'quic']), bytesDown: nonNegInt, traceSeconds: finite.nonnegative(),
    /** At the last look: stable, judging, not-judged-live (HTTP/3), quiet, trickle, not-largest. */
    standing: z.string(),
    label: z.string().optional(),
    confidence: finite.min(0).max(1).optional(),
    /** The trace length (s since the flow's first packet) its stable verdict needed. */
    neededSeconds: finite.nonnegative().optional(),
    checkpoints: z.array(z.object({ seconds: finite.nonnegative(), label: z.string(), confidence: finite.min(0).max(1) })),
  })),
});
export type ActivityEarlyStop = z.input<typeof activityEarlyStopSchema>;

export const profileRefSchema = z.object({
  /** Profile name as in shapers/ (e.g. nebby-50). */
  name: z.string().min(1),
  rateKbit: finite.positive().optional(),
  delayMs: finite.nonnegative().optional(),
  bufferBytes: nonNegInt.optional(),
  lossPercent: finite.min(0).max(100).optional(),
  /** False when the profile is marked not for classification (its flows are then Unknown); absent in older runs. */
  forClassification: z.boolean().optional(),
  /**
   * The bottleneck as the run applied it, for QUIC bytes in flight without keys
   * (src/trace/quic-model.ts); null when it cannot be replayed (shared queue, random loss).
   * Absent in runs recorded before it existed: analysis then reloads the profile by name.
   */
  bottleneck: z.object({
    rateKbit: finite.positive(), bufferBytes: nonNegInt, delaySeconds: finite.nonnegative(), burstBytes: nonNegInt.optional(),
  }).nullable().optional(),
  /** Present when the run was asked to `--stop-when-stable`. */
  earlyStop: activityEarlyStopSchema.optional(),
});

export const runSchema = z
  .object({
    schemaVersion: version,
    /** Unique per run directory; re-analysing a run keeps its id. */
    runId: id,
    scenario: z.object({
      name: z.string().min(1),
      kind: z.enum(SCENARIO_KINDS),
      /** Path of the scenario file, as given on the command line. */
      file: z.string(),
    }),
    /** The site as the report groups it (registrable domain or service name, e.g. youtube.com). */
    site: z.string().min(1),
    startUrl: z.string(),
    /** Vantage point tag from --region (e.g. sg, us-east, lab-eu). */
    region: z.string().min(1),
    mode: z.enum(['lab', 'internet']),
    /** One browser session per profile; flows and assets name the profile they belong to. */
    profiles: z.array(profileRefSchema).min(1),
    /**
     * For --repeat N: this run's index (1-based) among N, and the id the N runs share (that of
     * their majority vote file, vote.ts). `group` was added later: older runs lack it.
     */
    repeat: z.object({ index: z.number().int().positive(), of: z.number().int().positive(), group: id.optional() }).optional(),
    startedAt: isoTime,
    /** Null when the run never finished (crash): then status is incomplete. */
    endedAt: isoTime.nullable(),
    status: z.enum(['complete', 'incomplete']),
    /** Why a run is incomplete ("scenario threw: ...", "browser crashed", "interrupted"). */
    incompleteReason: z.string().optional(),
    versions: z.object({
      tool: z.string(),
      browser: z.string(),
      /** Classifier model (file name + hash or version) that produced verdicts.json. */
      model: z.string(),
    }),
  })
  .superRefine((r, ctx) => {
    if (r.status === 'incomplete' && !r.incompleteReason) {
      ctx.addIssue({ code: 'custom', path: ['incompleteReason'], message: 'required when status is "incomplete"' });
    }
    if (r.endedAt === null && r.status === 'complete') {
      ctx.addIssue({ code: 'custom', path: ['endedAt'], message: 'a complete run needs an end time' });
    }
    if (r.endedAt !== null && Date.parse(r.endedAt) < Date.parse(r.startedAt)) {
      ctx.addIssue({ code: 'custom', path: ['endedAt'], message: 'is before startedAt' });
    }
    const names = r.profiles.map((p) => p.name);
    if (new Set(names).size !== names.length) {
      ctx.addIssue({ code: 'custom', path: ['profiles'], message: 'profile names must be unique' });
    }
  });

// -------------------------------------------------------------------------------- flows.json

/** tcp; quic (UDP carrying QUIC); udp-rtp (WebRTC media, never forced into a TCP class); udp (other). */
export const FLOW_PROTOCOLS = ['tcp', 'quic', 'udp-rtp', 'udp'] as const;
/** How bytes in flight were measured: TCP seq/ack, the QUIC estimate (Nebby), or not at all. */
/** quic-ack-estimate = Nebby's heuristic; quic-bottleneck-model = replay of the run's own bottleneck (no keys); quic-keylog-exact = decrypted ACK frames (TLS key log). */
export const BIF_METHODS = ['tcp-seq-ack', 'quic-ack-estimate', 'quic-bottleneck-model', 'quic-keylog-exact', 'none'] as const;

const endpoint = z.object({ ip: z.string().min(1), port: z.number().int().min(0).max(65535) });
const perDirection = z.object({ down: nonNegInt, up: nonNegInt });

export const flowSchema = z.object({
  /** Unique within the run (e.g. "f12"); verdicts and assets refer to it. */
  id,
  /** The profile session this flow belongs to (a name from run.json profiles). */
  profile: z.string().min(1),
  protocol: z.enum(FLOW_PROTOCOLS),
  /** The 5-tuple: transport + client and server endpoints (server = the side sending the bulk). */
  transport: z.enum(['tcp', 'udp']),
  client: endpoint,
  server: endpoint,
  /** TLS SNI / QUIC server name / HTTP host, when known. */
  serverName: z.string().optional(),
  /** IP bytes, down = server to client. */
  bytes: perDirection,
  packets: perDirection,
  /** First packet, ms since the profile session's start. */
  startMs: finite.nonnegative(),
  durationMs: finite.nonnegative(),
  /** Median RTT measured from the trace (ms); null when it could not be measured. */
  rttMs: finite.nonnegative().nullable(),
  bifMethod: z.enum(BIF_METHODS),
  /** Retransmitted data packets (TCP) or packets declared lost (QUIC); null when unknown. */
  retransmissions: nonNegInt.nullable(),
});

export const flowsFileSchema = z.object({
  schemaVersion: version,
  runId: id,
  flows: z.array(flowSchema),
});

// ----------------------------------------------------------------------------- verdicts.json

/**
 * Labels the classifier emits today. The schema accepts any label (a new classifier adds one
 * without a schema change); these are the ones the report knows colours and order for.
 */
export const KNOWN_LABELS = [
  'CUBIC',
  'BBRv1',
  'BBRv2',
  'BBRv3',
  'BBR (other version)',
  'NewReno',
  'AkamaiCC-like',
  'Copa',
  'Unknown',
  'Short flow',
  'Application-limited',
  'WebRTC media',
] as const;

/**
 * cca = a congestion-control answer; the rest are honest non-answers (Gordon's lesson):
 * too short, application-limited, judged but unmatched, or media that has no TCP-like CCA.
 */
export const VERDICT_KINDS = ['cca', 'short-flow', 'application-limited', 'unknown', 'media'] as const;

export const segmentSchema = z.object({
  index: nonNegInt,
  /** Seconds since the flow's first packet. */
  tStart: finite,
  tEnd: finite,
  /** Judged by the shape classifier (false: too short, slow start, open-ended...). */
  usable: z.boolean(),
  dropReason: z.string().optional(),
  /**
   * The fitted curve on the segment normalised to x, y in [0, 1] (y min-max over the smoothed
   * BiF in the segment): coefficients[k] multiplies x^k.
   */
  polynomial: z
    .object({
      degree: z.number().int().min(0).max(5),
      coefficients: z.array(finite).min(1),
      mse: finite.optional(),
    })
    .refine((p) => p.coefficients.length === p.degree + 1, 'coefficients must have degree + 1 entries')
    .optional(),
  /** Min and max of the smoothed BiF in the segment (bytes), to draw the fit in real units. */
  bifMin: finite.optional(),
  bifMax: finite.optional(),
  /** The label this segment voted for, if any. */
  match: z.string().optional(),
});

/**
 * A periodic signature the classifier found, with the times it occurs (for drawing):
 * probe-bw = BBR's +25% bumps every ~8 RTTs, probe-rtt = BBR's ProbeRTT dips,
 * backoff-cycle = AkamaiCC's regular back-offs, oscillation = Copa's 5-RTT swing.
 */
export const periodSchema = z.object({
  kind: z.string().min(1),
  periodSeconds: finite.positive(),
  periodRtts: finite.positive().optional(),
  /** 0..1: how strongly the period stands out (autocorrelation peak). */
  strength: finite.min(0).max(1).optional(),
  /** Seconds since the flow's first packet where each occurrence is. */
  marks: z.array(finite),
});

export const evidenceSchema = z.object({
  rttSeconds: finite.nonnegative(),
  /** Low-pass smoothed BiF, decimated for drawing (<= 512 points): t = t0 + i * dt. */
  smoothed: z.object({ t0: finite, dt: finite.nonnegative(), bif: z.array(finite).max(4096) }),
  /** Optional raw samples, decimated (<= 2000 points), drawn faintly behind the curve. */
  raw: z
    .object({ t: z.array(finite).max(20000), bif: z.array(finite).max(20000) })
    .refine((r) => r.t.length === r.bif.length, 't and bif must have the same length')
    .optional(),
  segments: z.array(segmentSchema).default([]),
  periods: z.array(periodSchema).default([]),
  /** Back-offs: the peak before and trough after a large drop, depth as a fraction of the peak. */
  backoffs: z.array(z.object({ tPeak: finite, tTrough: finite, depth: finite })).default([]),
  slowStartEndSeconds: finite.nullable().optional(),
});

export const verdictRecordSchema = z.object({
  flowId: id,
  label: z.string().min(1),
  kind: z.enum(VERDICT_KINDS),
  /** 0..1; 0 for non-answers. */
  confidence: finite.min(0).max(1),
  /** One sentence a person can read: why this label. */
  reason: z.string(),
  /** Per-class posterior (class -> probability), empty when the classifier has none. */
  posterior: z.record(z.string(), finite.min(0).max(1)).default({}),
  shapeCluster: z.enum(['linear', 'quadratic', 'cubic']).nullable().optional(),
  evidence: evidenceSchema.nullable(),
});

export const verdictsFileSchema = z.object({
  schemaVersion: version,
  runId: id,
  /** Model that produced these verdicts (equals run.json versions.model after `analyze`). */
  model: z.string(),
  analysedAt: isoTime,
  verdicts: z.array(verdictRecordSchema),
});

// ------------------------------------------------------------------------------- assets.json

/** From resource type, MIME type and the scenario's URL rules. 'xhr' covers xhr/fetch/API calls. */
// One list for the whole tool: the correlator assigns these, the store and report read them.
import { ASSET_TYPES } from '../correlate/asset-type.js';
export { ASSET_TYPES };
/** HTTP version of the request: h1 (1.0/1.1), h2, h3 (QUIC), or null when the HAR did not say. */
export const HTTP_PROTOCOLS = ['h1', 'h2', 'h3'] as const;

export const assetSchema = z
  .object({
    /** Index of the entry in the profile session's HAR. */
    harIndex: nonNegInt,
    profile: z.string().min(1),
    url: z.string(),
    host: z.string(),
    assetType: z.enum(ASSET_TYPES),
    mime: z.string(),
    /** Bytes received for the response (headers + body as transferred). */
    bytes: nonNegInt,
    status: z.number().int().optional(),
    /** The flow that carried it, null when correlation failed (the report shows it as such). */
    flowId: id.nullable(),
    protocol: z.enum(HTTP_PROTOCOLS).nullable(),
    /** Request start and response end, ms since the profile session's start (waterfall). */
    startMs: finite.nonnegative(),
    endMs: finite.nonnegative(),
  })
  .refine((a) => a.endMs >= a.startMs, { message: 'endMs is before startMs', path: ['endMs'] });

export const assetsFileSchema = z.object({
  schemaVersion: version,
  runId: id,
  assets: z.array(assetSchema),
});

export type ProfileRef = z.infer<typeof profileRefSchema>;
export type RunInfo = z.infer<typeof runSchema>;
export type FlowRecord = z.infer<typeof flowSchema>;
export type FlowsFile = z.infer<typeof flowsFileSchema>;
export type SegmentRecord = z.infer<typeof segmentSchema>;
export type PeriodRecord = z.infer<typeof periodSchema>;
export type Evidence = z.infer<typeof evidenceSchema>;
export type VerdictRecord = z.infer<typeof verdictRecordSchema>;
export type VerdictsFile = z.infer<typeof verdictsFileSchema>;
export type AssetRecord = z.infer<typeof assetSchema>;
export type AssetsFile = z.infer<typeof assetsFileSchema>;
export type AssetType = (typeof ASSET_TYPES)[number];
export type FlowProtocol = (typeof FLOW_PROTOCOLS)[number];
export type VerdictKind = (typeof VERDICT_KINDS)[number];
/** Input types (before defaults are applied), for writers. */
export type VerdictRecordInput = z.input<typeof verdictRecordSchema>;
export type EvidenceInput = z.input<typeof evidenceSchema>;
