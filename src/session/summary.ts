/**
 * A run's end summary, from its profiles' analyses: one row per server host and one row per
 * asset type, each with one verdict fused across profiles (each profile contributes the flow
 * that carried the most bytes of that host / asset type), and the per-profile verdicts it was
 * fused from (flow, bytes, duration), so a reader can see what each profile saw.
 */
import type { Calibrations } from '../classify/calibration.js';
import { fuseProfiles } from '../classify/index.js';
import type { Verdict } from '../classify/verdict.js';
import type { ProfileAnalysis } from './analyze.js';

/** What one profile contributed to a row: the verdict of its largest flow. */
export interface ProfileVerdict {
  flowId: string;
  label: string;
  kind: string;
  confidence: number;
  /** Bytes of this row's host / asset type the flow carried (host rows: the flow's bytes down). */
  bytes: number;
  durationMs: number;
}

interface RowVerdict {
  label: string;
  /** cca | short-flow | application-limited | unknown | media */
  kind: string;
  confidence: number;
  reason: string;
  perProfile: Record<string, ProfileVerdict>;
}

export interface SummaryRow extends RowVerdict {
  host: string;
  assetTypes: string[];
  protocol: string;
  flows: number;
}

export interface AssetTypeRow extends RowVerdict {
  assetType: string;
  hosts: string[];
  protocols: string[];
  flows: number;
  /** Bytes of this type tied to flows, over all profiles. */
  bytes: number;
}

interface Candidate { v: Verdict; flowId: string; bytes: number; durationMs: number }

const MEDIA: Omit<RowVerdict, 'perProfile'> = {
  label: 'WebRTC media', kind: 'media', confidence: 1, reason: 'RTP/SRTP media of a call (no TCP-like window to read)',
};

function fused(perProfile: Map<string, Candidate>, media: boolean, calibration?: Calibrations): RowVerdict {
  const pp = Object.fromEntries([...perProfile.entries()].map(([p, c]) => [p, {
    flowId: c.flowId, label: c.v.label, kind: c.v.kind, confidence: c.v.confidence, bytes: c.bytes, durationMs: c.durationMs,
  }]));
  if (media) return { ...MEDIA, perProfile: pp };
  const verdicts = [...perProfile.values()].map((x) => x.v);
  // Fused (and calibrated) even for one profile: its confidence then says how often such verdicts were right.
  const f = verdicts.length ? fuseProfiles(verdicts, { calibration }) : undefined;
  return { label: f?.label ?? 'Unknown', kind: f?.kind ?? 'unknown', confidence: f?.confidence ?? 0, reason: f?.reason ?? 'no classifiable flow', perProfile: pp };
}

function durations(a: ProfileAnalysis): Map<string, number> {
  return new Map(a.flows.map((f) => [f.id, f.durationMs]));
}

/**
 * One row per server host: the flows that carried the page's bytes from it, their asset
 * types, and one verdict fused across profiles (each profile's largest flow from that host).
 */
export function summarize(analyses: ProfileAnalysis[], calibration?: Calibrations): SummaryRow[] {
  const hosts = new Map<string, { types: Set<string>; protocol: string; flows: number; perProfile: Map<string, Candidate> }>();
  for (const a of analyses) {
    const dur = durations(a);
    for (const [flowId, info] of a.flowInfo) {
      if (Object.keys(info.assetBytes).length === 0 && info.protocol !== 'udp-rtp') continue; // carried nothing the page asked for
      const h = hosts.get(info.host) ?? { types: new Set<string>(), protocol: info.protocol, flows: 0, perProfile: new Map() };
      for (const t of Object.keys(info.assetBytes)) h.types.add(t);
      h.flows++;
      const v = a.rawVerdicts.get(flowId);
      const best = h.perProfile.get(a.profile);
      if (v && (!best || info.bytesDown > best.bytes)) h.perProfile.set(a.profile, { v, flowId, bytes: info.bytesDown, durationMs: dur.get(flowId) ?? 0 });
      hosts.set(info.host, h);
    }
  }
  return [...hosts.entries()].map(([host, h]) => ({
    host, assetTypes: [...h.types].sort(), protocol: h.protocol, flows: h.flows, ...fused(h.perProfile, h.protocol === 'udp-rtp', calibration),
  })).sort((a, b) => a.host.localeCompare(b.host));
}

/**
 * One row per asset type: which hosts and flows carried it, and one verdict fused across
 * profiles (each profile's flow that carried the most bytes of that type). WebRTC media is
 * its own row (type "webrtc") when the run had any.
 */
export function summarizeAssetTypes(analyses: ProfileAnalysis[], calibration?: Calibrations): AssetTypeRow[] {
  const types = new Map<string, { hosts: Set<string>; protocols: Set<string>; flows: number; bytes: number; perProfile: Map<string, Candidate> }>();
  for (const a of analyses) {
    const dur = durations(a);
    for (const [flowId, info] of a.flowInfo) {
      const carried = info.protocol === 'udp-rtp' ? { webrtc: info.bytesDown } : info.assetBytes;
      for (const [type, bytes] of Object.entries(carried)) {
        const t = types.get(type) ?? { hosts: new Set<string>(), protocols: new Set<string>(), flows: 0, bytes: 0, perProfile: new Map() };
        t.hosts.add(info.host);
        t.protocols.add(info.protocol);
        t.flows++;
        t.bytes += bytes;
        const v = a.rawVerdicts.get(flowId);
        const best = t.perProfile.get(a.profile);
        if (v && (!best || bytes > best.bytes)) t.perProfile.set(a.profile, { v, flowId, bytes, durationMs: dur.get(flowId) ?? 0 });
        types.set(type, t);
      }
    }
  }
  return [...types.entries()].map(([assetType, t]) => ({
    assetType, hosts: [...t.hosts].sort(), protocols: [...t.protocols].sort(), flows: t.flows, bytes: Math.round(t.bytes),
    ...fused(t.perProfile, assetType === 'webrtc', calibration),
  })).sort((a, b) => a.assetType.localeCompare(b.assetType));
}
