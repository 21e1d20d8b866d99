import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import type { ProbeResult } from '../probe/probe.js';
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { stopRuleFrom } from './stop-rule.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('single-flow measurement from a lab origin through the bottleneck, without the browser (TCP via curl, HTTP/3 via Chromium)')
    .argument('<url>', 'https URL on a lab origin, e.g. https://cubic.tcp.lab.ccb.test/bytes/750000')
    .addOption(opt.profiles(['nebby-50', 'nebby-100']))
    .addOption(opt.repeat(1, 'repetitions per profile'))
    .addOption(opt.region('local', 'lab region'))
    .addOption(opt.out('where run directories go', 'runs/probe'))
    .addOption(opt.lab())
    .addOption(opt.count('--concurrency <n>', 'profiles probed at once, each through its own bottleneck and capture (default: one per core but one, so a 2-core host runs them one after another)', 1, 16))
    .option('--stop-when-stable', 'end each transfer once the flow\'s calibrated verdict named the same CCA at 4 checkpoints in a row (TCP and HTTP/3 origins; probe.json keeps the checkpoints and the trace length the verdict needed)')
    .addOption(opt.amount('--min-seconds <s>', 'with --stop-when-stable: the first checkpoint, in seconds of trace (default 14; the earliest stop is 6 s later)', 2, 600))
    .addOption(opt.amount('--max-seconds <s>', 'with --stop-when-stable: stop at this much trace whatever the verdict (default 30)', 2, 600))
    .option('--model <file>', 'with --stop-when-stable: classifier model (default models/ccbrowse-model.json)')
    .addOption(opt.json())
    .action(async (url: string, opts: { profile: string[]; repeat: number; region: string; out: string; lab: string; json?: boolean; concurrency?: number; stopWhenStable?: boolean; minSeconds?: number; maxSeconds?: number; model?: string }, cmd: Command) => {
      // Everything is checked before anything is created: profiles, root, the lab, the URL.
      const { loadProfile } = await import('../shaper/profile.js');
      const { probeOnce, resolveProbeTarget } = await import('../probe/probe.js');
      const profiles = await Promise.all(opts.profile.map((p) => loadProfile(p)));
      const stopRule = await stopRuleFrom(opts);
      requireRoot('probe');
      const lab = await requireRunningLab(opts.lab, opts.region);
      const target = resolveProbeTarget(lab, url, opts.region);
      const say = reporterFor(cmd);
      await reapLeftovers(say.info);
      const signal = interruptSignal();
      const { inBatches, profilesAtOnce } = await import('../util/concurrency.js');
      const probeWatch = stopRule ? (await import('../train/stop-when-stable.js')).probeWatch : null;
      const results: ProbeResult[] = [];
      // Repetitions measure through the paths the first ones built (probe/paths.ts); removed at the end.
      const paths = new (await import('../probe/paths.js')).KeptProbePaths();
      // Each repetition probes its profiles at once when the host has the cores (separate
      // bottlenecks, captures and ground truth): a repetition takes its slowest profile's time.
      const atOnce = opts.concurrency ?? profilesAtOnce(profiles.length);
      try {
        for (let i = 0; i < opts.repeat && !signal.aborted; i++) {
          const round: ProbeResult[] = [];
          await inBatches(profiles.map((profile, k) => ({ profile, k })), atOnce, async ({ profile, k }) => {
            if (signal.aborted) return;
            const watch = stopRule && probeWatch ? probeWatch(stopRule, target, profile) : undefined;
            const r = await probeOnce(lab, target, profile, { region: opts.region, outDir: opts.out, progress: say.info, signal, watch, paths });
            round[k] = r;
            const stopped = r.earlyStop ? `; verdict ${r.earlyStop.label} (${r.earlyStop.confidence.toFixed(2)}) ${r.earlyStop.why}${r.earlyStop.neededSeconds !== null ? ` after ${r.earlyStop.neededSeconds.toFixed(1)} s of trace` : ''}` : '';
            if (!opts.json) console.log(`${r.status.padEnd(10)} ${profile.name.padEnd(10)} ${r.bytes} bytes in ${r.seconds.toFixed(1)} s, ${r.capture.captured} packets, ${r.groundTruthLines} ground-truth samples${stopped} -> ${r.dir}${r.error ? `  (${r.error})` : ''}`);
          });
          results.push(...round.filter(Boolean));
        }
      } finally {
        await paths.close(say.info);
      }
      if (opts.json) console.log(JSON.stringify(results, null, 2));
      process.exitCode = results.every((r) => r.status === 'complete') ? ExitCode.ok : ExitCode.checkFailed;
    });
}
