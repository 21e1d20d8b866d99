/**
 * Analysis commands: `lab train`, `lab bench` (under the lab command), `trace` and `classify`.
 * The lead wires registerAnalysis(program, labCommand) into main.ts / lab.ts.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { classifyFlow, loadModel } from '../classify/index.js';
import { readRunningLab } from '../lab/state.js';
import { traceFile, toCsv, toFlowsCsv, toJson } from '../trace/index.js';
import { BadInputError, ExitCode, MissingPrerequisiteError } from '../util/errors.js';
import { labTrain, collect, trainFromEntries } from '../train/train.js';
import { entriesFromRuns, loadDatasets, saveDataset, truncateEntry, type DatasetEntry } from '../train/dataset.js';
import { benchResult, classifyEntries, crossValidate, designFamilyOf, holdOneOutAll, holdOutVerdict, matrixTable } from '../train/bench.js';
import { reapLeftovers, requireRoot } from './common.js';
import { loadProfile, type Profile } from '../shaper/profile.js';
import { bottleneckModelOf } from '../shaper/shaper.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { classifyCapture, describeConditions } from './classifyCapture.js';

const DEFAULT_MODEL = 'models/ccbrowse-model.json';
const say = (m: string) => process.stderr.write(`${m}\n`);
const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

export function registerAnalysis(program: Command, labCommand?: Command): void {
  const lab = labCommand ?? program.commands.find((c) => c.name() === 'lab') ?? program.command('lab');

  lab
    .command('train')
    .description('probe every lab controller under both nebby profiles, train the classifier, write the model')
    .option('--lab <name>', 'running lab', 'train')
    .option('--regions <list>', 'lab regions, comma-separated', 'near')
    .option('--profiles <list>', 'network profiles', 'nebby-50,nebby-100')
    .option('--runs <n>', 'repetitions per controller, profile and region', Number, 3)
    .option('--bytes <n>', 'bytes per probe (200 kbit/s: 750000 ~ 30 s)', Number, 750000)
    .option('--concurrency <n>', 'probes at once', Number, 3)
    .option('--only <list>', 'only these origins (tcp-cubic,quinn-bbr,...)')
    .option('--dataset <file>', 'where the labelled series are kept (with --from-dataset: several, comma-separated)', 'build/train/dataset.json')
    .option('--model <file>', 'model file to write', DEFAULT_MODEL)
    .option('--from-dataset', 'retrain from the saved dataset without probing')
    .option('--from-runs <dir>', 'rebuild the dataset from existing probe run directories, then train')
    .option('--append', 'add the new probes to the saved dataset')
    .option('--tcp-only', 'train on TCP traces only')
    .option('--grid <dirs>', "train on conditions-grid datasets ('lab grid' output, comma-separated), with the confidence calibrated by leaving one condition out at a time")
    .action(async (o: { lab: string; regions: string; profiles: string; runs: number; bytes: number; concurrency: number; only?: string; dataset: string; model: string; fromDataset?: boolean; fromRuns?: string; append?: boolean; tcpOnly?: boolean; grid?: string }) => {
      if (o.grid) {
        const { loadGridEntries, SeriesCache, trainCalibrated } = await import('../train/conditions-bench.js');
        const entries = loadGridEntries(list(o.grid));
        say(`training on ${entries.length} traces from ${new Set(entries.map((e) => e.conditionId)).size} conditions; calibrating by leaving one condition out at a time`);
        const { model, loco } = trainCalibrated(entries, new SeriesCache(), o.grid);
        const { saveModel } = await import('../classify/index.js');
        saveModel(model, o.model);
        const right = loco.filter((x) => x.predicted === x.truth).length;
        console.log(`trained on ${model.trainedOn.examples} traces -> ${o.model} (classes: ${model.classes.join(', ')}); held-out conditions: ${right}/${loco.length} right before calibration`);
        return;
      }
      let running;
      if (o.fromRuns) {
        saveDataset(o.dataset, await entriesFromRuns(o.fromRuns));
        o.fromDataset = true;
      }
      if (!o.fromDataset) {
        requireRoot('lab train');
        await reapLeftovers();
        running = readRunningLab(o.lab);
        if (!running) throw new MissingPrerequisiteError(`lab ${o.lab} is not running`, 'start it: ccbrowse lab up --config labs/train.ts');
      }
      const { model, entries } = await labTrain(running, {
        regions: list(o.regions), profiles: list(o.profiles), runs: o.runs, bytes: o.bytes, concurrency: o.concurrency,
        outDir: 'runs/train', only: o.only ? list(o.only) : undefined, progress: say,
        datasetPath: o.dataset, modelPath: o.model, fromDataset: o.fromDataset, append: o.append, protocols: o.tcpOnly ? ['tcp'] : undefined,
      });
      console.log(`trained on ${entries.length} traces -> ${o.model} (classes: ${model.classes.join(', ')})`);
      for (const [l, n] of Object.entries(model.trainedOn.examplesPerLabel)) console.log(`  ${l.padEnd(10)} ${n} traces, ${model.trainedOn.usableSegmentsPerLabel[l] ?? 0} usable segments`);
      if (model.trainedOn.skipped.length) console.log(`  skipped: ${model.trainedOn.skipped.length}`);
    });

  lab
    .command('grid')
    .description('measure every lab controller under every condition of a conditions grid (server-side path, bottleneck, host); one dataset per condition')
    .argument('<grid>', 'grid file (labs/grid.ts)')
    .option('--only <ids>', 'only these conditions, comma-separated')
    .option('--runs <n>', 'measurements per controller and condition (default: the grid\'s)', Number)
    .option('--out <dir>', 'where the datasets go (default build/grid/<grid name>)')
    .action(async (file: string, o: { only?: string; runs?: number; out?: string }) => {
      requireRoot('lab grid');
      await reapLeftovers();
      const { loadGrid } = await import('../train/grid.js');
      const { runGrid } = await import('../train/grid-run.js');
      const grid = await loadGrid(file);
      const t0 = Date.now();
      const written = await runGrid(grid, { outDir: o.out ?? join('build', 'grid', grid.name), only: o.only ? list(o.only) : undefined, runs: o.runs,
        progress: (m) => say(`[${((Date.now() - t0) / 60000).toFixed(1)} min] ${m}`) });
      console.log(`grid ${grid.name}: ${written.length} condition(s) measured${written.length ? `: ${written.join(', ')}` : ''}`);
    });

  lab
    .command('bench')
    .description('classify fresh lab traces: confusion matrix, per-class and mean accuracy, Unknown rate, trace length')
    .option('--lab <name>', 'running lab', 'train')
    .option('--regions <list>', 'lab regions', 'near')
    .option('--profiles <list>', 'network profiles', 'nebby-50,nebby-100')
    .option('--runs <n>', 'measurements per controller and region', Number, 3)
    .option('--bytes <n>', 'bytes per probe', Number, 750000)
    .option('--concurrency <n>', 'probes at once', Number, 3)
    .option('--only <list>', 'only these origins')
    .option('--model <file>', 'model to test', DEFAULT_MODEL)
    .option('--dataset <file>', 'bench traces are kept here (never used for training)', 'build/bench/dataset.json')
    .option('--from-dataset', 're-classify the saved bench traces without probing')
    .option('--hold-out <label>', "retrain from the training dataset without this class, then bench that class ('all': every class in turn, on the training dataset's own measurements)")
    .option('--train-dataset <files>', 'training dataset(s), comma-separated, for --hold-out / --cross-validate', 'build/train/dataset.json')
    .option('--cross-validate', 'leave-one-measurement-out over the training dataset: each measurement is classified by a model trained without it')
    .option('--max-seconds <s>', 'with --cross-validate or --hold-out all: cut every trace to its first s seconds (shorter-trace study)', Number)
    .option('--cross-traffic <origin>', 'robustness: every probe competes with a download from this lab TCP origin (e.g. tcp-cubic) through a shared bottleneck queue')
    .option('--out <file>', 'bench result JSON (src/results/labBench.ts schema)', 'build/bench/lab-bench.json')
    .option('--json', 'print the result as JSON')
    .action(async (o: { lab: string; regions: string; profiles: string; runs: number; bytes: number; concurrency: number; only?: string; model: string; dataset: string; fromDataset?: boolean; holdOut?: string; trainDataset: string; out: string; json?: boolean; crossValidate?: boolean; maxSeconds?: number; crossTraffic?: string }) => {
      let entries: DatasetEntry[];
      const cut = (es: DatasetEntry[]): DatasetEntry[] => (o.maxSeconds ? es.map((e) => truncateEntry(e, o.maxSeconds as number)) : es);
      if (o.holdOut === 'all') {
        const all = cut(loadDatasets(o.trainDataset));
        const rows = holdOneOutAll(all, o.trainDataset);
        mkdirSync(dirname(o.out), { recursive: true });
        writeFileSync(o.out, JSON.stringify({ schemaVersion: 1, kind: 'hold-one-out', trainDataset: o.trainDataset, maxSeconds: o.maxSeconds ?? null, rows }, null, 2));
        if (o.json) console.log(JSON.stringify(rows, null, 2));
        else {
          console.log('| held out (design family) | measurements | Unknown | same family | confident wrong (as) | wrong by Nebby shape cluster |\n| --- | ---: | ---: | ---: | --- | ---: |');
          for (const r of rows) console.log(`| ${r.label} (${designFamilyOf(r.label) ?? '-'}) | ${r.unknown + r.sameFamily + r.wrong} | ${r.unknown} | ${r.sameFamily} | ${r.wrong}${r.wrong ? ` (${[...new Set(r.wrongAs)].join(', ')})` : ''} | ${r.wrongByShapeCluster} |`);
          const t = rows.reduce((a, r) => ({ n: a.n + r.unknown + r.sameFamily + r.wrong, w: a.w + r.wrong, s: a.s + r.wrongByShapeCluster }), { n: 0, w: 0, s: 0 });
          console.log(`\nconfident wrong: ${t.w} of ${t.n} held-out measurements (design families; ${t.s} by Nebby's shape clusters); written ${o.out}`);
        }
        return;
      }
      if (o.crossValidate) {
        const all = cut(loadDatasets(o.trainDataset));
        const { traces, measurements } = crossValidate(all);
        const profiles = list(o.profiles);
        const result = benchResult('lab-cross-validated', `leave-one-measurement-out over ${o.trainDataset} (${all.length} traces)`, measurements, profiles, 'one measurement = both profiles fused; each classified by a model trained without it');
        const perTrace = benchResult('lab-cross-validated-single-profile', 'leave-one-measurement-out', traces, profiles);
        mkdirSync(dirname(o.out), { recursive: true });
        writeFileSync(o.out, JSON.stringify(result, null, 2));
        writeFileSync(o.out.replace(/\.json$/, '-traces.json'), JSON.stringify({ perTrace, traces, measurements }, null, 2));
        if (o.json) console.log(JSON.stringify(result, null, 2));
        else console.log(`# cross-validated: ${measurements.length} measurements\n${matrixTable(result)}\n\n# per single-profile trace: ${traces.length}\n${matrixTable(perTrace)}\nwritten ${o.out}`);
        return;
      }
      if (o.fromDataset) entries = loadDatasets(o.dataset);
      else {
        requireRoot('lab bench');
        await reapLeftovers();
        const running = readRunningLab(o.lab);
        if (!running) throw new MissingPrerequisiteError(`lab ${o.lab} is not running`, 'start it: ccbrowse lab up --config labs/train.ts');
        // Cross traffic started 3 s ahead and big enough to outlast any probe at the fastest
        // profile's full rate (the probe gives up after 180 s).
        const fastest = Math.max(...(await Promise.all(list(o.profiles).map((p) => loadProfile(p)))).map((p) => p.rateKbit));
        const crossTraffic = o.crossTraffic ? { origin: o.crossTraffic, bytes: Math.ceil((fastest * 1000 / 8) * (180 + 3 + 30)), leadSeconds: 3 } : undefined;
        entries = await collect(running, { regions: list(o.regions), profiles: list(o.profiles), runs: o.runs, bytes: o.bytes, concurrency: o.concurrency, outDir: 'runs/bench', only: o.only ? list(o.only) : undefined, crossTraffic, progress: say });
        saveDataset(o.dataset, entries);
      }
      const train = o.trainDataset.split(',').every((p) => existsSync(p)) ? new Set(loadDatasets(o.trainDataset).map((e) => e.dir)) : new Set<string>();
      const overlap = entries.filter((e) => train.has(e.dir)).length;
      if (overlap) throw new BadInputError(`${overlap} bench traces are also training traces`, 'bench on fresh probes');
      let model = loadModel(o.model);
      let modelNote = `${o.model}: ${model.provenance}, ${model.note}`;
      if (o.holdOut) {
        model = trainFromEntries(loadDatasets(o.trainDataset), { exclude: [o.holdOut], source: o.trainDataset });
        modelNote = `retrained without ${o.holdOut}`;
        entries = entries.filter((e) => e.label === o.holdOut);
      }
      const { traces, measurements } = classifyEntries(entries, model);
      const name = o.holdOut ? `lab-hold-out-${o.holdOut}` : 'lab-bench';
      const profiles = list(o.profiles);
      const result = benchResult(name, modelNote, measurements, profiles, 'one measurement = both profiles fused');
      const perTrace = benchResult(`${name}-single-profile`, modelNote, traces, profiles, 'one verdict per single-profile trace');
      mkdirSync(dirname(o.out), { recursive: true });
      writeFileSync(o.out, JSON.stringify(result, null, 2));
      writeFileSync(o.out.replace(/\.json$/, '-traces.json'), JSON.stringify({ perTrace, traces, measurements }, null, 2));
      if (o.json) console.log(JSON.stringify(result, null, 2));
      else {
        console.log(`# ${name}: ${measurements.length} measurements (both profiles fused)\n${matrixTable(result)}\n`);
        console.log(`# per single-profile trace: ${traces.length} traces\n${matrixTable(perTrace)}`);
        if (o.holdOut) {
          const c = { unknown: 0, 'same-family': 0, wrong: 0 };
          for (const m of measurements) c[holdOutVerdict(m.truth, m.predicted)]++;
          console.log(`hold-out ${o.holdOut}: Unknown ${c.unknown}, same family ${c['same-family']}, wrong ${c.wrong} (of ${measurements.length})`);
        }
        console.log(`written ${o.out}`);
      }
    });

  program
    .command('trace')
    .description('flows and bytes in flight of a capture (TCP and QUIC)')
    .argument('<pcap>', 'pcap or pcapng file')
    .option('--keylog <file>', 'TLS key log for exact QUIC BiF')
    .option('--flow <id>', 'only this flow (tcp-0, quic-1, or a tuple)')
    .option('--client <ips>', 'client addresses, comma-separated (else inferred)')
    .option('--profile <name>', 'the ccbrowse network profile the capture was taken behind: QUIC without keys then replays its bottleneck')
    .option('--csv', 'print the BiF series as CSV')
    .option('--json', 'print flows and series as JSON')
    .action(async (pcap: string, o: { keylog?: string; flow?: string; client?: string; profile?: string; csv?: boolean; json?: boolean }) => {
      const r = await traceFile(pcap, { keylog: o.keylog, flowId: o.flow, clientIps: o.client ? list(o.client) : undefined, bottleneck: await bottleneckOption(o.profile) });
      if (o.json) console.log(toJson(r));
      else if (o.csv) process.stdout.write(toCsv(r));
      else {
        for (const w of r.warnings) say(`warning: ${w}`);
        process.stdout.write(toFlowsCsv(r));
      }
    });

  program
    .command('classify')
    .description('trace a capture (or a probe run directory) and classify every flow')
    .argument('<path>', 'pcap/pcapng file, or a run directory holding capture.pcap')
    .option('--model <file>', 'model file', DEFAULT_MODEL)
    .option('--keylog <file>', 'TLS key log for exact QUIC BiF')
    .option('--client <ips>', 'client addresses, comma-separated')
    .option('--profile <name>', 'the ccbrowse network profile the capture was taken behind (a probe run dir records it)')
    .option('--json', 'print as JSON')
    .action(async (path: string, o: { model: string; keylog?: string; client?: string; profile?: string; json?: boolean }) => {
      const r = await classifyCapture(path, {
        model: o.model, keylog: o.keylog, clientIps: o.client ? list(o.client) : undefined,
        // An explicit --profile must be replayable; else a probe directory's own record, else the heuristic.
        bottleneck: await bottleneckOption(o.profile), explicitProfile: o.profile !== undefined,
      });
      if (o.json) console.log(JSON.stringify({ file: r.file, keylog: r.keylog, model: o.model, flows: r.flows }, null, 2));
      else {
        console.log(`${'flow'.padEnd(8)} ${'proto'.padEnd(5)} ${'bytes'.padStart(9)} ${'dur s'.padStart(6)}  ${'verdict'.padEnd(20)} conf  reason`);
        for (const x of r.flows) {
          console.log(`${x.flow.padEnd(8)} ${x.protocol.padEnd(5)} ${String(x.bytes).padStart(9)} ${x.durationSeconds.toFixed(1).padStart(6)}  ${x.verdict.padEnd(20)} ${x.confidence.toFixed(2)}  ${x.reason}`);
          if (x.conditions) console.log(`         ${describeConditions(x.conditions, x.insideTrained)}`);
        }
      }
      process.exitCode = ExitCode.ok;
    });
}

/** `--profile NAME` as the bottleneck model for QUIC BiF without keys (an error if it cannot be replayed). */
async function bottleneckOption(name: string | undefined): Promise<BottleneckModel | undefined> {
  if (!name) return undefined;
  const profile = await loadProfile(name);
  const b = bottleneckModelOf(profile);
  if (!b) throw new BadInputError(`profile ${name} cannot be replayed for QUIC bytes in flight (shared queue or random loss); leave out --profile to use Nebby's heuristic`);
  return b;
}
