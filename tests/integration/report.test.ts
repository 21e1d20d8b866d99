/**
 * The report in real headless Chromium (system build, never downloaded): every page renders
 * without console errors, key elements are there and react, the site works from file:// under
 * a nested sub-path and as one file, empty stores get empty states, and a store full of
 * script-injection payloads executes nothing. Screenshots go to build/report-screens/.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/index.js';
import { siteSlug } from '../../src/report/slug.js';
import { changes, ingestLabBench, matrix, openStore, siteRuns, type Store } from '../../src/store/index.js';
import { fillSyntheticStore, writeSyntheticRunDirs } from '../../src/store/synthetic/index.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SCREENS = resolve('build/report-screens');
const LAB_FIXTURE = resolve('tests/fixtures/results/lab-bench.json');
const PAGES = ['index.html', 'matrix.html', 'changes.html', 'lab.html', 'downloads.html'];

let browser: Browser;
let work: string;

function fresh(name: string): string {
  const d = join(work, name);
  mkdirSync(d, { recursive: true });
  return d;
}

interface Visit {
  page: Page;
  errors: string[];
  foreign: string[];
  dialogs: string[];
}

/** Opens a URL in a new page, recording console errors, page errors, dialogs and any non-file request. */
async function visit(url: string, viewport = { width: 1280, height: 900 }): Promise<Visit> {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const v: Visit = { page, errors: [], foreign: [], dialogs: [] };
  page.on('console', (m) => m.type() === 'error' && v.errors.push(m.text()));
  page.on('pageerror', (e) => v.errors.push(e.message));
  page.on('request', (r) => !r.url().startsWith('file://') && !r.url().startsWith('blob:') && v.foreign.push(r.url()));
  page.on('dialog', (d) => {
    v.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url);
  await page.waitForSelector('#app .frame');
  return v;
}

async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SCREENS, `${name}.png`), fullPage });
}

/** Scrolls every flow card into view so its lazily drawn chart exists. */
async function drawAllFlows(page: Page): Promise<void> {
  for (const el of await page.$$('article.flow')) {
    await el.scrollIntoViewIfNeeded();
  }
  await page.waitForTimeout(100);
}

function clean(v: Visit): void {
  expect(v.errors, 'console errors').toEqual([]);
  expect(v.foreign, 'requests leaving the page').toEqual([]);
  expect(v.dialogs, 'dialogs').toEqual([]);
}

const describeIf = existsSync(CHROMIUM) ? describe : describe.skip;

beforeAll(async () => {
  work = join(tmpdir(), `ccb-report-${process.pid}`);
  mkdirSync(SCREENS, { recursive: true });
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
});

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

describeIf('report in Chromium', () => {
  let store: Store;
  let storePath: string;
  let out: string;

  beforeAll(async () => {
    storePath = join(fresh('store'), 'results.db');
    store = openStore(storePath);
    fillSyntheticStore(store, { seed: 42, sites: 60, regions: ['eu', 'sg', 'us-east'], dates: ['2025-01-15', '2025-04-15'], evidencePoints: 200 });
    ingestLabBench(store, LAB_FIXTURE);
    store.close();
    store = openStore(storePath, { readonly: true });
    // A nested sub-path: everything must be relative.
    out = join(fresh('site'), 'some', 'sub', 'path', 'report');
  });

  afterAll(() => {
    store?.close();
  });

  it('builds every page and one page per site, with downloads', async () => {
    const { files, stats } = await buildReport({ store: storePath, out, title: 'Synthetic crawl', now: new Date('2025-05-01T00:00:00Z') });
    for (const p of PAGES) expect(existsSync(join(out, p))).toBe(true);
    expect(readdirSync(join(out, 'sites'))).toHaveLength(60);
    expect(stats).toMatchObject({ sites: 60, runs: 60 * 3 * 2, pages: 65 });
    expect(files).toContain(join(out, 'data', 'assets.csv'));
    expect(readFileSync(join(out, 'data', 'matrix.csv'), 'utf8').split('\r\n')[0]).toBe('site,region,asset_type,label,kind,confidence,share,flows,bytes,date,differs_across_regions');
  });

  it('Landscape: bars and tables by region and asset type, unit and region switches', async () => {
    const v = await visit(pathToFileURL(join(out, 'index.html')).href);
    const { page } = v;
    expect(await page.locator('svg.stacked').count()).toBe(2);
    expect(await page.locator('table.counts').count()).toBe(2);
    expect(await page.locator('#by-region svg .bar-row').count()).toBe(4); // 3 regions + all
    expect(await page.locator('.legend li').first().textContent()).toBe('CUBIC');
    await shot(page, 'landscape');
    await page.selectOption('#unit-select', 'flows');
    expect(await page.locator('#by-region caption').textContent()).toMatch(/Judged flows/);
    await page.selectOption('#type-region', 'sg');
    expect(await page.locator('#by-asset-type caption').textContent()).toMatch(/\(sg\)/);
    // tooltips carry counts
    await page.locator('#by-region .seg').first().hover();
    expect(await page.locator('.tooltip.visible').textContent()).toMatch(/flows \(\d/);
    clean(v);
    await page.close();
  });

  it('Matrix: filters, region selector, differs highlight, sorting and links', async () => {
    const m = matrix(store);
    const differing = m.rows.filter((r) => r.differs.length > 0).length;
    expect(differing).toBeGreaterThan(0);
    const v = await visit(pathToFileURL(join(out, 'matrix.html')).href);
    const { page } = v;
    await expect.poll(() => page.locator('#mx-count').textContent()).toBe('Showing 60 of 60 sites.');
    expect(await page.locator('.mx-head [role=columnheader]').count()).toBe(1 + m.assetTypes.length);
    await shot(page, 'matrix-all-regions', false);
    await page.check('#mx-differs');
    await expect.poll(() => page.locator('#mx-count').textContent()).toBe(`Showing ${differing} of 60 sites.`);
    expect(await page.locator('.mx-cell.differs').count()).toBeGreaterThan(0);
    await page.locator('.mx-cell.differs').first().hover();
    expect(await page.locator('.tooltip.visible').textContent()).toMatch(/differs across regions/);
    await page.uncheck('#mx-differs');
    await page.selectOption('#mx-region', '1');
    await expect.poll(async () => (await page.locator('.mx-cell .mx-conf').allTextContents()).some((t) => /^0\.\d\d$|^1\.00$/.test(t))).toBe(true);
    await shot(page, 'matrix-one-region', false);
    await page.fill('#mx-search', 'vod-');
    const vods = m.rows.filter((r) => r.site.includes('vod-')).length;
    await expect.poll(() => page.locator('#mx-count').textContent()).toMatch(new RegExp(`^Showing ${vods} of 60`));
    await page.fill('#mx-search', '');
    await page.selectOption('#mx-sort', 'site-desc');
    const firstSite = [...m.rows].map((r) => r.site).sort().reverse()[0];
    await expect.poll(() => page.locator('.mx-body .mx-site a').first().textContent()).toBe(firstSite);
    await page.locator('.mx-body .mx-site a').first().click();
    await page.waitForSelector('h1.site-name');
    expect(await page.locator('h1.site-name').textContent()).toBe(firstSite);
    clean(v);
    await page.close();
  });

  it('Site page: waterfall coloured by verdict, BiF traces with evidence (BBR bumps marked)', async () => {
    // A site whose latest runs have a BBRv1 flow with evidence.
    const site = matrix(store).rows.map((r) => r.site).find((s) => siteRuns(store, s, { detail: 'latest' }).some((r) => r.flows.some((f) => f.verdict?.label === 'BBRv1' && f.verdict.evidence)));
    expect(site).toBeDefined();
    const v = await visit(pathToFileURL(join(out, 'sites', `${siteSlug(site!)}.html`)).href);
    const { page } = v;
    expect(await page.locator('table.snapshot tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.waterfall .wf-row').count()).toBeGreaterThan(0);
    // pick the run that has the BBRv1 flow
    const runs = siteRuns(store, site!);
    const idx = runs.findIndex((r) => r.detailed && r.flows.some((f) => f.verdict?.label === 'BBRv1' && f.verdict.evidence));
    await page.locator(`button[data-run="${idx}"]`).click();
    const profile = runs[idx].flows.find((f) => f.verdict?.label === 'BBRv1' && f.verdict.evidence)!.profile;
    await page.locator(`button[data-profile="${profile}"]`).click();
    await drawAllFlows(page);
    expect(await page.locator('svg.bif path.smoothed').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.bif .probe-bw').count()).toBeGreaterThan(2);
    expect(await page.locator('.bif-legend').first().textContent()).toBeTruthy();
    await page.locator('svg.waterfall .wf-row').first().hover();
    expect(await page.locator('.tooltip.visible').textContent()).toMatch(/https:\/\//);
    await shot(page, 'site-bbr');
    const bbrCard = page.locator('article.flow', { has: page.locator('.probe-bw') }).first();
    await bbrCard.screenshot({ path: join(SCREENS, 'flow-bbr.png') });
    const lossCard = page.locator('article.flow', { has: page.locator('path.fit') }).first();
    if (await lossCard.count()) await lossCard.screenshot({ path: join(SCREENS, 'flow-loss-based.png') });
    clean(v);
    await page.close();
  });

  it('Changes over time: the sites whose CCA changed, paginated and filterable', async () => {
    const c = changes(store).changes;
    // grouped per site and switch (same labels and dates)
    const n = new Set(c.map((x) => JSON.stringify([x.site, x.from.date, x.from.label, x.to.date, x.to.label]))).size;
    expect(n).toBeGreaterThan(0);
    const v = await visit(pathToFileURL(join(out, 'changes.html')).href);
    const { page } = v;
    expect(await page.locator('.change-table tbody tr').count()).toBe(Math.min(100, n));
    expect(await page.locator('.pager').textContent()).toMatch(new RegExp(`\\(${n} changes\\)`));
    await shot(page, 'changes');
    const first = c.find((x) => x.site === c[0].site)!;
    await page.fill('#ch-search', first.site);
    await expect.poll(() => page.locator('.change-table tbody tr').first().textContent()).toContain(first.to.label);
    clean(v);
    await page.close();
  });

  it('Lab page: confusion matrix and per-class accuracy from the benchmark result', async () => {
    const v = await visit(pathToFileURL(join(out, 'lab.html')).href);
    const { page } = v;
    expect(await page.locator('table.confusion tbody tr').count()).toBe(3);
    expect(await page.locator('table.confusion td.diag').allTextContents()).toEqual(['48', '45', '44']);
    expect(await page.locator('table.accuracy tbody tr').first().textContent()).toMatch(/BBRv1.*96\.0%/);
    expect(await page.locator('.tile-value').first().textContent()).toBe('91.3%');
    await shot(page, 'lab');
    clean(v);
    await page.close();
  });

  it('Downloads: every link points at a file that exists', async () => {
    const v = await visit(pathToFileURL(join(out, 'downloads.html')).href);
    const { page } = v;
    const hrefs = await page.locator('a[download]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(hrefs).toHaveLength(12);
    for (const h of hrefs) expect(existsSync(join(out, h)), h).toBe(true);
    await shot(page, 'downloads');
    clean(v);
    await page.close();
  });

  it('single file: one HTML, pages by #fragment, downloads made in the page', async () => {
    const single = fresh('single');
    const { files } = await buildReport({ store: storePath, out: single, singleFile: true });
    expect(files.filter((f) => f.endsWith('.html'))).toEqual([join(single, 'report.html')]);
    const url = pathToFileURL(join(single, 'report.html')).href;
    const v = await visit(url);
    const { page } = v;
    expect(await page.locator('svg.stacked').count()).toBe(2);
    await page.locator('nav a', { hasText: 'Matrix' }).click();
    await page.waitForSelector('.mx-body .mx-row');
    const link = page.locator('.mx-body .mx-site a').first();
    expect(await link.getAttribute('href')).toMatch(/^#site\//);
    await link.click();
    await page.waitForSelector('h1.site-name');
    await page.goto(`${url}#lab`);
    await page.waitForSelector('table.confusion');
    await page.goto(`${url}#downloads`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('table.files button').first().click()]);
    const path = await download.path();
    expect(readFileSync(path!, 'utf8').split('\r\n')[0]).toBe('region,asset_type,label,count,total,share');
    await shot(page, 'single-file-downloads');
    clean(v);
    await page.close();
  });

  it('built from run directories instead of a store', async () => {
    const dirs = writeSyntheticRunDirs(fresh('runs'), { seed: 5, sites: 3, regions: ['eu'], evidencePoints: 64 });
    const o = fresh('from-runs');
    const { stats } = await buildReport({ runs: dirs, out: o });
    expect(stats.runs).toBe(3);
    const v = await visit(pathToFileURL(join(o, 'index.html')).href);
    expect(await v.page.locator('.facts').textContent()).toMatch(/^3 sites · 1 regions · 3 runs/);
    clean(v);
    await v.page.close();
    await expect(buildReport({ runs: dirs, store: storePath, out: fresh('both') })).rejects.toThrow(/either --store or run directories/);
  });

  it('refuses to write into a directory that is not a report', async () => {
    const d = fresh('not-a-report');
    mkdirSync(join(d, 'precious'));
    await expect(buildReport({ store: storePath, out: d })).rejects.toThrow(/not empty/);
    expect(existsSync(join(d, 'precious'))).toBe(true);
  });

  it('an empty store gives empty states everywhere, without errors', async () => {
    const p = join(fresh('empty'), 'empty.db');
    openStore(p).close();
    const o = fresh('empty-report');
    await buildReport({ store: p, out: o });
    for (const name of PAGES) {
      const v = await visit(pathToFileURL(join(o, name)).href);
      expect(await v.page.locator('.empty').count(), name).toBeGreaterThan(0);
      if (name === 'index.html') await shot(v.page, 'empty-landscape');
      if (name === 'matrix.html') await shot(v.page, 'empty-matrix');
      clean(v);
      await v.page.close();
    }
    expect(readdirSync(join(o, 'sites'))).toEqual([]);
  });
});

describeIf('report security: every measured string is hostile', () => {
  let hostileOut: string;
  let hostileSingle: string;
  let slugs: string[];

  beforeAll(async () => {
    const p = join(fresh('hostile-store'), 'hostile.db');
    const s = openStore(p);
    fillSyntheticStore(s, {
      seed: 9,
      sites: 12,
      hostile: true,
      regions: ['eu', '"><svg onload="window.__pwned=20">', '__proto__'],
      dates: ['2025-01-01', '2025-03-01'],
      evidencePoints: 64,
    });
    slugs = matrix(s).rows.map((r) => siteSlug(r.site));
    s.close();
    hostileOut = fresh('hostile-report');
    hostileSingle = fresh('hostile-single');
    await buildReport({ store: p, out: hostileOut });
    await buildReport({ store: p, out: hostileSingle, singleFile: true });
  });

  /** Interact enough that tooltips and lazily drawn parts render their data, then check nothing ran. */
  async function poke(v: Visit): Promise<void> {
    const { page } = v;
    for (const sel of ['.seg', '.mx-cell', '.wf-row', 'svg.bif .segment', 'svg.bif .backoff']) {
      const loc = page.locator(sel);
      const n = Math.min(await loc.count(), 4);
      for (let i = 0; i < n; i++) await loc.nth(i).hover({ force: true }).catch(() => {});
    }
    await drawAllFlows(page);
    const state = await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      const attrs = [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name));
      // CSP check: an inline script added now must not run.
      const s = document.createElement('script');
      s.textContent = 'window.__cspBypassed = true';
      document.body.appendChild(s);
      return {
        pwned: w.__pwned,
        bypassed: w.__cspBypassed,
        handlers: attrs.filter((a) => a.startsWith('on')),
        dangerous: document.querySelectorAll('img, iframe, object, embed, base, form, svg script, foreignObject').length,
        jsLinks: [...document.querySelectorAll('a')].filter((a) => !/^(file:|blob:|#)/.test(a.href) && a.getAttribute('href') !== null).length,
        inlineScripts: [...document.querySelectorAll('script')].filter((x) => !x.src && x.type !== 'application/json').length,
      };
    });
    expect(state.pwned, 'a payload executed').toBeUndefined();
    expect(state.bypassed, 'CSP let an inline script run').toBeUndefined();
    expect(state.handlers).toEqual([]);
    expect(state.dangerous).toBe(0);
    expect(state.jsLinks).toBe(0);
    expect(v.dialogs).toEqual([]);
    expect(v.foreign).toEqual([]);
    // The CSP violation of our own probe above is the only error allowed.
    expect(v.errors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
  }

  it('multi-file: no page runs a payload, and payloads are shown as text', async () => {
    for (const name of PAGES) {
      const v = await visit(pathToFileURL(join(hostileOut, name)).href);
      if (name === 'matrix.html') {
        for (const value of ['-1', '1', '2']) {
          await v.page.selectOption('#mx-region', value);
          await poke(v);
        }
        await shot(v.page, 'hostile-matrix', false);
      }
      await poke(v);
      await v.page.close();
    }
    for (const slug of slugs) {
      const v = await visit(pathToFileURL(join(hostileOut, 'sites', `${slug}.html`)).href);
      for (const b of await v.page.locator('button[data-run]').all()) {
        await b.click();
        await poke(v);
      }
      if ((await v.page.locator('h1.site-name').textContent())!.includes('<')) {
        // The payload is there, as text.
        expect(await v.page.locator('h1.site-name').textContent()).toMatch(/<(script|svg|img|iframe|a )/);
        await shot(v.page, 'hostile-site');
      }
      await v.page.close();
    }
  });

  it('single file: the same, across #fragment navigation', async () => {
    const url = pathToFileURL(join(hostileSingle, 'report.html')).href;
    const v = await visit(url);
    await poke(v);
    for (const frag of ['#matrix', '#changes', '#lab', '#downloads', ...slugs.slice(0, 6).map((s) => `#site/${s}`)]) {
      await v.page.evaluate((f) => (location.hash = f), frag);
      await v.page.waitForTimeout(50);
      await poke(v);
    }
    await v.page.close();
  });
});
