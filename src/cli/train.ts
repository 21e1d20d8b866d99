/**
 * Analysis commands: `lab train`, `lab bench` (under the lab command), `trace` and `classify`.
 * The lead wires registerAnalysis(program, labCommand) into main.ts / lab.ts.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { interruptSignal } from '../util/interrupt.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';
import { classifyFlow, loadModel } from '../classify/index.js';
import { traceFile, toCsv, toFlowsCsv, toJson } from '../trace/index.js';
import { BadInputError, ExitCode } from '../util/errors.js';
import { labTrain, collect, trainFromEntries } from '../train/train.js';
import { entriesFromRuns, loadDatasets, saveDataset, truncateEntry, type DatasetEntry } from '../train/dataset.js';
import { benchResult, classifyEntries, crossValidate, designFamilyOf, holdOneOutAll, holdOutVerdict, matrixTable } from '../train/bench.js';
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';
import { loadProfile, type Profile } from '../shaper/profile.js';
import { bottleneckModelOf } from '../shaper/shaper.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import { classifyCapture, describeConditions } from './classifyCapture.js';

const DEFAULT_MODEL = 'models/ccbrowse-model.json';
const say = (m: string) => process.stderr.write(`${m}\n`);
const BYTES_PER_PROBE = () => opt.count('--bytes <n>', 'bytes per probe (200 kbit/s: 750000 ~ 30 s)', 1000, 1_000_000_000, 750000);
const CONCURRENCY = () => opt.count('--concurrency <n>', 'probes at once', 1, 16, 3);
const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

export function registerAnalysis(program: Command, labCommand?: Command): void {
  const lab = labCommand ?? program.commands.find((c) => c.name() === 'lab') ?? program.command('lab');

  lab
    .command('train')
    .description('probe every lab controller under both nebby profiles, train the classifier, write the model')
    .addOption(opt.lab('train')).addOption(opt.regions(['near'])).addOption(opt.profiles(['nebby-50', 'nebby-100']))
    .addOption(opt.repeat(3, 'repetitions per controller, profile and region'))
    .addOption(BYTES_PER_PROBE()).addOption(CONCURRENCY())
    .option('--only <list>', 'only these origins (tcp-cubic,quinn-bbr,...)')
    .option('--dataset <file>', 'where the labelled series are kept (with --from-dataset: several, comma-separated)', 'build/train/dataset.json')
    .option('--model <file>', 'model file to write', DEFAULT_MODEL)
    .option('--from-dataset', 'retrain from the saved dataset without probing')
    .option('--from-runs <dir>', 'rebuild the dataset from existing probe run directories, then train')
    .option('--append', 'add the new probes to the saved dataset')
    .option('--tcp-only', 'train on TCP traces only')
    .option('--grid <dirs>', "train on conditions-grid datasets ('lab grid' output, comma-separated), with the confidence calibrated by leaving one condition out at a time")
    .addOption(new Option('--path <corrections>', "with --grid: path corrections before features (fullRtt,invisiblePipe or none; docs/classifier.md)").default('fullRtt,invisiblePipe'))
    .addOption(new Option('--calibration <kind>', 'with --grid: how confidence is calibrated').choices(['isotonic', 'logistic']).default('logistic'))
    .addOption(opt.amount('--min-answer <p>', 'with --grid: a verdict whose calibrated confidence stays below P is Unknown', 0, 1, 0.8))
    .addOption(opt.json())
    .action(async (o: { lab: string; region: string[]; profile: string[]; repeat: number; bytes: number; concurrency: number; only?: string; dataset: string; model: string; fromDataset?: boolean; fromRuns?: string; append?: boolean; tcpOnly?: boolean; grid?: string; path: string; calibration: 'isotonic' | 'logistic'; minAnswer: number; json?: boolean }, cmd: Command) => {
      const say = reporterFor(cmd);
      if (o.grid) {
        const { loadGridEntries, pipelineWithPath, SeriesCache, trainCalibrated } = await import('../train/conditions-bench.js');
        const entries = loadGridEntries(list(o.grid));
        say.info(`training on ${entries.length} traces from ${new Set(entries.map((e) => e.conditionId)).size} conditions; calibrating (${o.calibration}) by leaving one condition out at a time`);
        const pipeline = pipelineWithPath(o.path === 'none' ? '' : o.path);
        const { model, loco } = trainCalibrated(entries, new SeriesCache(), o.grid, { pipeline, calibration: o.calibration });
        if (model.calibration) model.calibration.minAnswer = o.minAnswer;
        const { saveModel } = await import('../classify/index.js');
        saveModel(model, o.model);
        const right = loco.filter((x) => x.predicted === x.truth).length;
        if (o.json) console.log(JSON.stringify({ model: o.model, traces: model.trainedOn.examples, classes: model.classes, heldOutConditionsRight: right, heldOut: loco.length }, null, 2));
        else console.log(`trained on ${model.trainedOn.examples} traces -> ${o.model} (classes: ${model.classes.join(', ')}); held-out conditions: ${right}/${loco.length} right before calibration`);
        return;
      }
      let running;
      if (o.fromRuns) {
        saveDataset(o.dataset, await entriesFromRuns(o.fromRuns));
        o.fromDataset = true;
      }
      if (!o.fromDataset) {
        requireRoot('lab train');
        running = requireRunningLab(o.lab);
        for (const r of o.region) requireRunningLab(o.lab, r);
        await reapLeftovers(say.info);
      }
      const { model, entries } = await labTrain(running, {
        regions: o.region, profiles: o.profile, runs: o.repeat, bytes: o.bytes, concurrency: o.concurrency,
        outDir: 'runs/train', only: o.only ? list(o.only) : undefined, progress: say.info, signal: interruptSignal(),
        datasetPath: o.dataset, modelPath: o.model, fromDataset: o.fromDataset, append: o.append, protocols: o.tcpOnly ? ['tcp'] : undefined,
      });
      if (o.json) {
        console.log(JSON.stringify({ model: o.model, traces: entries.length, classes: model.classes, trainedOn: model.trainedOn }, null, 2));
        return;
      }
      console.log(`trained on ${entries.length} traces -> ${o.model} (classes: ${model.classes.join(', ')})`);
      for (const [l, n] of Object.entries(model.trainedOn.examplesPerLabel)) console.log(`  ${l.padEnd(10)} ${n} traces, ${model.trainedOn.usableSegmentsPerLabel[l] ?? 0} usable segments`);
      if (model.trainedOn.skipped.length) console.log(`  skipped: ${model.trainedOn.skipped.length}`);
    });

  lab
    .command('grid')
    .description('measure every lab controller under every condition of a conditions grid (server-side path, bottleneck, host); one dataset per condition')
    .argument('<grid>', 'grid file (labs/grid.ts)')
    .option('--only <ids>', 'only these conditions, comma-separated')
    .addOption(opt.count('--repeat <n>', "measurements per controller and condition (default: the grid's)", 1, 1000))
    .addOption(opt.out('where the datasets go (default build/grid/<grid name>)', null))
    .addOption(opt.json())
    .action(async (file: string, o: { only?: string; repeat?: number; out?: string; json?: boolean }, cmd: Command) => {
      const { loadGrid } = await import('../train/grid.js');
      const { runGrid } = await import('../train/grid-run.js');
      const grid = await loadGrid(file); // bad input: exit 2 before anything starts
      requireRoot('lab grid');
      const report = reporterFor(cmd, { elapsed: true });
      await reapLeftovers(report.info);
      const written = await runGrid(grid, { outDir: o.out ?? join('build', 'grid', grid.name), only: o.only ? list(o.only) : undefined, runs: o.repeat,
        progress: report.info, signal: interruptSignal() });
      if (o.json) console.log(JSON.stringify({ grid: grid.name, written }, null, 2));
      else console.log(`grid ${grid.name}: ${written.length} condition(s) measured${written.length ? `: ${written.join(', ')}` : ''}`);
    });

  lab
    .command('bench')
    .description('classify fresh lab traces: confusion matrix, per-class and mean accuracy, Unknown rate, trace length')
    .addOption(opt.lab('train')).addOption(opt.regions(['near'])).addOption(opt.profiles(['nebby-50', 'nebby-100']))
    .addOption(opt.repeat(3, 'measurements per controller and region'))
    .addOption(BYTES_PER_PROBE()).addOption(CONCURRENCY())
    .option('--only <list>', 'only these origins')
    .option('--model <file>', 'model to test', DEFAULT_MODEL)
    .option('--dataset <file>', 'bench traces are kept here (never used for training)', 'build/bench/dataset.json')
    .option('--from-dataset', 're-classify the saved bench traces without probing')
    .option('--hold-out <label>', "retrain from the training dataset without this class, then bench that class ('all': every class in turn, on the training dataset's own measurements)")
    .option('--train-dataset <files>', 'training dataset(s), comma-separated, for --hold-out / --cross-validate', 'build/train/dataset.json')
    .option('--cross-validate', 'leave-one-measurement-out over the training dataset: each measurement is classified by a model trained without it')
    .addOption(opt.amount('--max-seconds <s>', 'with --cross-validate or --hold-out all: cut every trace to its first s seconds (shorter-trace study)', 1, 3600))
    .option('--cross-traffic <origin>', 'robustness: every probe competes with a download from this lab TCP origin (e.g. tcp-cubic) through a shared bottleneck queue')
    .addOption(opt.out('bench result JSON (src/results/labBench.ts schema)', 'build/bench/lab-bench.json'))
    .addOption(opt.json())
    .action(async (o: { lab: string; region: string[]; profile: string[]; repeat: number; bytes: number; concurrency: number; only?: string; model: string; dataset: string; fromDataset?: boolean; holdOut?: string; trainDataset: string; out: string; json?: boolean; crossValidate?: boolean; maxSeconds?: number; crossTraffic?: string }, cmd: Command) => {
      const say = reporterFor(cmd);
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
        const profiles = o.profile;
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
        const running = requireRunningLab(o.lab);
        for (const r of o.region) requireRunningLab(o.lab, r);
        await reapLeftovers(say.info);
        // Cross traffic started 3 s ahead and big enough to outlast any probe at the fastest
        // profile's full rate (the probe gives up after 180 s).
        const fastest = Math.max(...(await Promise.all(o.profile.map((p) => loadProfile(p)))).map((p) => p.rateKbit));
        const crossTraffic = o.crossTraffic ? { origin: o.crossTraffic, bytes: Math.ceil((fastest * 1000 / 8) * (180 + 3 + 30)), leadSeconds: 3 } : undefined;
        entries = await collect(running, { regions: o.region, profiles: o.profile, runs: o.repeat, bytes: o.bytes, concurrency: o.concurrency, outDir: 'runs/bench', only: o.only ? list(o.only) : undefined, crossTraffic, progress: say.info, signal: interruptSignal() });
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
      const profiles = o.profile;
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
    .addOption(opt.profile('the ccbrowse network profile the capture was taken behind: QUIC without keys then replays its bottleneck'))
    .option('--csv', 'print the BiF series as CSV')
    .addOption(opt.json())
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
    .addOption(opt.profile('the ccbrowse network profile the capture was taken behind (a probe run dir records it)'))
    .addOption(opt.json())
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
      // 0: every flow has a verdict; 1: some flow could not be read (no bytes-in-flight series).
      const unread = r.flows.filter((x) => !x.read);
      if (unread.length && !o.json) say(`${unread.length} of ${r.flows.length} flow(s) could not be read: ${unread.map((x) => x.flow).join(', ')}`);
      process.exitCode = unread.length ? ExitCode.checkFailed : ExitCode.ok;
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
