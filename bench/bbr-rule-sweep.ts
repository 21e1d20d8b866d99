/**
 * What the BBR rule (src/classify/classifiers/bbr.ts) decides on every trace of the given
 * datasets, by true label, and each trace where it claims 'BBR (other version)' or finds pulses
 * in a flow that is not BBR. A rule change is judged on these counts (docs/benchmarks/classifier.md).
 *   npx tsx bench/bbr-rule-sweep.ts build/grid/*\/*.json [more datasets...]
 */
import { loadDataset, toSeries } from '../src/train/dataset.js';
import { loadModel } from '../src/classify/model.js';
import { extractFlowFeatures } from '../src/classify/features.js';
import { bbrClassifier, BBR_OTHER, type BbrParams } from '../src/classify/classifiers/bbr.js';

const model = loadModel('models/ccbrowse-model.json');
const params = (model.classifiers.bbr as BbrParams | undefined) ?? bbrClassifier.defaultParams();
const byLabel = new Map<string, Map<string, number>>();
const notable: string[] = [];
for (const file of process.argv.slice(2)) {
  let entries;
  try { entries = loadDataset(file).entries; } catch { continue; } // not a dataset (a bench report)
  for (const e of entries) {
    const f = extractFlowFeatures({ ...toSeries(e), transport: e.protocol }, model.pipeline);
    const x = bbrClassifier.explain(f, params) as { decision: string | null; pulsesFound: boolean; probeBwPeriodRtts: number | null; dips: unknown[]; note: string };
    const decision = x.decision ?? 'no claim';
    const row = byLabel.get(e.label) ?? new Map<string, number>();
    row.set(decision, (row.get(decision) ?? 0) + 1);
    byLabel.set(e.label, row);
    if (decision === BBR_OTHER || (x.pulsesFound && !/BBR/.test(e.label))) {
      notable.push(`| ${e.label} | ${file} | ${e.profile} | ${decision} | ${x.probeBwPeriodRtts ?? '-'} | ${x.dips.length} | ${x.note} |`);
    }
  }
}
console.log('| true label | the bbr rule decided |\n| --- | --- |');
for (const [label, row] of byLabel) console.log(`| ${label} | ${[...row].map(([d, n]) => `${d} ${n}`).join(', ')} |`);
console.log('\n| true label | dataset | profile | decision | pulse period (RTTs) | dips | note |\n| --- | --- | --- | --- | --- | --- | --- |');
console.log(notable.join('\n'));
