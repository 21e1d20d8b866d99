/**
 * The lab's analysis commands: `lab train`, `lab grid`, `lab bench` (under the lab command).
 * Each action imports what it uses when it runs (`--help` loads none of it).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { interruptSignal } from '../util/interrupt.js';
import { opt } from './options.js';
import { reporterFor } from './output.js';
import { BadInputError } from '../util/errors.js';
import type { DatasetEntry } from '../train/dataset.js';
import type { ProbeTarget } from '../probe/probe.js';
import type { Profile } from '../shaper/profile.js';
import { reapLeftovers, requireRoot, requireRunningLab } from './common.js';

const DEFAULT_MODEL = 'models/ccbrowse-model.json';
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
      const { labTrain } = await import('../train/train.js');
      const { entriesFromRuns, saveDataset } = await import('../train/dataset.js');
      let running;
      if (o.fromRuns) {
        saveDataset(o.dataset, await entriesFromRuns(o.fromRuns));
        o.fromDataset = true;
      }
      if (!o.fromDataset) {
        requireRoot('lab train');
        running = await requireRunningLab(o.lab);
        for (const r of o.region) await requireRunningLab(o.lab, r);
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
    .option('--stop-when-stable', "end each probe's transfer (TCP or HTTP/3) once its calibrated verdict (by --model) named the same CCA at 4 checkpoints in a row, as `ccbrowse probe --stop-when-stable` does: the bench then measures accuracy at the trace length the rule needed")
    .addOption(opt.out('bench result JSON (src/results/labBench.ts schema)', 'build/bench/lab-bench.json'))
    .addOption(opt.json())
    .action(async (o: { lab: string; region: string[]; profile: string[]; repeat: number; bytes: number; concurrency: number; only?: string; model: string; dataset: string; fromDataset?: boolean; holdOut?: string; trainDataset: string; out: string; json?: boolean; crossValidate?: boolean; maxSeconds?: number; crossTraffic?: string; stopWhenStable?: boolean }, cmd: Command) => {
      const say = reporterFor(cmd);
      if (o.stopWhenStable && (o.fromDataset || o.crossValidate || o.holdOut)) throw new BadInputError('--stop-when-stable goes with fresh probes, not --from-dataset, --cross-validate or --hold-out');
      const { loadDatasets, saveDataset, truncateEntry } = await import('../train/dataset.js');
      const { benchResult, classifyEntries, crossValidate, designFamilyOf, holdOneOutAll, holdOutVerdict, matrixTable, openSetRows, openSetTable } = await import('../train/bench.js');
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
        const running = await requireRunningLab(o.lab);
        for (const r of o.region) await requireRunningLab(o.lab, r);
        await reapLeftovers(say.info);
        // Cross traffic started 3 s ahead and big enough to outlast any probe at the fastest
        // profile's full rate (the probe gives up after 180 s).
        const { loadProfile } = await import('../shaper/profile.js');
        const { collect } = await import('../train/train.js');
        const fastest = Math.max(...(await Promise.all(o.profile.map((p) => loadProfile(p)))).map((p) => p.rateKbit));
        const crossTraffic = o.crossTraffic ? { origin: o.crossTraffic, bytes: Math.ceil((fastest * 1000 / 8) * (180 + 3 + 30)), leadSeconds: 3 } : undefined;
        const { stopRuleFrom } = await import('./stop-rule.js');
        const stopRule = await stopRuleFrom({ stopWhenStable: o.stopWhenStable, model: o.stopWhenStable ? o.model : undefined });
        const probeWatch = stopRule ? (await import('../train/stop-when-stable.js')).probeWatch : null;
        const watchFor = stopRule && probeWatch ? (t: ProbeTarget, p: Profile) => probeWatch(stopRule, t, p) : undefined;
        entries = await collect(running, { regions: o.region, profiles: o.profile, runs: o.repeat, bytes: o.bytes, concurrency: o.concurrency, outDir: 'runs/bench', only: o.only ? list(o.only) : undefined, crossTraffic, progress: say.info, signal: interruptSignal(), watchFor });
        saveDataset(o.dataset, entries);
      }
      const train = o.trainDataset.split(',').every((p) => existsSync(p)) ? new Set(loadDatasets(o.trainDataset).map((e) => e.dir)) : new Set<string>();
      const overlap = entries.filter((e) => train.has(e.dir)).length;
      if (overlap) throw new BadInputError(`${overlap} bench traces are also training traces`, 'bench on fresh probes');
      const { loadModel } = await import('../classify/index.js');
      let model = loadModel(o.model);
      let modelNote = `${o.model}: ${model.provenance}, ${model.note}`;
      if (o.holdOut) {
        const { trainFromEntries } = await import('../train/train.js');
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
      const strangers = o.holdOut ? [] : openSetRows(measurements, model.classes);
      writeFileSync(o.out.replace(/\.json$/, '-traces.json'), JSON.stringify({ perTrace, traces, measurements, ...(strangers.length ? { openSet: strangers } : {}) }, null, 2));
      if (o.json) console.log(JSON.stringify(result, null, 2));
      else {
        console.log(`# ${name}: ${measurements.length} measurements (both profiles fused)\n${matrixTable(result)}\n`);
        console.log(`# per single-profile trace: ${traces.length} traces\n${matrixTable(perTrace)}`);
        if (strangers.length) console.log(`\n# open set (controllers no class is trained on; both profiles fused)\n${openSetTable(strangers)}`);
        if (o.holdOut) {
          const c = { unknown: 0, 'same-family': 0, wrong: 0 };
          for (const m of measurements) c[holdOutVerdict(m.truth, m.predicted)]++;
          console.log(`hold-out ${o.holdOut}: Unknown ${c.unknown}, same family ${c['same-family']}, wrong ${c.wrong} (of ${measurements.length})`);
        }
        console.log(`written ${o.out}`);
      }
    });
}
