import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { formatDoctor, runDoctor } from '../doctor/doctor.js';
import { opt } from './options.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check what this machine can do (root, namespaces, HTB, netem, cls_bpf, NFQUEUE, struct_ops, tcpdump, Chromium) and how to fix what is missing')
    .addOption(opt.json())
    .action(async (opts: { json?: boolean }) => {
      const report = await runDoctor();
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
      process.exitCode = report.ready ? ExitCode.ok : ExitCode.missingPrerequisite;
    });
}
