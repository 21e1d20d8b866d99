/**
 * Report benchmark: `npx tsx bench/report.ts [--sites 20000] [--regions 5] [--dates 1]
 *   [--asset-scale 0.35] [--points 128] [--store F] [--reuse] [--out DIR] [--keep] [--json]`
 *
 * 1. generates a seeded synthetic store (sites x regions x dates runs, realistic shapes),
 * 2. builds the multi-file report from it (timed, per phase),
 * 3. opens the Matrix and Landscape pages (and one site page) in the system Chromium from
 *    file:// and times them until drawn, plus the Matrix's search and region switch.
 * Prints the figures (and JSON with --json). Nothing leaves the machine.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { buildReport } from '../src/report/index.js';
import { openStore, storeSummary } from '../src/store/index.js';
import { DEFAULT_REGIONS, fillSyntheticStore } from '../src/store/synthetic/index.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const flag = (name: string): boolean => process.argv.includes(name);

const SITES = Number(arg('--sites', '20000'));
const REGIONS = Number(arg('--regions', '5'));
const DATES = Number(arg('--dates', '1'));
const ASSET_SCALE = Number(arg('--asset-scale', '0.35'));
const POINTS = Number(arg('--points', '128'));
const STORE = arg('--store', `/tmp/ccb-bench-report-${SITES}x${REGIONS}x${DATES}.db`);
const OUT = arg('--out', `/tmp/ccb-bench-report-out-${process.pid}`);
const CHROMIUM = '/usr/lib/chromium/chromium';
const REPEATS = 3;

const extraRegions = ['au', 'br', 'jp', 'za', 'ca'];
const regions = [...DEFAULT_REGIONS, ...extraRegions].slice(0, REGIONS);
const dates = Array.from({ length: DATES }, (_, i) => new Date(Date.UTC(2025, i * 2, 15)).toISOString().slice(0, 10));

function dirSize(p: string): number {
  const s = statSync(p);
  if (!s.isDirectory()) return s.size;
  return readdirSync(p).reduce((a, e) => a + dirSize(join(p, e)), 0);
}
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;
const ms = (x: number): string => `${Math.round(x)} ms`;
/** Load average over the run: on a shared machine wall-clock figures are inflated by it. */
const load = (): string => (os.loadavg()[0] ?? 0).toFixed(1);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function timeLoad(page: Page, url: string, ready: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector(ready);
  // ms from navigation start to "drawn", on the page's own clock
  return page.evaluate(() => new Promise<number>((res) => requestAnimationFrame(() => res(performance.now()))));
}

async function main(): Promise<void> {
  const figures: Record<string, unknown> = { cores: os.cpus().length, loadAtStart: load(), sites: SITES, regions: REGIONS, dates: DATES, assetScale: ASSET_SCALE, evidencePoints: POINTS };

  // 1. The store.
  if (!(flag('--reuse') && existsSync(STORE))) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(STORE + suffix, { force: true });
    const s = openStore(STORE);
    const t = performance.now();
    const total = SITES * REGIONS * DATES;
    fillSyntheticStore(s, { seed: 2025, sites: SITES, regions, dates, evidencePoints: POINTS, evidenceVariants: 64, assetScale: ASSET_SCALE }, 1000, (n) => {
      if (n % 10000 === 0) process.stderr.write(`  store: ${n}/${total} runs, ${Math.round((performance.now() - t) / 1000)} s\n`);
    });
    s.db.pragma('wal_checkpoint(TRUNCATE)');
    figures.storeGenerateMs = performance.now() - t;
    s.close();
  }
  const s = openStore(STORE, { readonly: true });
  const sum = storeSummary(s);
  s.close();
  figures.store = { runs: sum.runs, flows: sum.flows, assets: sum.assets, bytes: statSync(STORE).size };

  // 2. The report.
  rmSync(OUT, { recursive: true, force: true });
  const cpu0 = process.cpuUsage();
  const { stats } = await buildReport({ store: STORE, out: OUT, onProgress: (phase, done, total) => done % 5000 === 0 && process.stderr.write(`  report: ${phase} ${done}/${total}\n`) });
  const cpu = process.cpuUsage(cpu0);
  figures.build = { ...stats.ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: dirSize(OUT), sitesDirBytes: dirSize(join(OUT, 'sites')), dataDirBytes: dirSize(join(OUT, 'data')), matrixHtmlBytes: statSync(join(OUT, 'matrix.html')).size, warnings: stats.warnings };

  // 3. Chromium.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const url = (f: string): string => pathToFileURL(join(OUT, f)).href;
  const matrixLoads: number[] = [];
  const landscapeLoads: number[] = [];
  const siteLoads: number[] = [];
  const searches: number[] = [];
  const regionSwitches: number[] = [];
  const someSite = readdirSync(join(OUT, 'sites'))[Math.floor(SITES / 2)];
  for (let i = 0; i < REPEATS; i++) {
    matrixLoads.push(await timeLoad(page, url('matrix.html'), '.mx-body .mx-row'));
    // search: type and wait until the count line shows the filtered result
    const before = await page.locator('#mx-count').textContent();
    let t = performance.now();
    await page.fill('#mx-search', 'vod-0012');
    await page.waitForFunction((b) => document.getElementById('mx-count')?.textContent !== b, before);
    searches.push(performance.now() - t - 120); // minus the input debounce
    t = performance.now();
    const c2 = await page.locator('#mx-count').textContent();
    await page.fill('#mx-search', '');
    await page.selectOption('#mx-region', '2');
    await page.waitForFunction((b) => document.getElementById('mx-count')?.textContent !== b && /measured in/.test(document.getElementById('mx-count')?.textContent ?? ''), c2);
    regionSwitches.push(performance.now() - t);
    landscapeLoads.push(await timeLoad(page, url('index.html'), 'svg.stacked'));
    siteLoads.push(await timeLoad(page, url(`sites/${someSite}`), 'svg.waterfall'));
  }
  const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
  await browser.close();
  figures.chromium = {
    matrixLoadMs: median(matrixLoads),
    landscapeLoadMs: median(landscapeLoads),
    sitePageLoadMs: median(siteLoads),
    matrixSearchMs: median(searches),
    matrixRegionSwitchMs: median(regionSwitches),
    heapBytesAfter: heap,
    errors,
    samples: { matrixLoads, landscapeLoads, siteLoads, searches, regionSwitches },
  };
  if (!flag('--keep')) rmSync(OUT, { recursive: true, force: true });
  figures.loadAtEnd = load();

  if (flag('--json')) {
    console.log(JSON.stringify(figures, null, 2));
    return;
  }
  const b = figures.build as Record<string, number>;
  const c = figures.chromium as Record<string, number>;
  const st = figures.store as Record<string, number>;
  console.log(`machine: ${figures.cores as number} cores, 1-min load average ${figures.loadAtStart as string} at start, ${figures.loadAtEnd as string} at end`);
  console.log(`store: ${SITES} sites x ${REGIONS} regions x ${DATES} date(s) = ${st.runs} runs, ${st.flows} flows, ${st.assets} assets, ${mb(st.bytes)}` +
    (figures.storeGenerateMs !== undefined ? `, generated in ${ms(figures.storeGenerateMs as number)}` : ' (reused)'));
  console.log(`build: ${ms(b.total)} total, ${ms(b.cpuMs)} CPU (queries ${ms(b.query)}, bundle ${ms(b.bundle)}, main pages ${ms(b.pages)}, ${SITES} site pages ${ms(b.sitePages)}, downloads ${ms(b.downloads)})`);
  console.log(`       output ${mb(b.bytes)} (sites ${mb(b.sitesDirBytes)}, data ${mb(b.dataDirBytes)}, matrix.html ${mb(b.matrixHtmlBytes)})`);
  console.log(`chromium (median of ${REPEATS}, navigation start to drawn): matrix ${ms(c.matrixLoadMs)}, landscape ${ms(c.landscapeLoadMs)}, a site page ${ms(c.sitePageLoadMs)}`);
  console.log(`          matrix search ${ms(c.matrixSearchMs)} (after the 120 ms debounce), region switch ${ms(c.matrixRegionSwitchMs)}, JS heap ${mb(c.heapBytesAfter)}`);
  if ((figures.chromium as { errors: string[] }).errors.length) console.log(`page errors: ${(figures.chromium as { errors: string[] }).errors.join('; ')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
