/**
 * A profile's bottleneck as numbers (rate, queue bytes, delay, HTB burst): pure arithmetic,
 * apart from the profile loader and the shaper, so the analysis commands (`classify`, `trace`)
 * can replay a bottleneck without loading zod or the shaper's process code.
 */
import type { Profile } from './profile.js';
import type { BottleneckModel } from '../trace/quic-model.js';

export const ETHERNET_HEADER_BYTES = 14;

/** Bandwidth-delay product in bytes, using the added RTT (2 x one-way delay). */
export function bdpBytes(p: Pick<Profile, 'rateKbit' | 'delayMs'>): number {
  return (p.rateKbit * 1000 * (2 * p.delayMs) / 1000) / 8;
}

/** Queue limit in bytes; never below one full frame, or nothing could pass. */
export function bufferBytes(p: Profile): number {
  const bytes = 'bytes' in p.buffer ? p.buffer.bytes : Math.round(bdpBytes(p) * p.buffer.bdp);
  return Math.max(bytes, p.clientMtu + ETHERNET_HEADER_BYTES);
}

/** HTB burst: at least a full frame plus slack, or about 1 ms at the rate. */
export function htbBurstBytes(rateKbit: number, mtu: number): number {
  return Math.max(mtu + 14 + 100, Math.ceil((rateKbit * 1000) / 8 / 1000));
}

/**
 * The bottleneck a QUIC replay without keys reproduces (src/trace/quic-model.ts). Undefined
 * when a replay cannot know the queue: a shared queue (other flows' packets in it), random
 * loss (drops the queue did not make) or aggregated ACKs.
 */
export function bottleneckModelOf(p: Profile): BottleneckModel | undefined {
  // Aggregated ACKs leave later than the client sent them: the replay would misplace them.
  if (p.queue !== 'per-flow' || p.lossPercent > 0 || p.ackAggregationMs > 0) return undefined;
  return { rateKbit: p.rateKbit, bufferBytes: bufferBytes(p), delaySeconds: p.delayMs / 1000, burstBytes: htbBurstBytes(p.rateKbit, p.clientMtu) };
}
