import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import type { ProbeResult } from '../probe/probe.js';
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';
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
    .addOption(opt.json())
    .action(async (url: string, opts: { profile: string[]; repeat: number; region: string; out: string; lab: string; json?: boolean; concurrency?: number }, cmd: Command) => {
      // Everything is checked before anything is created: profiles, root, the lab, the URL.
      const { loadProfile } = await import('../shaper/profile.js');
      const { probeOnce, resolveProbeTarget } = await import('../probe/probe.js');
      const profiles = await Promise.all(opts.profile.map((p) => loadProfile(p)));
      requireRoot('probe');
      const lab = await requireRunningLab(opts.lab, opts.region);
      const target = resolveProbeTarget(lab, url, opts.region);
      const say = reporterFor(cmd);
      await reapLeftovers(say.info);
      const signal = interruptSignal();
      const { inBatches, profilesAtOnce } = await import('../util/concurrency.js');
      const results: ProbeResult[] = [];
      // Each repetition probes its profiles at once when the host has the cores (separate
      // bottlenecks, captures and ground truth): a repetition takes its slowest profile's time.
      const atOnce = opts.concurrency ?? profilesAtOnce(profiles.length);
      for (let i = 0; i < opts.repeat && !signal.aborted; i++) {
        const round: ProbeResult[] = [];
        await inBatches(profiles.map((profile, k) => ({ profile, k })), atOnce, async ({ profile, k }) => {
          if (signal.aborted) return;
          const r = await probeOnce(lab, target, profile, { region: opts.region, outDir: opts.out, progress: say.info, signal });
          round[k] = r;
          if (!opts.json) console.log(`${r.status.padEnd(10)} ${profile.name.padEnd(10)} ${r.bytes} bytes in ${r.seconds.toFixed(1)} s, ${r.capture.captured} packets, ${r.groundTruthLines} ground-truth samples -> ${r.dir}${r.error ? `  (${r.error})` : ''}`);
        });
        results.push(...round.filter(Boolean));
      }
      if (opts.json) console.log(JSON.stringify(results, null, 2));
      process.exitCode = results.every((r) => r.status === 'complete') ? ExitCode.ok : ExitCode.checkFailed;
    });
}
