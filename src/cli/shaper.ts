import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import { reapLeftovers, requireRoot } from './common.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';

export function registerShaper(program: Command): void {
  const shaper = program.command('shaper').description('the emulated per-connection bottleneck');
  shaper
    .command('check')
    .description('build a throw-away topology, push bulk TCP flows and UDP probes through a profile, and compare measured with configured (exit 0 only within tolerance)')
    .addOption(opt.profile('network profile to check (shapers/NAME.ts or a file)', 'nebby-50'))
    .addOption(opt.count('--flows <n>', 'concurrent bulk TCP flows in the isolation phase', 1, 64, 3))
    .addOption(opt.count('--seconds <s>', 'seconds per phase (alone, concurrent)', 4, 600, 12))
    .option('--pcap <file>', 'keep the capture taken at the capture point')
    .addOption(opt.json())
    .action(async (opts: { profile: string; flows: number; seconds: number; pcap?: string; json?: boolean }, cmd: Command) => {
      const { loadProfile } = await import('../shaper/profile.js');
      const profile = await loadProfile(opts.profile);
      requireRoot('shaper check');
      const say = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(say.info);
      const { formatCheckReport, runShaperCheck } = await import('../shaper/check.js');
      const report = await runShaperCheck({
        profile, flows: opts.flows, phaseSeconds: opts.seconds, pcapOut: opts.pcap, progress: say.info, signal: interruptSignal(),
      });
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatCheckReport(report));
      process.exitCode = report.ok ? ExitCode.ok : ExitCode.checkFailed;
    });
}
