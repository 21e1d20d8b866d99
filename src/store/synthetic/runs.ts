/**
 * Seeded synthetic runs with the shapes real crawls have: sites of five kinds, each served by
 * a few origins (page, static CDN, media CDN) whose CCA is mostly the same everywhere but
 * sometimes differs in one region or changes between dates; h2/h3 connections carrying many
 * assets; most small flows too short to judge; WebRTC media on call sites. Optionally every
 * string a site controls carries a script-injection payload (the report's security test).
 */
import type { AssetRecord, AssetType, Evidence, FlowRecord, RunInfo, VerdictRecord } from '../../results/schema.js';
import type { IngestInput } from '../ingest.js';
import { syntheticEvidence } from './evidence.js';
import { rng, subSeed, type Rng } from './prng.js';

export interface SyntheticOptions {
  seed: number;
  sites: number;
  /** Default: eu, in, sg, us-east, us-west. */
  regions?: string[];
  /** YYYY-MM-DD days; default one day. */
  dates?: string[];
  /** Default nebby-50 and nebby-100. */
  profiles?: string[];
  /** Points of each smoothed trace; 0 = no evidence (smaller stores). Default 256. */
  evidencePoints?: number;
  /** Multiplies the number of assets per run (default 1). */
  assetScale?: number;
  /** Put a script-injection payload in every string a site controls. */
  hostile?: boolean;
  /** Share of runs marked incomplete (default 0.02). */
  incompleteRate?: number;
  /**
   * 0 (default): every flow gets its own trace. N > 0: traces are drawn from N pre-made ones
   * per label (same sizes, much faster: for benchmarks where values do not matter).
   */
  evidenceVariants?: number;
}

type EvidenceCache = Map<string, Evidence>;

export const DEFAULT_REGIONS = ['eu', 'in', 'sg', 'us-east', 'us-west'];

/** Strings that must stay text wherever the report shows them. Each tries to set window.__pwned. */
export const HOSTILE_PAYLOADS = [
  '<script>window.__pwned=1</script>',
  '"><img src=x onerror="window.__pwned=2;alert(2)">',
  'javascript:window.__pwned=3',
  '</script><script>window.__pwned=4</script>',
  '<svg onload="window.__pwned=5"><script>alert(5)</script></svg>',
  "'><iframe srcdoc=\"<script>parent.__pwned=6</script>\">",
  '\u2028\u2029<!--<script>window.__pwned=7</script>',
  '=HYPERLINK("http://example.invalid/x","click")',
  '{{constructor.constructor("window.__pwned=8")()}}',
  '<a href="javascript:window.__pwned=9">x</a>',
] as const;

type Kind = RunInfo['scenario']['kind'];
type Origin = 'www' | 'static' | 'media';

const CCA_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['CUBIC', 42],
  ['BBRv1', 20],
  ['BBRv3', 8],
  ['BBRv2', 5],
  ['BBR (other version)', 4],
  ['NewReno', 9],
  ['AkamaiCC-like', 8],
  ['Copa', 1],
];

const TYPES_BY_ORIGIN: Record<Origin, AssetType[]> = {
  www: ['document', 'xhr'],
  static: ['script', 'style', 'image', 'font'],
  media: ['video', 'audio', 'manifest'],
};

const KIND_MEDIA: Record<Kind, AssetType[]> = {
  vod: ['video', 'audio', 'manifest'],
  live: ['video', 'manifest'],
  audio: ['audio', 'manifest'],
  call: [],
  static: [],
};

/** [min count, max count, min KB, max KB] per asset type. */
const ASSET_SIZES: Record<AssetType, [number, number, number, number]> = {
  document: [1, 1, 30, 160],
  script: [3, 12, 5, 300],
  style: [1, 4, 2, 60],
  image: [3, 20, 2, 220],
  font: [0, 3, 20, 80],
  xhr: [2, 10, 1, 20],
  manifest: [1, 3, 1, 12],
  video: [6, 30, 200, 1800],
  audio: [5, 20, 50, 320],
  other: [0, 2, 1, 10],
};

const MIME: Record<AssetType, string> = {
  document: 'text/html',
  script: 'application/javascript',
  style: 'text/css',
  image: 'image/webp',
  font: 'font/woff2',
  xhr: 'application/json',
  manifest: 'application/dash+xml',
  video: 'video/mp4',
  audio: 'audio/mp4',
  other: 'application/octet-stream',
};

interface SiteSpec {
  index: number;
  name: string;
  kind: Kind;
  origins: Origin[];
  /** CCA per origin, with per-region overrides and per-date switches. */
  cca: Record<Origin, { base: string; region?: [string, string]; switchAt?: [string, string] }>;
  hostile: boolean;
}

function siteSpec(opts: Required<SyntheticOptions>, i: number): SiteSpec {
  const r = rng(subSeed(opts.seed, `site:${i}`));
  const kind = r.weighted<Kind>([
    ['static', 60],
    ['vod', 15],
    ['live', 8],
    ['audio', 8],
    ['call', 9],
  ]);
  const stem = { static: 'news', vod: 'vod', live: 'live', audio: 'music', call: 'meet' }[kind];
  const hostile = opts.hostile && i % 2 === 0;
  const name = hostile ? `${stem}-${i}.example${HOSTILE_PAYLOADS[i % HOSTILE_PAYLOADS.length]}` : `${stem}-${String(i).padStart(5, '0')}.example`;
  const origins: Origin[] = KIND_MEDIA[kind].length ? ['www', 'static', 'media'] : ['www', 'static'];
  const cca = {} as SiteSpec['cca'];
  let shared: string | null = null;
  for (const o of origins) {
    // Small sites often serve everything from one CDN (one CCA); large ones mix.
    const base: string = shared !== null && r.chance(0.5) ? shared : r.weighted(CCA_WEIGHTS);
    shared ??= base;
    const entry: SiteSpec['cca'][Origin] = { base };
    if (r.chance(0.08)) entry.region = [r.pick(opts.regions), r.weighted(CCA_WEIGHTS.filter(([l]) => l !== base))];
    if (opts.dates.length > 1 && r.chance(0.03)) entry.switchAt = [r.pick(opts.dates.slice(1)), r.weighted(CCA_WEIGHTS.filter(([l]) => l !== base))];
    cca[o] = entry;
  }
  return { index: i, name, kind, origins, cca, hostile };
}

function ccaFor(s: SiteSpec, o: Origin, region: string, date: string): string {
  const c = s.cca[o];
  if (c.switchAt && date >= c.switchAt[0]) return c.switchAt[1];
  if (c.region && c.region[0] === region) return c.region[1];
  return c.base;
}

function hostileText(r: Rng, s: SiteSpec, plain: string): string {
  return s.hostile ? `${plain}${r.pick(HOSTILE_PAYLOADS)}` : plain;
}

function originOf(t: AssetType): Origin {
  return t in { document: 1, xhr: 1 } ? 'www' : t in { video: 1, audio: 1, manifest: 1 } ? 'media' : 'static';
}

function buildRun(opts: Required<SyntheticOptions>, s: SiteSpec, region: string, date: string, cache: EvidenceCache): IngestInput {
  const r = rng(subSeed(opts.seed, `run:${s.index}:${region}:${date}`));
  const runId = `${date}_${region}_${s.index}`.replace(/[^\x21-\x7e]/g, '_') + (s.hostile ? '"><img' : '');
  const startedAt = `${date}T${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}:00.000Z`;
  const incomplete = r.chance(opts.incompleteRate);
  const durationS = s.kind === 'static' ? 40 : 120;
  const run: RunInfo = {
    schemaVersion: 1,
    runId,
    scenario: { name: hostileText(r, s, `${s.kind} synthetic`), kind: s.kind, file: `scenarios/${s.kind}.ts` },
    site: s.name,
    startUrl: s.hostile ? 'javascript:window.__pwned=10//' : `https://www.${s.name}/`,
    region,
    mode: 'internet',
    profiles: opts.profiles.map((name) => ({ name, rateKbit: 200, delayMs: name.endsWith('100') ? 100 : 50 })),
    startedAt,
    endedAt: incomplete ? null : new Date(Date.parse(startedAt) + durationS * 1000 * opts.profiles.length).toISOString(),
    status: incomplete ? 'incomplete' : 'complete',
    ...(incomplete ? { incompleteReason: hostileText(r, s, 'scenario threw: TimeoutError: waiting for selector "button.play"') } : {}),
    versions: { tool: '0.1.0', browser: 'Chromium 156.0.8078.79', model: 'ccbrowse-model synthetic' },
  };
  const flows: FlowRecord[] = [];
  const verdicts: VerdictRecord[] = [];
  const assets: AssetRecord[] = [];
  const types: AssetType[] = ['document', 'script', 'style', 'image', 'font', 'xhr', ...KIND_MEDIA[s.kind]];
  let flowN = 0;
  // An incomplete run stopped part-way: it keeps only its first profile.
  for (const profile of incomplete ? opts.profiles.slice(0, 1) : opts.profiles) {
    const rtt = (profile.endsWith('100') ? 0.22 : 0.12) + r() * 0.02;
    const conns = new Map<Origin, FlowRecord[]>();
    for (const o of s.origins) {
      const n = o === 'www' ? 1 : r.int(1, o === 'media' ? 3 : 2);
      const quic = r.chance(o === 'media' ? 0.35 : 0.15);
      const list: FlowRecord[] = [];
      for (let k = 0; k < n; k++) {
        flowN++;
        list.push({
          id: `f${flowN}`,
          profile,
          protocol: quic ? 'quic' : 'tcp',
          transport: quic ? 'udp' : 'tcp',
          client: { ip: '10.203.1.2', port: 40000 + flowN },
          server: { ip: `198.51.100.${1 + (s.origins.indexOf(o) * 40 + k) % 250}`, port: 443 },
          serverName: hostileText(r, s, `${o}.${s.name}`),
          bytes: { down: 0, up: 0 },
          packets: { down: 0, up: 0 },
          startMs: 0,
          durationMs: 0,
          rttMs: Math.round(rtt * 1000),
          bifMethod: quic ? 'quic-ack-estimate' : 'tcp-seq-ack',
          retransmissions: 0,
        });
      }
      conns.set(o, list);
    }
    let harIndex = 0;
    let clock = 0;
    for (const t of types) {
      const [cmin, cmax, kbMin, kbMax] = ASSET_SIZES[t];
      const count = Math.round(r.int(cmin, cmax) * (t === 'document' ? 1 : opts.assetScale));
      const o = originOf(t);
      const list = conns.get(o) ?? conns.get('static')!;
      for (let k = 0; k < count; k++) {
        const f = list[k % list.length];
        const bytes = Math.round((kbMin + r() * (kbMax - kbMin)) * 1024);
        const start = t === 'document' ? 0 : t === 'video' || t === 'audio' ? 2000 + k * r.int(1800, 4000) : clock + r.int(0, 400);
        const dur = Math.max(20, (bytes * 8) / 200 + r.int(100, 900));
        clock = Math.max(clock, t === 'document' ? dur : clock);
        assets.push({
          harIndex: harIndex++,
          profile,
          url: s.hostile ? `https://${o}.${s.name}/${t}/${k}?q=${r.pick(HOSTILE_PAYLOADS)}` : `https://${o}.${s.name}/${t}/${k}.${t === 'video' ? 'm4s' : 'bin'}`,
          host: hostileText(r, s, `${o}.${s.name}`),
          assetType: t,
          mime: s.hostile && k === 0 ? `${MIME[t]}; ${r.pick(HOSTILE_PAYLOADS)}` : MIME[t],
          bytes,
          status: 200,
          flowId: r.chance(0.01) ? null : f.id,
          protocol: f.protocol === 'quic' ? 'h3' : 'h2',
          startMs: start,
          endMs: start + dur,
        });
        f.bytes.down += bytes + 400;
        f.bytes.up += 500;
        if (f.durationMs === 0) f.startMs = start;
        f.durationMs = Math.max(f.durationMs, start + dur - f.startMs);
      }
    }
    if (s.kind === 'call') {
      flowN++;
      flows.push({
        id: `f${flowN}`,
        profile,
        protocol: 'udp-rtp',
        transport: 'udp',
        client: { ip: '10.203.1.2', port: 50000 + flowN },
        server: { ip: '203.0.113.9', port: 3478 },
        bytes: { down: 3_000_000, up: 2_500_000 },
        packets: { down: 3000, up: 2600 },
        startMs: 3000,
        durationMs: 60000,
        rttMs: Math.round(rtt * 1000),
        bifMethod: 'none',
        retransmissions: null,
      });
      verdicts.push({ flowId: `f${flowN}`, label: 'WebRTC media', kind: 'media', confidence: 0, reason: 'RTP/SRTP over UDP: media, not a congestion-controlled byte stream', posterior: {}, evidence: null });
    }
    for (const [o, list] of conns) {
      for (const f of list) {
        f.packets.down = Math.ceil(f.bytes.down / 1400);
        f.packets.up = Math.ceil(f.bytes.up / 100);
        f.retransmissions = f.protocol === 'tcp' ? Math.floor(f.packets.down * r() * 0.02) : null;
        flows.push(f);
        verdicts.push(verdictFor(r, opts, s, ccaFor(s, o, region, date), f, cache));
      }
    }
  }
  return { run, flows, verdicts, model: run.versions.model, assets };
}

function verdictFor(r: Rng, opts: Required<SyntheticOptions>, s: SiteSpec, cca: string, f: FlowRecord, cache: EvidenceCache): VerdictRecord {
  const seconds = f.durationMs / 1000;
  const base = { flowId: f.id, posterior: {}, evidence: null };
  if (f.bytes.down < 150_000 || seconds < 4) {
    return { ...base, label: 'Short flow', kind: 'short-flow', confidence: 0, reason: `${(seconds).toFixed(1)} s and ${Math.round(f.bytes.down / 1024)} KB: too few RTTs to judge` };
  }
  const x = r();
  const label = s.hostile && x < 0.15 ? r.pick(['<img src=x onerror="window.__pwned=11">', 'constructor', '__proto__']) : x < 0.1 ? 'Unknown' : x < 0.14 ? 'Application-limited' : cca;
  const kind: VerdictRecord['kind'] = label === 'Unknown' ? 'unknown' : label === 'Application-limited' ? 'application-limited' : 'cca';
  const confidence = kind === 'cca' ? Math.round((0.55 + r() * 0.43) * 100) / 100 : 0;
  let evidence: Evidence | null = null;
  if (opts.evidencePoints > 0 && opts.evidenceVariants > 0) {
    const key = `${label}\u0000${r.int(1, opts.evidenceVariants)}`;
    evidence = cache.get(key) ?? null;
    if (!evidence) {
      const er = rng(subSeed(opts.seed, key));
      evidence = syntheticEvidence(er, label, { rttSeconds: 0.12 + er() * 0.1, durationSeconds: 12 + er() * 25, points: opts.evidencePoints, levelBytes: 4000 + er() * 8000 });
      cache.set(key, evidence);
    }
  } else if (opts.evidencePoints > 0) {
    evidence = syntheticEvidence(r, label, { rttSeconds: (f.rttMs ?? 120) / 1000, durationSeconds: Math.min(40, Math.max(8, seconds)), points: opts.evidencePoints, levelBytes: 4000 + r() * 8000 });
  }
  const posterior: Record<string, number> =
    label === 'CUBIC' || label === 'NewReno' ? { CUBIC: label === 'CUBIC' ? confidence : 1 - confidence, NewReno: label === 'NewReno' ? confidence : 1 - confidence } : kind === 'cca' ? { [label]: confidence } : {};
  const reason =
    kind === 'cca'
      ? hostileText(r, s, label.startsWith('BBR') ? 'bbr: ProbeBW bumps every 8 RTTs and ProbeRTT dips' : `loss-based: ${evidence?.segments.filter((g) => g.usable).length ?? 0} judged segment(s) match`)
      : kind === 'unknown'
        ? 'conflicting claims: CUBIC (2) vs NewReno (1)'
        : 'the sender was idle or application-limited for most of the flow';
  return { ...base, label, kind, confidence, reason, posterior, evidence };
}

function withDefaults(o: SyntheticOptions): Required<SyntheticOptions> {
  return {
    seed: o.seed,
    sites: o.sites,
    regions: o.regions ?? DEFAULT_REGIONS,
    dates: o.dates ?? ['2025-01-15'],
    profiles: o.profiles ?? ['nebby-50', 'nebby-100'],
    evidencePoints: o.evidencePoints ?? 256,
    assetScale: o.assetScale ?? 1,
    hostile: o.hostile ?? false,
    incompleteRate: o.incompleteRate ?? 0.02,
    evidenceVariants: o.evidenceVariants ?? 0,
  };
}

/** Every run (site x region x date), generated lazily so a 100,000-run store never sits in memory. */
export function* syntheticRuns(options: SyntheticOptions): Generator<IngestInput> {
  const opts = withDefaults(options);
  const cache: EvidenceCache = new Map();
  for (let i = 0; i < opts.sites; i++) {
    const s = siteSpec(opts, i);
    for (const date of opts.dates) for (const region of opts.regions) yield buildRun(opts, s, region, date, cache);
  }
}
