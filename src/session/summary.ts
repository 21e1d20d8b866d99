/**
 * A run's end summary, from its profiles' analyses: one row per server host, one row per
 * asset type and one per host and asset type, each with one verdict fused across profiles
 * (each profile contributes the flow that carried the most bytes of that host / asset type),
 * and the per-profile verdicts it was fused from (flow, bytes, duration, and why a profile
 * could not be judged), so a reader can see what each profile saw. The rows are written to
 * the run directory (summary.json), so a check can re-read them without re-analysing.
 */
import type { Calibrations } from '../classify/calibration.js';
import { fuseProfiles } from '../classify/index.js';
import type { Verdict, WithheldAnswer } from '../classify/verdict.js';
import type { ProfileAnalysis } from './analyze.js';

/** What one profile contributed to a row: the verdict of its largest flow. */
export interface ProfileVerdict {
  flowId: string;
  label: string;
  kind: string;
  confidence: number;
  /** The profile's own reason (a fused row's reason only says how profiles combined). */
  reason: string;
  /** Bytes of this row's host / asset type the flow carried (host rows: the flow's bytes down). */
  bytes: number;
  durationMs: number;
  /**
   * Set when this profile's verdict gave no evidence (fusion leaves it out): the conditions
   * lay outside what the model was trained under, or the host disturbed the bottleneck.
   */
  notJudged?: { cause: NotJudgedCause; reason: string };
}

/** Why a profile's verdict was left out of fusion: the measurement's fault, not the server's. */
export type NotJudgedCause = 'outside-training' | 'host-disturbed';

interface RowVerdict {
  label: string;
  /** cca | short-flow | application-limited | unknown | media */
  kind: string;
  confidence: number;
  reason: string;
  /** A "low confidence" Unknown's held-back answer (fusion.ts): its label, calibrated confidence, the model's minimum answer. */
  withheld?: WithheldAnswer;
  perProfile: Record<string, ProfileVerdict>;
}

export interface SummaryRow extends RowVerdict {
  host: string;
  assetTypes: string[];
  protocol: string;
  flows: number;
  /** Bytes down of the host's flows that carried the page's assets, over all profiles. */
  bytes: number;
}

export interface AssetTypeRow extends RowVerdict {
  assetType: string;
  hosts: string[];
  protocols: string[];
  flows: number;
  /** Bytes of this type tied to flows, over all profiles. */
  bytes: number;
}

/** One row per host and asset type: what `check` needs for "video from *.cdn.example". */
export interface HostAssetTypeRow extends RowVerdict {
  host: string;
  assetType: string;
  protocols: string[];
  flows: number;
  bytes: number;
}

interface Candidate { v: Verdict; flowId: string; bytes: number; durationMs: number }

/** Why fusion leaves a profile's verdict out (fusion.ts `judgeable`), or undefined. */
function notJudged(v: Verdict): ProfileVerdict['notJudged'] {
  const c = v.conditions;
  if (!c) return undefined;
  if (!c.inside) return { cause: 'outside-training', reason: c.outsideReason ?? 'conditions outside those the model was trained under' };
  if (c.disturbed !== null) return { cause: 'host-disturbed', reason: c.disturbed };
  return undefined;
}

const MEDIA: Omit<RowVerdict, 'perProfile'> = {
  label: 'WebRTC media', kind: 'media', confidence: 1, reason: 'RTP/SRTP media of a call (no TCP-like window to read)',
};

function fused(perProfile: Map<string, Candidate>, media: boolean, calibration?: Calibrations): RowVerdict {
  const pp = Object.fromEntries([...perProfile.entries()].map(([p, c]): [string, ProfileVerdict] => {
    const why = notJudged(c.v);
    return [p, { flowId: c.flowId, label: c.v.label, kind: c.v.kind, confidence: c.v.confidence, reason: c.v.reason, bytes: c.bytes, durationMs: c.durationMs, ...(why ? { notJudged: why } : {}) }];
  }));
  if (media) return { ...MEDIA, perProfile: pp };
  const verdicts = [...perProfile.values()].map((x) => x.v);
  // Fused (and calibrated) even for one profile: its confidence then says how often such verdicts were right.
  const f = verdicts.length ? fuseProfiles(verdicts, { calibration }) : undefined;
  return { label: f?.label ?? 'Unknown', kind: f?.kind ?? 'unknown', confidence: f?.confidence ?? 0, reason: f?.reason ?? 'no classifiable flow', ...(f?.withheld ? { withheld: f.withheld } : {}), perProfile: pp };
}

function durations(a: ProfileAnalysis): Map<string, number> {
  return new Map(a.flows.map((f) => [f.id, f.durationMs]));
}

/**
 * One row per server host: the flows that carried the page's bytes from it, their asset
 * types, and one verdict fused across profiles (each profile's largest flow from that host).
 */
export function summarize(analyses: ProfileAnalysis[], calibration?: Calibrations): SummaryRow[] {
  const hosts = new Map<string, { types: Set<string>; protocol: string; flows: number; bytes: number; perProfile: Map<string, Candidate> }>();
  for (const a of analyses) {
    const dur = durations(a);
    for (const [flowId, info] of a.flowInfo) {
      if (Object.keys(info.assetBytes).length === 0 && info.protocol !== 'udp-rtp') continue; // carried nothing the page asked for
      const h = hosts.get(info.host) ?? { types: new Set<string>(), protocol: info.protocol, flows: 0, bytes: 0, perProfile: new Map() };
      for (const t of Object.keys(info.assetBytes)) h.types.add(t);
      h.flows++;
      h.bytes += info.bytesDown;
      const v = a.rawVerdicts.get(flowId);
      const best = h.perProfile.get(a.profile);
      if (v && (!best || info.bytesDown > best.bytes)) h.perProfile.set(a.profile, { v, flowId, bytes: info.bytesDown, durationMs: dur.get(flowId) ?? 0 });
      hosts.set(info.host, h);
    }
  }
  return [...hosts.entries()].map(([host, h]) => ({
    host, assetTypes: [...h.types].sort(), protocol: h.protocol, flows: h.flows, bytes: h.bytes, ...fused(h.perProfile, h.protocol === 'udp-rtp', calibration),
  })).sort((a, b) => a.host.localeCompare(b.host));
}

interface TypeGroup { host: string; assetType: string; hosts: Set<string>; protocols: Set<string>; flows: number; bytes: number; perProfile: Map<string, Candidate> }

/**
 * Flows grouped by asset type (and host, when `byHost`): each profile's flow that carried the
 * most bytes of the group is the one its verdict comes from. WebRTC media is type "webrtc".
 */
function groupByType(analyses: ProfileAnalysis[], byHost: boolean): Map<string, TypeGroup> {
  const groups = new Map<string, TypeGroup>();
  for (const a of analyses) {
    const dur = durations(a);
    for (const [flowId, info] of a.flowInfo) {
      const carried = info.protocol === 'udp-rtp' ? { webrtc: info.bytesDown } : info.assetBytes;
      for (const [type, bytes] of Object.entries(carried)) {
        const key = byHost ? `${info.host}\u0000${type}` : type;
        const t = groups.get(key) ?? { host: info.host, assetType: type, hosts: new Set<string>(), protocols: new Set<string>(), flows: 0, bytes: 0, perProfile: new Map() };
        t.hosts.add(info.host);
        t.protocols.add(info.protocol);
        t.flows++;
        t.bytes += bytes;
        const v = a.rawVerdicts.get(flowId);
        const best = t.perProfile.get(a.profile);
        if (v && (!best || bytes > best.bytes)) t.perProfile.set(a.profile, { v, flowId, bytes, durationMs: dur.get(flowId) ?? 0 });
        groups.set(key, t);
      }
    }
  }
  return groups;
}

/**
 * One row per asset type: which hosts and flows carried it, and one verdict fused across
 * profiles (each profile's flow that carried the most bytes of that type). WebRTC media is
 * its own row (type "webrtc") when the run had any.
 */
export function summarizeAssetTypes(analyses: ProfileAnalysis[], calibration?: Calibrations): AssetTypeRow[] {
  return [...groupByType(analyses, false).values()].map((t) => ({
    assetType: t.assetType, hosts: [...t.hosts].sort(), protocols: [...t.protocols].sort(), flows: t.flows, bytes: Math.round(t.bytes),
    ...fused(t.perProfile, t.assetType === 'webrtc', calibration),
  })).sort((a, b) => a.assetType.localeCompare(b.assetType));
}

/** One row per server host and asset type, fused as the asset-type rows are. */
export function summarizeHostAssetTypes(analyses: ProfileAnalysis[], calibration?: Calibrations): HostAssetTypeRow[] {
  return [...groupByType(analyses, true).values()].map((t) => ({
    host: t.host, assetType: t.assetType, protocols: [...t.protocols].sort(), flows: t.flows, bytes: Math.round(t.bytes),
    ...fused(t.perProfile, t.assetType === 'webrtc', calibration),
  })).sort((a, b) => a.host.localeCompare(b.host) || a.assetType.localeCompare(b.assetType));
}

/** Requests of one host and asset type that got no response in any profile's run of the page. */
export interface UnansweredRow {
  host: string;
  assetType: string;
  /** Requests without a response, over all profiles. */
  requests: number;
  /** What the browser said of each (e.g. "net::ERR_ABORTED"), per profile. */
  perProfile: Record<string, string[]>;
}

/**
 * The page's requests no server answered (no response status): what a check says when a host
 * never answered ("no flow answered"), instead of only "not seen".
 */
export function summarizeUnanswered(analyses: ProfileAnalysis[]): UnansweredRow[] {
  const rows = new Map<string, UnansweredRow>();
  for (const a of analyses) {
    for (const u of a.unanswered ?? []) {
      const key = `${u.host}\u0000${u.assetType}`;
      const r = rows.get(key) ?? { host: u.host, assetType: u.assetType, requests: 0, perProfile: {} };
      r.requests++;
      const why = u.failed ?? 'no response';
      const mine = r.perProfile[a.profile] ?? (r.perProfile[a.profile] = []);
      if (!mine.includes(why)) mine.push(why);
      rows.set(key, r);
    }
  }
  return [...rows.values()].sort((a, b) => a.host.localeCompare(b.host) || a.assetType.localeCompare(b.assetType));
}
