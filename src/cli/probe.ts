import type { Command } from 'commander';
import { ExitCode, MissingPrerequisiteError } from '../util/errors.js';
import { loadProfile } from '../shaper/profile.js';
import { readRunningLab } from '../lab/state.js';
import { probeOnce, resolveProbeTarget, type ProbeResult } from '../probe/probe.js';
import { reapLeftovers, requireRoot } from './common.js';

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('single-flow measurement from a lab origin through the bottleneck, without the browser (TCP via curl, HTTP/3 via Chromium)')
    .argument('<url>', 'https URL on a lab origin, e.g. https://cubic.tcp.lab.ccb.test/bytes/750000')
    .option('--profile <p...>', 'network profile(s)', ['nebby-50', 'nebby-100'])
    .option('--runs <n>', 'repetitions per profile', (v) => Number(v), 1)
    .option('--region <name>', 'lab region', 'local')
    .option('--out <dir>', 'where run directories go', 'runs/probe')
    .option('--lab <name>', 'which running lab', 'default')
    .option('--json', 'print results as JSON')
    .action(async (url: string, opts: { profile: string[]; runs: number; region: string; out: string; lab: string; json?: boolean }) => {
      requireRoot('probe');
      await reapLeftovers();
      const lab = readRunningLab(opts.lab);
      if (!lab) throw new MissingPrerequisiteError('the lab is not running', "start it with 'ccbrowse lab up'");
      const target = resolveProbeTarget(lab, url, opts.region);
      const profiles = await Promise.all(opts.profile.map((p) => loadProfile(p)));
      const results: ProbeResult[] = [];
      for (const profile of profiles) {
        for (let i = 0; i < opts.runs; i++) {
          const r = await probeOnce(lab, target, profile, { region: opts.region, outDir: opts.out,
            progress: opts.json ? undefined : (m) => process.stderr.write(`${m}\n`) });
          results.push(r);
          if (!opts.json) console.log(`${r.status.padEnd(10)} ${profile.name.padEnd(10)} ${r.bytes} bytes in ${r.seconds.toFixed(1)} s, ${r.capture.captured} packets, ${r.groundTruthLines} ground-truth samples -> ${r.dir}${r.error ? `  (${r.error})` : ''}`);
        }
      }
      if (opts.json) console.log(JSON.stringify(results, null, 2));
      process.exitCode = results.every((r) => r.status === 'complete') ? ExitCode.ok : ExitCode.checkFailed;
    });
}
