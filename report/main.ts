/**
 * Entry point of the report's front end (bundled with d3 by esbuild into one file). Reads the
 * page's embedded JSON (never fetched: works from file:// and any sub-path) and draws the page;
 * in single-file mode all pages live in one document and the #fragment picks the page.
 */
import type { Embedded, PageName, SiteView } from '../src/report/contract.js';
import { makeCtx, type Ctx } from './context.js';
import { clear, emptyState, h } from './dom.js';
import { frame } from './layout.js';
import { changesPage } from './pages/changes.js';
import { downloadsPage } from './pages/downloads.js';
import { labPage } from './pages/lab.js';
import { landscapePage } from './pages/landscape.js';
import { matrixPage } from './pages/matrix.js';
import { sitePage } from './pages/site.js';
import { hideTip } from './tooltip.js';

function readData(): Embedded {
  const el = document.getElementById('ccb-data');
  if (!el || !el.textContent) throw new Error('this page has no embedded data (ccb-data)');
  return JSON.parse(el.textContent) as Embedded;
}

function mount(app: HTMLElement, ctx: Ctx, page: PageName, content: HTMLElement, title: string): void {
  clear(app);
  app.appendChild(frame(ctx, page, content));
  document.title = `${title} · ${ctx.common.title}`;
}

function renderSingle(app: HTMLElement, data: Extract<Embedded, { mode: 'single' }>, ctx: Ctx, sites: Map<string, SiteView>): void {
  hideTip();
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash.startsWith('site/')) {
    const site = sites.get(hash.slice(5));
    const content = site ? sitePage(ctx, site) : emptyState('No such site in this report.');
    mount(app, ctx, 'site', content, site ? site.site : 'Site');
    window.scrollTo(0, 0);
    return;
  }
  const p = data.pages;
  switch (hash) {
    case 'matrix':
      return mount(app, ctx, 'matrix', matrixPage(ctx, p.matrix), 'Matrix');
    case 'changes':
      return mount(app, ctx, 'changes', changesPage(ctx, p.changes), 'Changes over time');
    case 'lab':
      return mount(app, ctx, 'lab', labPage(ctx, p.lab), 'Lab accuracy');
    case 'downloads':
      return mount(app, ctx, 'downloads', downloadsPage(ctx, p.downloads), 'Downloads');
    default:
      return mount(app, ctx, 'landscape', landscapePage(ctx, p.landscape), 'Landscape');
  }
}

function start(): void {
  const app = document.getElementById('app');
  if (!app) return;
  let data: Embedded;
  try {
    data = readData();
  } catch (err) {
    app.appendChild(emptyState('This report page could not read its data.', String(err)));
    throw err;
  }
  const ctx = makeCtx(data);
  if (data.mode === 'single') {
    const sites = new Map(data.sites.map((s) => [s.slug, s]));
    renderSingle(app, data, ctx, sites);
    window.addEventListener('hashchange', () => renderSingle(app, data as Extract<Embedded, { mode: 'single' }>, ctx, sites));
    return;
  }
  const c = data.content;
  switch (c.page) {
    case 'landscape':
      return mount(app, ctx, 'landscape', landscapePage(ctx, c.data), 'Landscape');
    case 'matrix':
      return mount(app, ctx, 'matrix', matrixPage(ctx, c.data), 'Matrix');
    case 'changes':
      return mount(app, ctx, 'changes', changesPage(ctx, c.data), 'Changes over time');
    case 'lab':
      return mount(app, ctx, 'lab', labPage(ctx, c.data), 'Lab accuracy');
    case 'downloads':
      return mount(app, ctx, 'downloads', downloadsPage(ctx, c.data), 'Downloads');
    case 'site':
      return mount(app, ctx, 'site', sitePage(ctx, c.data), c.data.site);
  }
}

document.documentElement.classList.add('js');
start();
