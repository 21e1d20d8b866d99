import type { Command } from 'commander';
import { BadInputError, ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
// Only types at the top: each command loads what it uses when it runs (`--help` loads none of it).
import type { AssetTypeRow, RunOutcome, SummaryRow } from '../session/run.js';
import type { VoteFile } from '../results/vote.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunInfo } from '../results/schema.js';
import { indexRuns, indexVote, reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';
import { stopRuleFrom } from './stop-rule.js';
import { join as joinPath } from 'node:path';

function columns(head: string[], body: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [head, ...body].map((cols) => cols.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd()).join('\n');
}

/** The end summary: one row per server host. */
function table(rows: SummaryRow[]): string {
  return columns(['host', 'asset types', 'protocol', 'flows', 'verdict', 'confidence'],
    rows.map((r) => [r.host, r.assetTypes.join(',') || '-', r.protocol, String(r.flows), r.label, r.confidence.toFixed(2)]));
}

/** The end summary: one row per asset type. */
function typeTable(rows: AssetTypeRow[]): string {
  return columns(['asset type', 'hosts', 'protocol', 'flows', 'verdict', 'confidence'],
    rows.map((r) => [r.assetType, r.hosts.join(',') || '-', r.protocols.join(','), String(r.flows), r.label, r.confidence.toFixed(2)]));
}

/** The majority vote of --repeat N: one row per asset type, then per host. */
function voteTable(v: VoteFile): string {
  return columns(['by', 'asset type / host', 'verdict', 'votes', 'confidence', 'hosts / asset types'],
    v.groups.map((g) => [g.dimension === 'asset-type' ? 'type' : 'host', g.key, g.label,
      `${g.winnerVotes}/${g.ballots}` + (Object.keys(g.votes).length > 1 || g.label !== Object.keys(g.votes)[0]
        ? ` (${Object.entries(g.votes).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ')})` : ''),
      g.confidence.toFixed(2), g.related.join(',') || '-']));
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('drive Chromium through a scenario behind the per-connection bottleneck, then tie every asset to its flow and its congestion-control verdict')
    .argument('<scenario>', 'scenario file, e.g. scenarios/youtube.ts or scenarios/lab/vod.ts')
    .addOption(opt.lab().default(undefined, "'default' for scenarios marked lab: true"))
    .addOption(opt.region('local'))
    .addOption(opt.scenarioProfiles())
    .addOption(opt.repeat(1, 'repeat the whole run n times; n > 1 adds a majority vote per asset type and host (<out>/*.vote.json)', 100))
    .addOption(opt.out('where run directories go', 'runs'))
    .option('--model <file>', 'classifier model (default models/ccbrowse-model.json)')
    .option('--keep-keys', 'keep the TLS key log in the run directory (secret material: off by default)')
    .option('--store <file>', 'results store to index the run in (default <out>/ccbrowse.sqlite)')
    .option('--dry-run', 'load and type-check the scenario, then stop')
    .option('--stop-when-stable', 'end each profile\'s activity once every flow that matters (TCP/QUIC, still carrying data, its address\'s largest) has a calibrated verdict naming the same CCA at 4 checkpoints in a row; the activity\'s own length is the ceiling, HTTP/3 flows hold it there (run.json keeps, per profile, the checkpoints and the trace length each verdict needed)')
    .addOption(opt.count('--concurrency <n>', 'profiles run at once, each with its own namespaces, browser and capture (default: one per core but one, so a 2-core host runs them one after another)', 1, 16))
    .addOption(opt.json())
    .action(async (file: string, opts: { lab?: string; region: string; profile?: string[]; repeat: number; out: string; model?: string; keepKeys?: boolean; store?: string; dryRun?: boolean; json?: boolean; concurrency?: number; stopWhenStable?: boolean }, cmd: Command) => {
      const { loadScenario, checkScenarioTypes, formatTypeIssues } = await import('../scenario/load.js');
      const scenario = await loadScenario(file);
      if (opts.dryRun) {
        const issues = await checkScenarioTypes([file]);
        if (issues.length) { console.error(formatTypeIssues(issues)); process.exitCode = ExitCode.badInput; return; }
        console.log(opts.json ? JSON.stringify({ ok: true, scenario: scenario.name, kind: scenario.kind }) : `${file}: ok (${scenario.kind}, ${scenario.profiles.join(', ')})`);
        return;
      }
      // Everything is checked before anything is created: profiles, root, the lab and its region.
      const { loadProfile } = await import('../shaper/profile.js');
      const profiles = await Promise.all((opts.profile ?? scenario.profiles).map((p) => loadProfile(p)));
      const stopRule = opts.stopWhenStable ? await stopRuleFrom({ stopWhenStable: true, model: opts.model }) : null;
      requireRoot('run');
      const mode = opts.lab !== undefined || scenario.lab ? 'lab' : 'internet';
      const lab = mode === 'lab' ? await requireRunningLab(opts.lab ?? 'default', opts.region) : undefined;
      const say = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(say.info);
      const signal = interruptSignal();
      const { runScenarioSession } = await import('../session/run.js');
      const upstream = lab ? (await import('../session/lab-upstream.js')).labUpstream(lab, opts.region) : (await import('../session/upstream.js')).internetUpstream();
      const { formatProgress } = await import('../session/progress.js');
      const { newRunId } = await import('../net/netns.js');
      const outcomes: RunOutcome[] = [];
      // Profiles that run at once share the live line, each with its own latest figures.
      const live = new Map<string, string>();
      // The N runs of --repeat share an id: run.json's repeat.group and their vote file's voteId.
      const voteId = opts.repeat > 1 ? newRunId() : undefined;
      for (let i = 1; i <= opts.repeat && !signal.aborted; i++) {
        outcomes.push(await runScenarioSession({
          scenario, scenarioFile: file, upstream, region: opts.region, loadedProfiles: profiles, outDir: opts.out,
          keepKeys: opts.keepKeys, modelPath: opts.model, repeat: voteId ? { index: i, of: opts.repeat, group: voteId } : undefined,
          progress: say.info, onProgress: (s) => { live.set(s.profile, formatProgress(s)); say.progress([...live.values()].join(' | ')); }, signal,
          concurrency: opts.concurrency, stopWhenStable: stopRule ?? undefined,
        }));
      }
      say.done();
      const storePath = opts.store ?? joinPath(opts.out, 'ccbrowse.sqlite');
      await indexRuns(storePath, outcomes.map((o) => o.dir), (m) => process.stderr.write(`${m}\n`));
      let vote: { path: string; vote: VoteFile } | undefined;
      if (voteId && outcomes.length > 0 && !signal.aborted) {
        const { writeRunVote } = await import('../session/repeat.js');
        vote = writeRunVote(opts.out, voteId, opts.repeat, outcomes);
        await indexVote(storePath, vote.path, (m) => process.stderr.write(`${m}\n`));
      }
      if (opts.json) console.log(JSON.stringify({ runs: outcomes, vote: vote?.vote ?? null, voteFile: vote?.path ?? null }, null, 2));
      else {
        for (const o of outcomes) {
          console.log(`\n${o.dir}  (${o.status}${o.incompleteReason ? `: ${o.incompleteReason}` : ''})`);
          if (o.summary.length === 0 && o.status === 'incomplete') continue;
          console.log(`bytes tied to flows: ${Object.entries(o.byteCoverage).map(([p, c]) => `${p} ${(c * 100).toFixed(1)}%`).join(', ')}`);
          console.log(table(o.summary));
          console.log('');
          console.log(typeTable(o.byAssetType));
        }
        if (vote) {
          console.log(`\nmajority vote over ${outcomes.length} run(s) x ${vote.vote.profiles.length} profile(s): ${vote.path}`);
          console.log(voteTable(vote.vote));
        }
        console.log(`\nindexed in ${storePath}; 'ccbrowse report --store ${storePath} --out report/' builds the report`);
      }
      process.exitCode = outcomes.every((o) => o.status === 'complete') ? ExitCode.ok : ExitCode.checkFailed;
    });

  program
    .command('analyze')
    .description('re-analyse a run directory with the current (or a given) model: rewrites flows.json, assets.json, verdicts.json')
    .argument('<run-dir>')
    .option('--model <file>', 'classifier model')
    .option('--store <file>', 'results store to update (default: ccbrowse.sqlite beside the run directory)')
    .addOption(opt.json())
    .action(async (dir: string, opts: { model?: string; store?: string; json?: boolean }) => {
      const run = readRunInfo(dir);
      const { loadScenario } = await import('../scenario/load.js');
      const { analyzeRunDir } = await import('../session/analyze-run.js');
      // The scenario's own asset-type rules, so re-analysis types assets as the run did.
      const rules = await loadScenario(run.scenario.file).then((s) => s.assetRules, () => {
        process.stderr.write(`warning: scenario ${run.scenario.file} not loadable: site asset rules not applied\n`);
        return [];
      });
      const r = await analyzeRunDir(dir, { modelPath: opts.model, rules, profiles: run.profiles.map((p) => p.name), runId: run.runId, lab: run.mode === 'lab' });
      await indexRuns(opts.store ?? joinPath(dir, '..', 'ccbrowse.sqlite'), [dir], (m) => process.stderr.write(`${m}\n`));
      console.log(opts.json ? JSON.stringify(r.summary, null, 2) : `${table(r.summary)}\n\n${typeTable(r.byAssetType)}`);
    });
}

/** run.json of a run directory, or a clear error (exit 2). */
function readRunInfo(dir: string): RunInfo {
  try {
    return JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunInfo;
  } catch (err) {
    throw new BadInputError(`${dir} is not a readable run directory (run.json: ${(err as Error).message})`, 'give a directory made by ccbrowse run');
  }
}
