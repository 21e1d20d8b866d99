/**
 * Accuracy vs trace length (issue 20; docs/benchmarks/speed.md "Accuracy vs trace length").
 *
 *   npx tsx bench/trace-length.ts [--model models/ccbrowse-model.json] [--tune g1:base,rtt-0,...]
 *       [--cache build/bench/trace-length-verdicts.json.gz] SET=PATH[,PATH...] ...
 *
 * e.g. g1=/work/main/build/grid/g1 h1=/work/main/build/grid/h1 issue17=/work/shared-data/issue17/trained.json,...
 *
 * Every labelled trace is classified by the model cut at the fixed lengths and at each checkpoint
 * a rule reaches (verdicts cached in --cache, so a second run only reports). A measurement (one controller under one
 * condition, its profiles fused as a probe run fuses them) is scored at fixed cuts and with the
 * early-stop rule (classify/early-stop.ts) replayed on the cached verdicts: accuracy, Unknown,
 * confident wrong (>= 0.7), and the trace length each profile's verdict needed (median, p90).
 * Rules are tuned on the --tune conditions only; every other condition is reported as held out.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { classifyFlow, fuseProfiles, loadModel, type Model, type Verdict } from '../src/classify/index.js';
import { DEFAULT_STOP_RULE, replayStop, type StopRule } from '../src/classify/early-stop.js';
import { loadGridEntries, tally, type GridEntry, type Tally } from '../src/train/conditions-bench.js';
import { toSeries } from '../src/train/dataset.js';
import { truncateSeries } from '../src/trace/truncate.js';
import type { BifSeries } from '../src/trace/types.js';
import { takeFlag } from '../src/util/script-args.js';

const args = process.argv.slice(2);
const flag = (name: string) => takeFlag(args, name);
const modelPath = flag('--model') ?? 'models/ccbrowse-model.json';
const cachePath = flag('--cache') ?? 'build/bench/trace-length-verdicts.json.gz';
const tuneSpec = flag('--tune') ?? 'g1:base,rtt-150';
const sets = args.filter((a) => a.includes('=')).map((a) => {
  const [name, paths] = a.split('=');
  return { name, paths: paths.split(',') };
});
if (!sets.length) {
  console.error('usage: bench/trace-length.ts [--model M] [--tune SET:cond,...] SET=PATH[,PATH] ...');
  process.exit(2);
}
const say = (m: string) => console.log(m);
const model: Model = loadModel(modelPath);

const FIXED = [10, 15, 20, 25, 30];
const FULL = 30;
/** Rules tried on the tuning conditions: [floor, step, K] (few: each checkpoint costs a classification). */
const TRIED: Array<[number, number, number]> = [[10, 2, 2], [10, 2, 3], [10, 2, 4], [12, 2, 2], [12, 2, 3], [12, 2, 4], [12, 2, 5], [14, 2, 2], [14, 2, 3], [14, 2, 4], [10, 4, 2], [12, 3, 3]];

interface Trace { set: string; e: GridEntry; key: string; measurement: string; end: number }
const traces: Trace[] = sets.flatMap((s) => loadGridEntries(s.paths).map((e, i) => ({
  set: s.name, e, key: `${s.name}\t${e.conditionId}\t${e.origin}\t${e.region}\t${e.rep}\t${e.profile}\t${i}`,
  measurement: `${s.name}\t${e.conditionId}\t${e.origin}\t${e.region}\t${e.rep}`, end: e.t.length ? e.t[e.t.length - 1] : 0,
})));

/** What fusion and calibration read of a verdict: its claims, level, RTT and back-offs, its conditions (the rest is the report's). */
function slim(v: Verdict): Verdict {
  const ev = v.evidence;
  return { ...v, evidence: ev ? ({ claims: ev.claims, levelBytes: ev.levelBytes, rttSeconds: ev.rttSeconds, backoffs: ev.backoffs } as unknown as Verdict['evidence']) : null };
}

// Verdict cache: trace key -> cut -> raw verdict (a model change needs a fresh cache file).
type Cache = { model: string; verdicts: Record<string, Record<string, Verdict>> };
const cache: Cache = existsSync(cachePath) ? JSON.parse(gunzipSync(readFileSync(cachePath)).toString('utf8')) : { model: modelPath, verdicts: {} };
if (cache.model !== modelPath) throw new Error(`${cachePath} holds verdicts of ${cache.model}, not ${modelPath}: remove it`);
const save = () => {
  mkdirSync(dirname(cachePath), { recursive: true });
  writeFileSync(cachePath, gzipSync(JSON.stringify(cache)));
};
const t0 = Date.now();
let computed = 0;
const seriesOf = new Map<Trace, BifSeries>();
/** The raw verdict of a trace cut at `seconds` (the whole trace once the cut reaches its end). */
const rawAt = (tr: Trace, seconds: number): Verdict => {
  const cut = seconds >= tr.end ? FULL : seconds;
  const row = (cache.verdicts[tr.key] ??= {});
  let v = row[cut];
  if (!v) {
    // Judged on demand (the rule asks only for the checkpoints it reaches), then kept.
    let s = seriesOf.get(tr);
    if (!s) seriesOf.set(tr, (s = { ...toSeries(tr.e), transport: tr.e.protocol }));
    v = row[cut] = slim(classifyFlow(truncateSeries(s, cut), model, { disturbance: tr.e.disturbance ?? null }));
    if (++computed % 200 === 0) {
      save();
      console.error(`${computed} verdicts computed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }
  return v;
};
const calibratedOf = (v: Verdict) => fuseProfiles([v], { calibration: model.calibration });

interface Scored { set: string; conditionId: string; truth: string; predicted: string; confidence: number; neededSeconds: number[] }

/** Fuses each measurement's profiles from the per-trace verdicts a strategy picked. */
function score(pick: (tr: Trace) => { v: Verdict; seconds: number }, only: (tr: Trace) => boolean = () => true): Scored[] {
  const groups = new Map<string, Array<{ tr: Trace; v: Verdict; seconds: number }>>();
  for (const tr of traces.filter(only)) groups.set(tr.measurement, [...(groups.get(tr.measurement) ?? []), { tr, ...pick(tr) }]);
  return [...groups.values()].map((g) => {
    const fused = fuseProfiles(g.map((x) => x.v), { calibration: model.calibration });
    const e = g[0].tr.e;
    return { set: g[0].tr.set, conditionId: e.conditionId, truth: e.label, predicted: fused.label, confidence: fused.confidence, neededSeconds: g.map((x) => x.seconds) };
  });
}

const atCut = (c: number) => score((tr) => ({ v: rawAt(tr, c), seconds: Math.min(c, tr.end) }));
const withRule = (rule: StopRule, only?: (tr: Trace) => boolean) => score((tr) => {
  const r = replayStop({ t: Float64Array.of(0, tr.end), bif: new Float64Array(2), rttSeconds: 0 }, rule, (s) => {
    const raw = rawAt(tr, s);
    return { raw, calibrated: calibratedOf(raw) };
  });
  return { v: r.verdict, seconds: r.neededSeconds };
}, only);

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const acc = (t: Tally) => (t.n ? t.right / t.n : 0);

const tuneSet = tuneSpec.split(':')[0];
const tuneConds = new Set(tuneSpec.split(':')[1].split(','));
const isTune = (o: { set: string; conditionId: string }) => o.set === tuneSet && tuneConds.has(o.conditionId);

// 1. Tuning: every rule on the tuning conditions only.
const full = atCut(FULL);
const fullTune = tally(full.filter(isTune));
console.error(`full length judged (${computed} verdicts, ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
const rules: StopRule[] = [];
for (const [floorSeconds, stepSeconds, stableCheckpoints] of TRIED) rules.push({ ...DEFAULT_STOP_RULE, floorSeconds, stepSeconds, stableCheckpoints });
say(`# Accuracy vs trace length: ${modelPath}\n\n${traces.length} traces, ${full.length} measurements; tuned on ${tuneSet} ${[...tuneConds].join(', ')} (${fullTune.n} measurements)\n`);
say(`## Rules tried on the tuning conditions (full length: ${pct(fullTune.right, fullTune.n)} right, ${fullTune.unknown} Unknown, ${fullTune.confidentWrong} confident wrong)\n`);
say('| floor (s) | step (s) | K | right | Unknown | confident wrong | median trace (s) | p90 (s) |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const tried = rules.map((r) => {
  const os = withRule(r, (tr) => isTune({ set: tr.set, conditionId: tr.e.conditionId }));
  const t = tally(os);
  const lens = os.flatMap((o) => o.neededSeconds);
  say(`| ${r.floorSeconds} | ${r.stepSeconds} | ${r.stableCheckpoints} | ${pct(t.right, t.n)} | ${pct(t.unknown, t.n)} | ${t.confidentWrong} | ${quantile(lens, 0.5).toFixed(1)} | ${quantile(lens, 0.9).toFixed(1)} |`);
  return { r, t, median: quantile(lens, 0.5) };
});
// The shortest median whose accuracy stays within 1 point of the full length and adds no confident wrong answer.
const fit = tried.filter((x) => acc(x.t) >= acc(fullTune) - 0.01 && x.t.confidentWrong <= fullTune.confidentWrong)
  .sort((a, b) => a.median - b.median || acc(b.t) - acc(a.t));
const chosen = fit[0]?.r ?? DEFAULT_STOP_RULE;
say(`\nchosen on the tuning conditions: floor ${chosen.floorSeconds} s, step ${chosen.stepSeconds} s, K ${chosen.stableCheckpoints} (${fit.length ? 'shortest median within 1 point, no more confident wrong' : 'none fits: the default'}); the shipped default is floor ${DEFAULT_STOP_RULE.floorSeconds} s, step ${DEFAULT_STOP_RULE.stepSeconds} s, K ${DEFAULT_STOP_RULE.stableCheckpoints}\n`);

// 2. Fixed cuts and the rules beside the full length, per set/condition group.
const report = (rule: StopRule, name: string) => {
  const strategies: Array<[string, Scored[]]> = [...FIXED.map((c) => [`cut at ${c} s${c === FULL ? ' (full)' : ''}`, atCut(c)] as [string, Scored[]]), [`${name} (floor ${rule.floorSeconds}, step ${rule.stepSeconds}, K ${rule.stableCheckpoints})`, withRule(rule)]];
  const groups: Array<[string, (o: Scored) => boolean]> = [
    [`tuning: ${tuneSet} ${[...tuneConds].join(', ')}`, isTune],
    ...[...new Set(traces.map((t) => t.set))].map((s) => [`${s}${s === tuneSet ? ' other conditions' : ''} (held out)`, (o: Scored) => o.set === s && !isTune(o)] as [string, (o: Scored) => boolean]),
  ];
  for (const [g, keep] of groups) {
    const n = full.filter(keep).length;
    if (!n) continue;
    say(`### ${g} (${n} measurements)\n`);
    say('| trace length | right | Unknown | wrong | confident wrong | median per profile (s) | p90 (s) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [label, os] of strategies) {
      const mine = os.filter(keep);
      const t = tally(mine);
      const lens = mine.flatMap((o) => o.neededSeconds);
      say(`| ${label} | ${pct(t.right, t.n)} | ${pct(t.unknown, t.n)} | ${t.wrong} | ${t.confidentWrong} (${pct(t.confidentWrong, t.n)}) | ${quantile(lens, 0.5).toFixed(1)} | ${quantile(lens, 0.9).toFixed(1)} |`);
    }
    say('');
  }
  say(`Per condition, ${name}:\n`);
  say('| set / condition | measurements | full: right | rule: right | full: confident wrong | rule: confident wrong | rule median (s) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const ruled = strategies[strategies.length - 1][1];
  for (const k of [...new Set(full.map((o) => `${o.set} / ${o.conditionId}`))].sort()) {
    const f = tally(full.filter((o) => `${o.set} / ${o.conditionId}` === k));
    const rs = ruled.filter((o) => `${o.set} / ${o.conditionId}` === k);
    const r = tally(rs);
    say(`| ${k}${isTune(rs[0]) ? ' (tuning)' : ''} | ${f.n} | ${pct(f.right, f.n)} | ${pct(r.right, r.n)} | ${f.confidentWrong} | ${r.confidentWrong} | ${quantile(rs.flatMap((o) => o.neededSeconds), 0.5).toFixed(1)} |`);
  }
  say('');
};
say('## The chosen rule beside fixed cuts\n');
report(chosen, 'stop when stable');
if (JSON.stringify(chosen) !== JSON.stringify(DEFAULT_STOP_RULE)) {
  say('## The shipped default rule\n');
  report(DEFAULT_STOP_RULE, 'default rule');
}
save();
say(`(${computed} verdicts computed, ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
