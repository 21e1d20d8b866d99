/**
 * Network profiles: what the emulated bottleneck does (rate, one-way delay, buffer, loss,
 * queueing mode). Users write them as small typed files in shapers/ with defineProfile();
 * every profile is validated on load so a typo is a clear error, not a wrong measurement.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { BadInputError } from '../util/errors.js';
import { repoRoot } from '../util/paths.js';
import { loadUserFile, type UserFileKind } from '../util/user-file.js';

const bufferSchema = z.union([
  z.object({ bdp: z.number().positive().max(1000) }).strict(),
  z.object({ bytes: z.number().int().min(1514).max(1 << 30) }).strict(),
]);

export const profileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-" only'),
    description: z.string().optional(),
    /** Bottleneck rate in kbit/s, counted on the wire (Ethernet frame bytes), both directions. */
    rateKbit: z.number().min(8).max(10_000_000),
    /** One-way delay in ms added in each direction (added RTT = 2 x this). */
    delayMs: z.number().min(0).max(5_000),
    /** Queue size per flow (per-flow mode) or for all flows (shared mode). */
    buffer: bufferSchema,
    /** Random loss in percent, applied by the delay stage (0 = none: only buffer overflow drops). */
    lossPercent: z.number().min(0).max(100).default(0),
    /** per-flow: each connection gets its own queue; shared: one queue for all flows. */
    queue: z.enum(['per-flow', 'shared']).default('per-flow'),
    /** MTU of the client's link (Nebby shrinks it to get more packets per trace). */
    clientMtu: z.number().int().min(576).max(9000).default(1500),
    /**
     * Clamp the TCP MSS the client advertises (bytes). Nebby shrinks segments (its scripts set
     * the client MTU to 100) so a low-rate window holds tens of packets, not 3-7: a sender's
     * curve is then visible in bytes in flight. Done on the SYN, so QUIC (>= 1200-byte
     * datagrams) is unaffected. Unset = the link's MTU decides.
     */
    tcpMss: z.number().int().min(64).max(9000).optional(),
    /** TCP SACK offered by the client (Nebby turns it off: bytes in flight are then exact from the ACKs). */
    sack: z.boolean().default(true),
    /**
     * The client's ACKs leave the delay stage in batches, at most one batch every this many ms
     * (how Wi-Fi and cellular links bunch ACKs); 0 = off. Needs the delay line backend.
     */
    ackAggregationMs: z.number().min(0).max(200).default(0),
    /** The client's TCP delays ACKs (Linux: about every second segment); false = an ACK per segment (quickack). */
    delayedAck: z.boolean().default(true),
    /**
     * Whether verdicts read through this bottleneck mean anything: false for a profile the lab has
     * never measured controllers through (a run then says so before it starts, and its flows are
     * Unknown). A user's own profile stays classifiable: its verdicts still stand only where its
     * conditions lie among the model's training conditions (src/classify/envelope.ts).
     */
    forClassification: z.boolean().default(true),
    /** Why not, shown with the warning. */
    classificationNote: z.string().optional(),
    /** How many per-flow queues to prepare; later flows reuse queues round-robin. */
    maxFlows: z.number().int().min(1).max(4096).default(1024),
  })
  .strict();

export type ProfileInput = z.input<typeof profileSchema>;
export type Profile = z.output<typeof profileSchema>;

/** Gives a profile file its types; validation happens when it is loaded. */
export function defineProfile(profile: ProfileInput): ProfileInput {
  return profile;
}

/**
 * A profile with some settings changed (the conditions grid varies buffer, MSS clamp, SACK, ACK
 * behaviour under one profile name), validated as a whole. `tcpMss: null` removes the clamp.
 */
export function withOverrides(p: Profile, o: ProfileOverrides): Profile {
  const { tcpMss, ...rest } = o;
  const merged: Record<string, unknown> = { ...p, ...rest };
  if (tcpMss === null) delete merged.tcpMss;
  else if (tcpMss !== undefined) merged.tcpMss = tcpMss;
  return parseProfile(merged, `${p.name} with ${JSON.stringify(o)}`);
}

export type ProfileOverrides = Omit<Partial<ProfileInput>, 'name' | 'tcpMss'> & { tcpMss?: number | null };

// Ethernet frame overhead, BDP and queue bytes: pure arithmetic the analysis commands share.
export { ETHERNET_HEADER_BYTES, bdpBytes, bufferBytes } from './bottleneck-model.js';

/** TCP payload bytes per full segment (TCP timestamps take 12 bytes of the MSS). */
export function tcpPayloadBytes(p: Pick<Profile, 'clientMtu' | 'tcpMss'>): number {
  const mss = Math.min(p.tcpMss ?? Infinity, p.clientMtu - 40);
  return mss - 12;
}


/** Validates an already-loaded object; `source` names the file in errors. */
export function parseProfile(value: unknown, source: string): Profile {
  const parsed = profileSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadInputError(`invalid network profile ${source}:\n${issueLines(parsed.error, 'profile')}`,
      'see shapers/nebby-50.ts for a valid example');
  }
  return parsed.data;
}

/** Repository directory holding the shipped profiles. */
export function shapersDir(): string {
  return resolve(repoRoot(), 'shapers');
}

const PROFILE_FILE: UserFileKind<Profile> = {
  what: 'network profile', helper: 'defineProfile', example: 'shapers/nebby-50.ts', schema: profileSchema, json: true,
};

/**
 * Loads a profile by file path (.ts/.js/.json) or by the name of a shipped profile
 * ("nebby-50" -> shapers/nebby-50.ts), through the one user-file loader (util/user-file.ts).
 */
export async function loadProfile(nameOrPath: string): Promise<Profile> {
  const isPath = /[/\\]|\.(ts|mts|js|mjs|json)$/.test(nameOrPath);
  const path = isPath ? resolve(nameOrPath) : resolve(shapersDir(), `${nameOrPath}.ts`);
  if (!existsSync(path)) {
    throw new BadInputError(`network profile not found: ${nameOrPath}`,
      `give a path to a profile file or one of the shipped names (ls ${shapersDir()})`);
  }
  return loadUserFile(path, PROFILE_FILE);
}
