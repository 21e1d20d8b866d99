import type { Command } from 'commander';
import { ExitCode } from '../util/errors.js';
import { labDown, labUp } from '../lab/control.js';
import { readRunningLab } from '../lab/state.js';
import { reapLeftovers, requireRoot } from './common.js';

export function registerLab(program: Command): void {
  const lab = program.command('lab').description('the local ground-truth lab: origins with known congestion control, serving sites for every activity kind');
  lab
    .command('up')
    .description('start the lab in the background (idempotent)')
    .option('--config <file>', 'lab configuration (default labs/default.ts)')
    .option('--json', 'print the lab state as JSON')
    .action(async (opts: { config?: string; json?: boolean }) => {
      requireRoot('lab up');
      await reapLeftovers();
      const t0 = Date.now();
      const state = await labUp({ config: opts.config, progress: opts.json ? undefined : (m) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${m}\n`) });
      if (opts.json) console.log(JSON.stringify(state, null, 2));
      else console.log(`lab ${state.name} (${state.labId}) is up: ${state.origins.length} origins in ${state.regions.length} region(s); 'ccbrowse lab status' for details`);
    });
  lab
    .command('down')
    .description('stop the lab and remove everything it created')
    .option('--name <name>', 'lab name', 'default')
    .action(async (opts: { name: string }) => {
      requireRoot('lab down');
      const stopped = await labDown(opts.name);
      console.log(stopped ? `lab ${opts.name} stopped` : `lab ${opts.name} is not running`);
    });
  lab
    .command('status')
    .description('show the running lab: regions, origins, controllers, addresses')
    .option('--name <name>', 'lab name', 'default')
    .option('--json', 'print as JSON')
    .action((opts: { name: string; json?: boolean }) => {
      const state = readRunningLab(opts.name);
      if (opts.json) console.log(JSON.stringify(state ?? { running: false }, null, 2));
      else if (!state) console.log(`lab ${opts.name} is not running ('ccbrowse lab up' starts it)`);
      else {
        console.log(`lab ${state.name} (${state.labId}), supervisor pid ${state.pid}, up since ${state.startedAt}`);
        for (const r of state.regions) console.log(`region ${r.name}: +${r.rttMs} ms RTT`);
        for (const o of state.origins) console.log(`  ${o.region.padEnd(8)} ${o.name.padEnd(16)} ${o.ip.padEnd(15)} ${o.serve.padEnd(3)} ${(o.stack ?? '').padEnd(7)} ${o.cca.padEnd(9)} ${o.hosts.join(', ')}`);
      }
      process.exitCode = state ? ExitCode.ok : ExitCode.checkFailed;
    });
}
