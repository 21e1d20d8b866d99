/** Synthetic runs and plans for the check's unit tests (pure logic: no browser, no lab). */
import type { CheckRun } from '../../../src/check/observe.js';
import type { PlannedExpectation, PlannedScenario } from '../../../src/check/plan.js';
import { parseLabelSpec } from '../../../src/check/labels.js';
import type { SummaryFile } from '../../../src/results/summary.js';
import type { Scenario } from '../../../src/scenario/schema.js';

type PerProfile = SummaryFile['byAssetType'][number]['perProfile'];

export interface RowSpec {
  label: string;
  kind?: string;
  confidence?: number;
  reason?: string;
  /** Per profile: 'judged' (default), or why fusion left it out. */
  profiles?: Record<string, 'judged' | 'host-disturbed' | 'outside-training'>;
  flows?: number;
  bytes?: number;
  /** A "low confidence" Unknown's held-back answer. */
  withheld?: { label: string; confidence: number; minAnswer?: number };
}

const kindOf = (label: string) => (label === 'Unknown' ? 'unknown' : label === 'Short flow' ? 'short-flow' : label === 'Application-limited' ? 'application-limited' : label === 'WebRTC media' ? 'media' : 'cca');

function perProfile(s: RowSpec): PerProfile {
  const profiles = s.profiles ?? { 'nebby-50': 'judged' };
  return Object.fromEntries(Object.entries(profiles).map(([p, how]) => [p, {
    flowId: `${p}:tcp-1`, label: s.label, kind: s.kind ?? kindOf(s.label), confidence: s.confidence ?? 0, reason: s.reason ?? `said ${s.label}`, bytes: 1000, durationMs: 30_000,
    ...(how === 'judged' ? {} : { notJudged: { cause: how, reason: how === 'host-disturbed' ? 'the measuring host stalled the bottleneck for 90 ms' : 'RTT 0.9 s outside the trained conditions' } }),
  }]));
}

function row(s: RowSpec) {
  const kind = s.kind ?? kindOf(s.label);
  return { label: s.label, kind, confidence: kind === 'cca' || kind === 'media' ? (s.confidence ?? 0.8) : 0, reason: s.reason ?? `said ${s.label}`, perProfile: perProfile(s), flows: s.flows ?? 2, bytes: s.bytes ?? 400_000,
    ...(s.withheld ? { withheld: { minAnswer: 0.8, ...s.withheld } } : {}) };
}

/** A run with asset-type rows, host rows and host x type rows. */
export function run(id: string, opts: {
  types?: Record<string, RowSpec>; hosts?: Record<string, RowSpec>; hostTypes?: Array<[string, string, RowSpec]>;
  region?: string; status?: 'complete' | 'incomplete'; incompleteReason?: string; scenario?: string; group?: string; startedAt?: string; notForClassification?: string[];
  unanswered?: CheckRun['unanswered'];
} = {}): CheckRun & { group?: string } {
  return {
    runId: id, dir: `/runs/${id}`, status: opts.status ?? 'complete', ...(opts.incompleteReason ? { incompleteReason: opts.incompleteReason } : {}),
    scenario: opts.scenario ?? 'lab-vod', site: 'www.lab.ccb.test', region: opts.region ?? 'sg', startedAt: opts.startedAt ?? '2025-06-01T10:00:00.000Z', endedAt: null,
    notForClassification: opts.notForClassification ?? [],
    byAssetType: Object.entries(opts.types ?? {}).map(([assetType, s]) => ({ assetType, hosts: ['media.lab.ccb.test'], protocols: ['tcp'], ...row(s) })),
    byHost: Object.entries(opts.hosts ?? {}).map(([host, s]) => ({ host, assetTypes: ['video'], protocol: 'tcp', ...row(s) })),
    byHostAssetType: (opts.hostTypes ?? []).map(([host, assetType, s]) => ({ host, assetType, protocols: ['tcp'], ...row(s) })),
    unanswered: opts.unanswered ?? [],
    ...(opts.group ? { group: opts.group } : {}),
  };
}

export function expectation(o: Partial<Omit<PlannedExpectation, 'cca'>> & { cca?: string[] } = {}): PlannedExpectation {
  return {
    id: o.id ?? 'lab-vod video', name: o.name ?? 'video is BBR', source: o.source ?? { file: 'checks/cdn.ts', line: 7 },
    assetType: o.assetType ?? (o.host ? undefined : 'video'), host: o.host, cca: (o.cca ?? ['BBR']).map(parseLabelSpec),
    minConfidence: o.minConfidence ?? 0.5, onNonAnswer: o.onNonAnswer ?? 'fail', regions: o.regions,
  };
}

export function plannedScenario(expectations: PlannedExpectation[], o: { name?: string; retries?: number } = {}): PlannedScenario {
  return {
    path: '/repo/scenarios/lab/vod.ts', file: 'scenarios/lab/vod.ts',
    scenario: { name: o.name ?? 'lab-vod', startUrl: 'https://www.lab.ccb.test/vod/', profiles: ['nebby-50'], lab: true } as Scenario,
    expectations, retries: o.retries ?? 2,
  };
}
