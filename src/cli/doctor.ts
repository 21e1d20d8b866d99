import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { opt } from './options.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check what this machine can do (root, namespaces, HTB, netem, cls_bpf, NFQUEUE, struct_ops, tcpdump, Chromium) and how to fix what is missing')
    .option('--host-stalls', "also sample the host's own timer stalls for 2 s (what bounds the delay line's precision)")
    .addOption(opt.json())
    .action(async (opts: { json?: boolean; hostStalls?: boolean }) => {
      const { formatDoctor, runDoctor } = await import('../doctor/doctor.js');
      const report = await runDoctor({ hostStalls: opts.hostStalls });
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
      process.exitCode = report.ready ? ExitCode.ok : ExitCode.missingPrerequisite;
    });
}
