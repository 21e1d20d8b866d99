import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/classify/verdict.js';
import type { ProfileAnalysis } from '../../../src/session/analyze.js';
import { summarize, summarizeAssetTypes } from '../../../src/session/summary.js';
import type { FlowRecord } from '../../../src/results/schema.js';

const verdict = (label: string, confidence = 0.8): Verdict => ({
  schemaVersion: 1, label, kind: label === 'Short flow' ? 'short-flow' : label === 'Unknown' ? 'unknown' : 'cca',
  confidence: label === 'Short flow' || label === 'Unknown' ? 0 : confidence, reason: `said ${label}`, shapeCluster: null, evidence: null,
});

interface F { id: string; host: string; assetBytes: Record<string, number>; bytesDown: number; durationMs: number; v?: Verdict; protocol?: FlowRecord['protocol'] }

function analysis(profile: string, flows: F[]): ProfileAnalysis {
  return {
    profile, assets: [], verdicts: [], byteCoverage: 1, warnings: [],
    flows: flows.map((f) => ({ id: f.id, durationMs: f.durationMs }) as FlowRecord),
    rawVerdicts: new Map(flows.filter((f) => f.v).map((f) => [f.id, f.v!])),
    flowInfo: new Map(flows.map((f) => [f.id, { host: f.host, assetBytes: f.assetBytes, protocol: f.protocol ?? 'tcp', bytesDown: f.bytesDown }])),
  };
}

describe('summarizeAssetTypes', () => {
  const p50 = analysis('nebby-50', [
    { id: 'nebby-50:tcp-0', host: 'www.example', assetBytes: { document: 2000, script: 9000 }, bytesDown: 11_000, durationMs: 3000, v: verdict('Short flow') },
    { id: 'nebby-50:tcp-1', host: 'cdn.example', assetBytes: { video: 500_000, audio: 100_000 }, bytesDown: 600_000, durationMs: 45_000, v: verdict('BBRv1', 0.9) },
    // A second, smaller video flow: not the one this profile's video verdict comes from.
    { id: 'nebby-50:tcp-2', host: 'cdn.example', assetBytes: { video: 20_000 }, bytesDown: 20_000, durationMs: 4000, v: verdict('CUBIC') },
    { id: 'nebby-50:udp-0', host: '10.0.0.9', assetBytes: {}, bytesDown: 1000, durationMs: 1000, protocol: 'udp' },
  ]);
  const p100 = analysis('nebby-100', [
    { id: 'nebby-100:tcp-0', host: 'www.example', assetBytes: { document: 2000, script: 9000 }, bytesDown: 11_000, durationMs: 3000, v: verdict('Short flow') },
    { id: 'nebby-100:tcp-1', host: 'cdn.example', assetBytes: { video: 520_000, audio: 90_000 }, bytesDown: 610_000, durationMs: 47_000, v: verdict('BBRv1', 0.7) },
  ]);

  it('one row per asset type, each profile contributing the flow with most bytes of that type, fused across profiles', () => {
    const rows = summarizeAssetTypes([p50, p100]);
    expect(rows.map((r) => r.assetType)).toEqual(['audio', 'document', 'script', 'video']);
    const video = rows.find((r) => r.assetType === 'video')!;
    expect(video).toMatchObject({ label: 'BBRv1', kind: 'cca', hosts: ['cdn.example'], protocols: ['tcp'], flows: 3, bytes: 1_040_000 });
    expect(video.perProfile['nebby-50']).toEqual({ flowId: 'nebby-50:tcp-1', label: 'BBRv1', kind: 'cca', confidence: 0.9, reason: 'said BBRv1', bytes: 500_000, durationMs: 45_000 });
    expect(video.perProfile['nebby-100'].flowId).toBe('nebby-100:tcp-1');
    expect(video.confidence).toBeGreaterThan(0);
    expect(rows.find((r) => r.assetType === 'document')).toMatchObject({ label: 'Short flow', kind: 'short-flow', confidence: 0 });
  });

  it('profiles that disagree give Unknown (the fusion rule)', () => {
    const other = analysis('nebby-100', [
      { id: 'nebby-100:tcp-1', host: 'cdn.example', assetBytes: { video: 520_000 }, bytesDown: 520_000, durationMs: 47_000, v: verdict('CUBIC') },
    ]);
    expect(summarizeAssetTypes([p50, other]).find((r) => r.assetType === 'video')!.label).toBe('Unknown');
  });

  it('host rows keep their columns and now carry kind and the per-profile flows', () => {
    const rows = summarize([p50, p100]);
    expect(rows.map((r) => [r.host, r.assetTypes.join(','), r.protocol, r.flows, r.label, r.kind])).toEqual([
      ['cdn.example', 'audio,video', 'tcp', 3, 'BBRv1', 'cca'],
      ['www.example', 'document,script', 'tcp', 2, 'Short flow', 'short-flow'],
    ]);
    expect(rows[0].perProfile['nebby-50'].bytes).toBe(600_000);
  });

  it('WebRTC media is its own type and never gets a TCP label', () => {
    const call = analysis('video', [{ id: 'video:udp-0', host: '10.0.0.2', assetBytes: {}, bytesDown: 900_000, durationMs: 30_000, protocol: 'udp-rtp' }]);
    expect(summarizeAssetTypes([call])).toMatchObject([{ assetType: 'webrtc', label: 'WebRTC media', kind: 'media', bytes: 900_000 }]);
    expect(summarize([call])).toMatchObject([{ label: 'WebRTC media', kind: 'media' }]);
  });
});
