/** Changes over time: the label mix per date, and every site whose CCA changed between dates. */
import type { ChangesView } from '../../src/report/contract.js';
import { stackedBars } from '../charts/stacked.js';
import type { Ctx } from '../context.js';
import { clear, emptyState, h, link } from '../dom.js';
import { fmtConf, fmtInt } from '../format.js';
import { chip, legend } from '../labels.js';

const PAGE = 100;

export function changesPage(ctx: Ctx, v: ChangesView): HTMLElement {
  const root = h('section', { class: 'page changes' }, h('h1', null, 'Changes over time'));
  if (v.dates.length < 2) {
    root.appendChild(
      emptyState(
        v.dates.length === 0 ? 'No measurements yet.' : `Only one measurement date (${v.dates[0]}).`,
        'Changes appear once the store holds runs of the same sites on two or more dates: crawl again later and rebuild the report.',
      ),
    );
    return root;
  }
  const used = new Set<number>();
  for (const r of v.perDate) r.counts.forEach((n, i) => n && used.add(i));
  root.append(
    h('section', { class: 'card' }, h('h2', null, 'Label mix per date'), h('p', { class: 'note' }, 'Site × region × asset-type cells measured on each date, by label.'), legend(ctx.labels, used),
      h('div', { class: 'chart-host' }, stackedBars(v.perDate, ctx.labels, { rowName: (k) => k, unit: 'cells' }))),
  );
  // One row per site and switch (same labels, same dates), with the regions and asset types it covers.
  type Group = { site: string; slug: string; from: [string, number, number]; to: [string, number, number]; regions: Set<string>; types: Set<string>; n: number };
  const groups = new Map<string, Group>();
  for (const [site, slug, region, type, fromDate, fromL, fromC, toDate, toL, toC] of v.changes) {
    const key = JSON.stringify([site, fromDate, fromL, toDate, toL]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { site, slug, from: [fromDate, fromL, 0], to: [toDate, toL, 0], regions: new Set(), types: new Set(), n: 0 }));
    g.regions.add(region);
    g.types.add(type);
    g.from[2] += fromC;
    g.to[2] += toC;
    g.n++;
  }
  const all = [...groups.values()];
  const siteCount = new Set(all.map((g) => g.site)).size;
  const card = h('section', { class: 'card', attrs: { id: 'change-list' } }, h('h2', null, `Sites whose CCA changed (${fmtInt(siteCount)})`));
  root.appendChild(card);
  if (all.length === 0) {
    card.appendChild(emptyState('No site changed its congestion control between measured dates.', 'Non-answers (short flows, unknowns) are ignored: only two different CCA answers count as a change.'));
    return root;
  }
  const regions = [...new Set(v.changes.map((c) => c[2]))].sort();
  const search = h('input', { attrs: { id: 'ch-search', type: 'search', placeholder: 'site contains…' } });
  const regionSel = h('select', { attrs: { id: 'ch-region' } }, h('option', { attrs: { value: '' } }, 'all regions'), ...regions.map((r) => h('option', { attrs: { value: r } }, r)));
  const tbody = h('tbody');
  const pager = h('div', { class: 'pager' });
  let page = 0;
  const rows = (): Group[] => {
    const q = search.value.trim().toLowerCase();
    return all.filter((g) => (!q || g.site.toLowerCase().includes(q)) && (!regionSel.value || g.regions.has(regionSel.value)));
  };
  const draw = (): void => {
    const shown = rows();
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    clear(tbody);
    for (const g of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      tbody.appendChild(
        h('tr', null,
          h('td', null, link(ctx.siteHref(g.slug), g.site)),
          h('td', null, chip(ctx.labels[g.from[1]], fmtConf(g.from[2] / g.n)), h('span', { class: 'muted' }, ` ${g.from[0]}`)),
          h('td', { attrs: { 'aria-label': 'changed to' } }, '→'),
          h('td', null, chip(ctx.labels[g.to[1]], fmtConf(g.to[2] / g.n)), h('span', { class: 'muted' }, ` ${g.to[0]}`)),
          h('td', { class: 'wrap' }, [...g.regions].sort().join(', ')),
          h('td', { class: 'wrap' }, [...g.types].sort().join(', ')),
        ),
      );
    }
    clear(pager);
    pager.append(
      h('button', { class: 'small', attrs: { disabled: page === 0 }, on: { click: () => ((page = Math.max(0, page - 1)), draw()) } }, '‹ previous'),
      h('span', null, ` page ${page + 1} of ${pages} (${fmtInt(shown.length)} changes) `),
      h('button', { class: 'small', attrs: { disabled: page >= pages - 1 }, on: { click: () => ((page += 1), draw()) } }, 'next ›'),
    );
  };
  search.addEventListener('input', () => ((page = 0), draw()));
  regionSel.addEventListener('change', () => ((page = 0), draw()));
  card.append(
    h('p', { class: 'note' }, 'One row per site and switch; confidence is the mean over the regions and asset types listed. The CSV download has one row per region and asset type.'),
    h('div', { class: 'controls' }, h('label', { attrs: { for: 'ch-search' } }, 'Search '), search, h('label', { attrs: { for: 'ch-region' } }, 'Region '), regionSel),
    h('div', { class: 'table-scroll' }, h('table', { class: 'change-table' }, h('thead', null, h('tr', null, ...['Site', 'Before', '', 'After', 'Regions', 'Asset types'].map((c) => h('th', { attrs: { scope: 'col' } }, c)))), tbody)),
    pager,
  );
  draw();
  return root;
}
