/**
 * The conditions grid: the axes a real server's path and stack, our own bottleneck and the
 * measuring host vary on, each condition reproducible from this configuration (issue 16).
 * A grid file (`defineGrid`, e.g. labs/grid.ts) lists conditions; each changes one or a few
 * things from the base: the server-side path (a lab region: RTT, jitter, reordering, loss, the
 * origins' sender details), the bottleneck (profiles and overrides of their buffer, MSS clamp,
 * SACK, ACK behaviour), cross traffic in the bottleneck queue, and the host (probes at once,
 * background CPU load). `ccbrowse lab grid` measures every lab controller under each, and
 * every dataset entry carries the condition it was measured under, so a benchmark can leave a
 * condition out of training and test on it.
 */
import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { regionSchema } from '../lab/config.js';
import { BadInputError } from '../util/errors.js';
import { loadUserFile } from '../util/user-file.js';

const conditionId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,15}$/, 'lower-case letters, digits and "-", at most 16 characters (it names a lab region)');

/**
 * The server-side path of a condition: a lab region's fields without their defaults (a default
 * here would override the base: a condition that only adds jitter would also reset its RTT).
 */
const pathSchema = z.object({
  rttMs: z.number().min(0).max(2000).optional(),
  jitterMs: z.number().min(0).max(500).optional(),
  jitterReorders: z.boolean().optional(),
  reorder: regionSchema.shape.reorder,
  loss: regionSchema.shape.loss,
  crossTraffic: regionSchema.shape.crossTraffic,
  sender: z.object({ initcwnd: z.number().int().min(1).max(1000).optional(), pacing: z.boolean().optional(), tso: z.boolean().optional() }).strict().optional(),
}).strict();

const profileOverridesSchema = z.object({
  /** Another bottleneck under the profile's name: its rate and one-way delay. */
  rateKbit: z.number().min(8).max(10_000_000).optional(),
  delayMs: z.number().min(0).max(5_000).optional(),
  buffer: z.union([z.object({ bdp: z.number().positive().max(1000) }).strict(), z.object({ bytes: z.number().int().min(1514) }).strict()]).optional(),
  tcpMss: z.number().int().min(64).max(9000).nullable().optional(),
  sack: z.boolean().optional(),
  ackAggregationMs: z.number().min(0).max(200).optional(),
  delayedAck: z.boolean().optional(),
  queue: z.enum(['per-flow', 'shared']).optional(),
}).strict();

const hostSchema = z.object({
  /** Probes measured at once on this host (each with its own namespaces, delay line, capture). */
  concurrency: z.number().int().min(1).max(16).optional(),
  /** Busy processes started beside the measurement (background CPU load). */
  cpuLoad: z.number().int().min(0).max(16).optional(),
}).strict();

export const gridConditionSchema = z.object({
  id: conditionId,
  /** Which axis the condition varies (server-rtt, jitter, reorder, loss, buffer, mss, sack, ack, profile, sender, host, cross-traffic). */
  axis: z.string().min(1),
  /** The value on that axis, as a short human label ('150 ms', '0.5 BDP', 'off'). */
  value: z.string().min(1),
  /** Server-side path; unset fields take the base's. */
  path: pathSchema.optional(),
  /** Network profiles (names or files); default the base's. */
  profiles: z.array(z.string()).min(1).optional(),
  /** Changes to every profile of the condition. */
  profile: profileOverridesSchema.optional(),
  host: hostSchema.optional(),
  /** A bulk TCP download from this lab origin shares the bottleneck queue with every probe. */
  crossTraffic: z.string().optional(),
  /** Transport the condition applies to (sender details and SACK are TCP matters). */
  protocols: z.array(z.enum(['tcp', 'quic'])).min(1).optional(),
  /** Measurements per controller (default: the grid's runs). */
  runs: z.number().int().min(1).max(50).optional(),
}).strict();

export const gridSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]{1,16}$/),
  /** Lab origins measured (names as in labs/train.ts: tcp-cubic, quinn-bbr, ...). */
  origins: z.array(z.string()).min(1),
  /** Lab configuration the origins come from. */
  lab: z.string().default('labs/train.ts'),
  base: z.object({
    path: pathSchema.default({}),
    profiles: z.array(z.string()).min(1).default(['nebby-50', 'nebby-100']),
    host: hostSchema.default({}),
  }).strict(),
  /** Measurements per controller and condition. */
  runs: z.number().int().min(1).max(50).default(2),
  /** Target transfer time per probe: bytes are sized from each profile's rate. */
  seconds: z.number().min(5).max(300).default(30),
  conditions: z.array(gridConditionSchema).min(1),
}).strict().superRefine((g, ctx) => {
  const seen = new Set<string>();
  for (const [i, c] of g.conditions.entries()) {
    if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: ['conditions', i, 'id'], message: `duplicate condition ${c.id}` });
    seen.add(c.id);
  }
});

export type GridInput = z.input<typeof gridSchema>;
export type Grid = z.output<typeof gridSchema>;
export type GridCondition = z.output<typeof gridConditionSchema>;
export type ProfileOverridesSpec = z.output<typeof profileOverridesSchema>;

export function defineGrid(g: GridInput): GridInput {
  return g;
}

export function parseGrid(value: unknown, source: string): Grid {
  const parsed = gridSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadInputError(`invalid conditions grid ${source}:\n${issueLines(parsed.error, 'grid')}`, 'see labs/grid.ts for a valid example');
  }
  return parsed.data;
}

/** A condition resolved against the base: everything a measurement under it needs. */
export interface ResolvedCondition {
  id: string;
  axis: string;
  value: string;
  /** The lab region (named after the condition) that carries its server-side path. */
  region: z.input<typeof regionSchema>;
  profiles: string[];
  profile: ProfileOverridesSpec;
  concurrency: number;
  cpuLoad: number;
  crossTraffic: string | null;
  protocols: Array<'tcp' | 'quic'>;
  runs: number;
}

export const DEFAULT_CONCURRENCY = 4;

export function resolveCondition(g: Grid, c: GridCondition): ResolvedCondition {
  const path = { ...g.base.path, ...(c.path ?? {}) };
  if (g.base.path.sender || c.path?.sender) path.sender = { ...g.base.path.sender, ...c.path?.sender };
  return {
    id: c.id,
    axis: c.axis,
    value: c.value,
    region: { name: c.id, ...path },
    profiles: c.profiles ?? g.base.profiles,
    profile: c.profile ?? {},
    concurrency: c.host?.concurrency ?? g.base.host.concurrency ?? DEFAULT_CONCURRENCY,
    cpuLoad: c.host?.cpuLoad ?? g.base.host.cpuLoad ?? 0,
    crossTraffic: c.crossTraffic ?? null,
    protocols: c.protocols ?? ['tcp', 'quic'],
    runs: c.runs ?? g.runs,
  };
}

/** A short, stable description of the conditions a dataset entry was measured under. */
export interface EntryConditions {
  id: string;
  axis: string;
  value: string;
  path: { rttMs: number; jitterMs: number; jitterReorders: boolean; reorder: { percent: number; extraMs: number } | null; loss: { percent: number; burstLen: number | null } | null; sender: { initcwnd: number | null; pacing: boolean; tso: boolean } };
  bottleneck: { profile: string; rateKbit: number; delayMs: number; bufferBdp: number; tcpMss: number | null; sack: boolean; ackAggregationMs: number; delayedAck: boolean; queue: 'per-flow' | 'shared' };
  host: { concurrency: number; cpuLoad: number };
  crossTraffic: string | null;
}

/** Loads a grid file (.ts or .json) through the one user-file loader (util/user-file.ts). */
export async function loadGrid(path: string): Promise<Grid> {
  return loadUserFile(path, { what: 'conditions grid', helper: 'defineGrid', example: 'labs/grid.ts', schema: gridSchema as z.ZodType<Grid>, json: true });
}
