/**
 * The lab's topology configuration: which origins exist, which congestion controller and
 * protocol each serves with, and the regions (base RTT, jitter, per-region CCA overrides).
 * Which CCA serves which host is configuration, never code.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { BadInputError } from '../util/errors.js';
import { repoRoot } from '../util/paths.js';
import { loadUserFile, type UserFileKind } from '../util/user-file.js';
import { KERNEL_CCAS, OPEN_SET_CCAS, TRAINED_BPF_CCAS } from './cca.js';

/** TCP controllers the lab trains on: the kernel's and the project's trained BPF ones. */
export const TCP_CCAS = [...KERNEL_CCAS, ...TRAINED_BPF_CCAS] as const;
/** Open-set strangers (labs/open-set.ts), kept out of training by default. */
export const OPEN_SET_TCP_CCAS = OPEN_SET_CCAS;
/** Every TCP controller an origin may serve with. */
export const LAB_TCP_CCAS = [...TCP_CCAS, ...OPEN_SET_TCP_CCAS] as const;

const hostname = z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, 'a lower-case DNS name');
const originName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,23}$/, 'lower-case letters, digits and "-", at most 24 characters');

const tcpOrigin = z.object({
  name: originName,
  hosts: z.array(hostname).min(1),
  serve: z.literal('tcp').default('tcp'),
  cca: z.enum(LAB_TCP_CCAS),
}).strict();

const h3Origin = z.object({
  name: originName,
  hosts: z.array(hostname).min(1),
  serve: z.literal('h3'),
  stack: z.enum(['quinn', 'aioquic', 'quiche']),
  cca: z.string(),
}).strict();

export const originSchema = z.union([tcpOrigin, h3Origin]);

export const regionSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,15}$/, 'lower-case letters, digits and "-", at most 16 characters'),
  /** Base RTT added between the bottleneck and this region's servers (half each way). */
  rttMs: z.number().min(0).max(2000).default(0),
  /** Extra delay per packet, uniform 0..jitterMs each way, without reordering (unless jitterReorders). */
  jitterMs: z.number().min(0).max(500).default(0),
  /** The jitter is drawn per packet and may reorder them (a multi-path or load-balanced path). */
  jitterReorders: z.boolean().default(false),
  /**
   * Reordering on its own, on the data direction (servers -> runs): this share of packets is held
   * extraMs longer, so the packets behind it overtake it.
   */
  reorder: z.object({ percent: z.number().min(0).max(50), extraMs: z.number().min(0.1).max(500) }).strict().optional(),
  /**
   * Loss on the server-side path, data direction only (before our bottleneck, so the capture
   * never sees the lost packets): random, or bursty (Gilbert-Elliott, mean burst burstLen packets).
   */
  loss: z.object({ percent: z.number().min(0).max(50), burstLen: z.number().min(1).max(100).optional() }).strict().optional(),
  /**
   * Cross traffic on the server-side path: the region's data direction passes a link of
   * pathRateKbit (a byte FIFO of bufferMs at that rate) that it shares with a bulk TCP download
   * from the region's origin `from` to the lab router, which never ends while the lab is up.
   */
  crossTraffic: z.object({
    pathRateKbit: z.number().min(8).max(10_000_000),
    bufferMs: z.number().min(1).max(2000).default(100),
    from: originName,
  }).strict().optional(),
  /**
   * How this region's TCP origins send (the kernel stack's details real servers differ in):
   * initial congestion window (segments; Linux's default is 10), pacing (the kernel's internal
   * pacing at the controller's rate, as fq or SO_MAX_PACING_RATE turn on), and TSO-like bursts
   * (segmentation offload on the origin's link: the stack hands over multi-segment packets that
   * leave back to back). QUIC origins are not affected.
   */
  sender: z.object({
    initcwnd: z.number().int().min(1).max(1000).optional(),
    pacing: z.boolean().default(false),
    tso: z.boolean().default(false),
  }).strict().default({ pacing: false, tso: false }),
  /** Optional per-region congestion controller override, by origin name (amazon.com served BBR except in Mumbai). */
  cca: z.record(z.string(), z.string()).default({}),
  /** Origins present in this region (default: all). */
  origins: z.array(originName).optional(),
  /**
   * Origins of this region that never answer (a hung server, a middlebox that swallows
   * requests): their hosts resolve and the TCP handshake completes, then not one byte comes
   * back. TCP origins only.
   */
  silent: z.array(originName).optional(),
}).strict();

export const labConfigSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]{1,16}$/).default('default'),
  origins: z.array(originSchema).min(1),
  regions: z.array(regionSchema).min(1).max(64),
  /**
   * How often each TCP origin's tcp_info is sampled for ground truth (ms; 0 = not at all). Every
   * sampler wakes at this rate for the lab's whole life: a grid lab of 3 regions x 12 TCP origins
   * at 10 ms took most of a core on a 2-core host.
   */
  tcpInfoIntervalMs: z.number().int().min(0).max(10_000).default(10),
}).strict().superRefine((cfg, ctx) => {
  const names = new Set<string>();
  for (const [i, o] of cfg.origins.entries()) {
    if (names.has(o.name)) ctx.addIssue({ code: 'custom', path: ['origins', i, 'name'], message: `duplicate origin ${o.name}` });
    names.add(o.name);
  }
  for (const [i, r] of cfg.regions.entries()) {
    for (const o of [...(r.origins ?? []), ...Object.keys(r.cca), ...(r.silent ?? [])]) {
      if (!names.has(o)) ctx.addIssue({ code: 'custom', path: ['regions', i], message: `unknown origin ${o}` });
    }
    for (const o of r.silent ?? []) {
      const origin = cfg.origins.find((x) => x.name === o);
      if (origin && origin.serve !== 'tcp') ctx.addIssue({ code: 'custom', path: ['regions', i, 'silent'], message: `a silent origin accepts TCP connections: ${o} is not a TCP origin` });
      if (origin && r.origins && !r.origins.includes(o)) ctx.addIssue({ code: 'custom', path: ['regions', i, 'silent'], message: `silent origin ${o} is not one of the region's origins` });
    }
    if (r.crossTraffic) {
      const from = cfg.origins.find((x) => x.name === r.crossTraffic!.from);
      if (!from || from.serve !== 'tcp') ctx.addIssue({ code: 'custom', path: ['regions', i, 'crossTraffic', 'from'], message: `cross traffic comes from a TCP origin of the lab; ${r.crossTraffic.from} is not one` });
    }
    for (const [o, cca] of Object.entries(r.cca)) {
      const origin = cfg.origins.find((x) => x.name === o);
      if (origin?.serve === 'tcp' && !(LAB_TCP_CCAS as readonly string[]).includes(cca)) {
        ctx.addIssue({ code: 'custom', path: ['regions', i, 'cca', o], message: `unknown TCP controller ${cca}` });
      }
    }
  }
});

export type LabConfigInput = z.input<typeof labConfigSchema>;
export type LabConfig = z.output<typeof labConfigSchema>;
export type OriginConfig = z.output<typeof originSchema>;
export type RegionConfig = z.output<typeof regionSchema>;

export function defineLab(cfg: LabConfigInput): LabConfigInput {
  return cfg;
}

/** One origin as deployed in one region, with the controller in force there. */
export interface DeployedOrigin {
  region: string;
  origin: OriginConfig;
  cca: string;
  /** Accepts connections and never answers (the region's `silent`). */
  silent: boolean;
}

export function deployment(cfg: LabConfig): DeployedOrigin[] {
  const out: DeployedOrigin[] = [];
  for (const region of cfg.regions) {
    for (const origin of cfg.origins) {
      if (region.origins && !region.origins.includes(origin.name)) continue;
      out.push({ region: region.name, origin, cca: region.cca[origin.name] ?? origin.cca, silent: region.silent?.includes(origin.name) ?? false });
    }
  }
  return out;
}

export function parseLabConfig(value: unknown, source: string): LabConfig {
  const parsed = labConfigSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadInputError(`invalid lab configuration ${source}:\n${issueLines(parsed.error, 'lab')}`, 'see labs/default.ts for a valid example');
  }
  return parsed.data;
}

export function defaultLabConfigPath(): string {
  return resolve(repoRoot(), 'labs', 'default.ts');
}

const LAB_FILE: UserFileKind<LabConfig> = {
  what: 'lab configuration', helper: 'defineLab', example: 'labs/default.ts', schema: labConfigSchema as z.ZodType<LabConfig>, json: true,
};

/** Loads a lab configuration (.ts or .json) through the one user-file loader (util/user-file.ts). */
export async function loadLabConfig(path = defaultLabConfigPath()): Promise<LabConfig> {
  return loadUserFile(path, LAB_FILE);
}
