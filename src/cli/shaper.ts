import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { ExitCode } from '../util/errors.js';
import { loadProfile } from '../shaper/profile.js';
import { formatCheckReport, runShaperCheck } from '../shaper/check.js';
import { reapLeftovers, requireRoot } from './common.js';

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected an integer from 1 to 64');
  return n;
};

export function registerShaper(program: Command): void {
  const shaper = program.command('shaper').description('the emulated per-connection bottleneck');
  shaper
    .command('check')
    .description('build a throw-away topology, push bulk TCP flows and UDP probes through a profile, and compare measured with configured (exit 0 only within tolerance)')
    .option('--profile <profile>', 'profile name (shapers/NAME.ts) or path to a profile file', 'nebby-50')
    .option('--flows <n>', 'concurrent bulk TCP flows in the isolation phase', positiveInt, 3)
    .option('--seconds <s>', 'seconds per phase (alone, concurrent)', (v) => Number(v), 12)
    .option('--pcap <file>', 'keep the capture taken at the capture point')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { profile: string; flows: number; seconds: number; pcap?: string; json?: boolean }) => {
      requireRoot('shaper check');
      await reapLeftovers();
      const profile = await loadProfile(opts.profile);
      const t0 = Date.now();
      const report = await runShaperCheck({
        profile, flows: opts.flows, phaseSeconds: opts.seconds, pcapOut: opts.pcap,
        progress: opts.json ? undefined : (m) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${m}\n`),
      });
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatCheckReport(report));
      process.exitCode = report.ok ? ExitCode.ok : ExitCode.checkFailed;
    });
}
