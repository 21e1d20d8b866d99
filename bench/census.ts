/**
 * Census accuracy of a probe crawl (issue 18):
 *   npx tsx bench/census.ts --crawl crawls/synthetic-internet.ts [--store runs/ccbrowse.sqlite | postgres://...]
 *       [--lab-config labs/synthetic-internet.ts] [--model models/ccbrowse-model.json] [--json build/bench/census.json]
 *   npx tsx bench/census.ts --write-sites     # regenerates crawls/sites/synthetic-internet*.txt from the lab
 *
 * The same score as `ccbrowse crawl score`, plus the crawl's rate and the load average, as JSON.
 * Reads the crawl's results from the store (SQLite by default, PostgreSQL too), classifies each
 * job's probes again with the model (train/census-verdicts.ts), and scores the site x region
 * matrix against what the lab configuration says (lab/census-truth.ts, train/census-score.ts):
 * cells right / cells, the Unknown and confident-wrong shares, per region and per controller,
 * beside the per-flow accuracy of the same model on the same flows. Also prints the crawl's
 * rate (site-measurements per hour: one site from one region through every profile).
 * Needs the run directories (on this host).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { loadModel } from '../src/classify/index.js';
import { loadCrawl } from '../src/crawl/define.js';
import { openCrawlBackend } from '../src/crawl/open.js';
import { expectedCensus, regionDependentHosts } from '../src/lab/census-truth.js';
import { loadLabConfig, parseLabConfig } from '../src/lab/config.js';
import { syntheticInternet, syntheticSiteList } from '../src/lab/synthetic-internet.js';
import { censusTable, scoreCensus } from '../src/train/census-score.js';
import { observeCrawl } from '../src/train/census-verdicts.js';
import { takeFlag } from '../src/util/script-args.js';

const ROOT = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);

if (args.includes('--write-sites')) {
  // The lab file's own call (labs/synthetic-internet.ts), so the lists match the lab.
  const cfg = parseLabConfig(syntheticInternet({ seed: 18, sites: 240, name: 'synth' }), 'synthetic internet');
  const all = syntheticSiteList(cfg);
  writeFileSync(join(ROOT, 'crawls/sites/synthetic-internet.txt'), ["# The synthetic internet's sites (labs/synthetic-internet.ts, seed 18): each site's large",
    '# object, one URL a line. Regenerate: npx tsx bench/census.ts --write-sites', ...all, ''].join('\n'));
  // The benchmark's sample: the first site (by name) of each hosting origin.
  const firsts = cfg.origins.filter((o) => o.name !== 'host-reno-h3').map((o) => [...o.hosts].sort()[0]).sort();
  writeFileSync(join(ROOT, 'crawls/sites/synthetic-internet-sample.txt'), ["# The synthetic internet's benchmark sample: the first site (by name) of each of its nine hosting",
    '# origins; from labs/synthetic-internet.ts (seed 18). Regenerate: npx tsx bench/census.ts --write-sites', ...firsts.map((h) => `https://${h}/bytes/750000`), ''].join('\n'));
  console.log(`wrote ${all.length} sites and a sample of ${firsts.length}`);
  process.exit(0);
}

const crawlFile = takeFlag(args, '--crawl') ?? join(ROOT, 'crawls/synthetic-internet.ts');
const labFile = takeFlag(args, '--lab-config') ?? join(ROOT, 'labs/synthetic-internet.ts');
const modelFile = takeFlag(args, '--model') ?? join(ROOT, 'models/ccbrowse-model.json');
const jsonOut = takeFlag(args, '--json') ?? join(ROOT, 'build/bench/census.json');
const store = takeFlag(args, '--store') ?? join(takeFlag(args, '--out') ?? 'runs', 'ccbrowse.sqlite');

const crawl = await loadCrawl(crawlFile);
const cfg = await loadLabConfig(labFile);
const model = loadModel(modelFile);
const minAnswer = model.calibration?.minAnswer ?? 0;
const backend = await openCrawlBackend(store);
const { results, progress } = await (async () => {
  try {
    const p = await backend.progress(crawl.definition.name);
    if (!p) { console.error(`no crawl ${crawl.definition.name} in ${backend.where}`); process.exit(2); }
    return { results: await backend.results(crawl.definition.name), progress: p };
  } finally {
    await backend.close();
  }
})();
const observed = await observeCrawl(results, model);
const expected = expectedCensus(cfg);
const hosts = [...new Set(crawl.targets.flatMap((t) => (t.url ? [new URL(t.url).hostname] : [])))];
const score = scoreCensus(expected, observed, { hosts, regions: crawl.definition.regions, minAnswer, regionDependentHosts: regionDependentHosts(expected) });

const disturbedFlows = observed.reduce((n, c) => n + (c.disturbedFlows ?? 0), 0);
const flows = observed.reduce((n, c) => n + c.flows.length, 0);
console.log([
  `crawl ${crawl.definition.name} on ${store}: ${progress.done} done, ${progress.failed} failed, ${progress.left + progress.running} left; ${progress.ratePerHour?.toFixed(1) ?? '-'} site-measurements/hour (one site from one region, every profile)`,
  `model ${modelFile} (minimum answer ${minAnswer}); lab ${cfg.name} (${labFile}); load average now ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  `flows through a bottleneck the host disturbed beyond the classifier's bounds (late delay-line releases; their verdicts are withheld): ${disturbedFlows} of ${flows}`,
  '',
  ...censusTable(score),
].join('\n'));
mkdirSync(dirname(jsonOut), { recursive: true });
writeFileSync(jsonOut, JSON.stringify({ createdAt: new Date().toISOString(), store, crawl: crawl.definition.name, progress, loadAverage: loadavg(), model: modelFile, disturbedFlows, flows, score }, null, 1));
