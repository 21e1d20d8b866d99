import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { interruptSignal } from '../util/interrupt.js';
import { reapLeftovers, requireRoot } from './common.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';

export function registerLab(program: Command): void {
  const lab = program.command('lab').description('the local ground-truth lab: origins with known congestion control, serving sites for every activity kind');
  lab
    .command('up')
    .description('start the lab in the background (idempotent); Ctrl-C while it starts removes what it started')
    .option('--config <file>', 'lab configuration (default labs/default.ts); its name is what --lab selects elsewhere')
    .addOption(opt.json())
    .action(async (opts: { config?: string; json?: boolean }, cmd: Command) => {
      const { loadLabConfig } = await import('../lab/config.js');
      if (opts.config) await loadLabConfig(opts.config); // bad input: exit 2 before anything starts
      requireRoot('lab up');
      const say = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(say.info);
      const { labUp } = await import('../lab/control.js');
      const state = await labUp({ config: opts.config, progress: say.info, signal: interruptSignal() });
      if (opts.json) console.log(JSON.stringify(state, null, 2));
      else console.log(`lab ${state.name} (${state.labId}) is up: ${state.origins.length} origins in ${state.regions.length} region(s); 'ccbrowse lab status --lab ${state.name}' for details`);
    });
  lab
    .command('down')
    .description('stop the lab (running or still starting) and remove everything it created')
    .addOption(opt.lab())
    .addOption(opt.json())
    .action(async (opts: { lab: string; json?: boolean }) => {
      requireRoot('lab down');
      const { labDown } = await import('../lab/control.js');
      const stopped = await labDown(opts.lab);
      if (opts.json) console.log(JSON.stringify({ lab: opts.lab, stopped }));
      else console.log(stopped ? `lab ${opts.lab} stopped` : `lab ${opts.lab} is not running`);
    });
  lab
    .command('status')
    .description('show the running lab: regions, origins, controllers, addresses (exit 1 when it is not running)')
    .addOption(opt.lab())
    .addOption(opt.json())
    .action(async (opts: { lab: string; json?: boolean }) => {
      const { readRunningLab } = await import('../lab/state.js');
      const state = readRunningLab(opts.lab);
      if (opts.json) console.log(JSON.stringify(state ?? { running: false }, null, 2));
      else if (!state) console.log(`lab ${opts.lab} is not running ('ccbrowse lab up' starts it)`);
      else {
        console.log(`lab ${state.name} (${state.labId}), supervisor pid ${state.pid}, up since ${state.startedAt}`);
        for (const r of state.regions) console.log(`region ${r.name}: +${r.rttMs} ms RTT`);
        for (const o of state.origins) console.log(`  ${o.region.padEnd(8)} ${o.name.padEnd(16)} ${o.ip.padEnd(15)} ${o.serve.padEnd(3)} ${(o.stack ?? '').padEnd(7)} ${o.cca.padEnd(9)} ${o.hosts.join(', ')}`);
      }
      process.exitCode = state ? ExitCode.ok : ExitCode.checkFailed;
    });
}
