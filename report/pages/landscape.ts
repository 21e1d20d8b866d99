/** Landscape: the share of each CCA by region and by asset type, with counts. */
import type { LandscapeView } from '../../src/report/contract.js';
import { countsTable } from '../charts/countsTable.js';
import { stackedBars } from '../charts/stacked.js';
import type { Ctx } from '../context.js';
import { emptyState, h } from '../dom.js';
import { legend } from '../labels.js';

const regionName = (k: string): string => (k === '*' ? 'All regions' : k);

export function landscapePage(ctx: Ctx, v: LandscapeView): HTMLElement {
  const root = h('section', { class: 'page landscape' }, h('h1', null, 'Landscape: which congestion control serves what'));
  if (v.byRegion.length === 0) {
    root.appendChild(emptyState('No runs in this store yet.', 'Run a scenario (ccbrowse run scenarios/…) and build the report again; this page then shows the share of each congestion-control algorithm by region and by asset type.'));
    return root;
  }
  const used = new Set<number>();
  for (const r of [...v.byRegion, ...v.flowsByRegion]) r.counts.forEach((n, i) => n && used.add(i));
  root.appendChild(legend(ctx.labels, used));

  // By region: sites (a site's label = the CCA carrying most of its bytes) or flows.
  const regionHost = h('div', { class: 'chart-host' });
  const regionTable = h('div', { class: 'table-host' });
  const unit = h('select', { attrs: { id: 'unit-select', 'aria-label': 'Count' } }, h('option', { attrs: { value: 'sites' } }, 'sites'), h('option', { attrs: { value: 'flows' } }, 'flows'));
  const drawRegions = (): void => {
    const flows = unit.value === 'flows';
    const rows = flows ? v.flowsByRegion : [...v.byRegion, v.allRegions];
    const what = flows ? 'flows' : 'sites';
    regionHost.replaceChildren(stackedBars(rows, ctx.labels, { rowName: regionName, unit: what }));
    regionTable.replaceChildren(
      countsTable(rows, ctx.labels, flows ? 'Judged flows by label and region (count, share of the region’s flows)' : 'Sites by label and region (count, share of the region’s sites; “All regions” counts each site once per region)', regionName),
    );
  };
  unit.addEventListener('change', drawRegions);
  root.appendChild(
    h(
      'section',
      { class: 'card', attrs: { id: 'by-region' } },
      h('h2', null, 'By region'),
      h('p', { class: 'note' }, 'Latest measurement date of each site in each region. A site counts under the label that carried most of its bytes; a CCA answer beats non-answers.'),
      h('div', { class: 'controls' }, h('label', { attrs: { for: 'unit-select' } }, 'Count '), unit),
      regionHost,
      regionTable,
    ),
  );
  drawRegions();

  // By asset type, for one region or all.
  const typeHost = h('div', { class: 'chart-host' });
  const typeTable = h('div', { class: 'table-host' });
  const region = h('select', { attrs: { id: 'type-region', 'aria-label': 'Region' } }, ...v.byAssetType.map((b) => h('option', { attrs: { value: b.region } }, regionName(b.region))));
  const drawTypes = (): void => {
    const block = v.byAssetType.find((b) => b.region === region.value) ?? v.byAssetType[0];
    typeHost.replaceChildren(stackedBars(block.rows, ctx.labels, { rowName: (k) => k, unit: 'sites' }));
    typeTable.replaceChildren(countsTable(block.rows, ctx.labels, `Sites serving each asset type, by label (${regionName(block.region)})`, (k) => k));
  };
  region.addEventListener('change', drawTypes);
  root.appendChild(
    h(
      'section',
      { class: 'card', attrs: { id: 'by-asset-type' } },
      h('h2', null, 'By asset type'),
      h('p', { class: 'note' }, 'Each site that served the asset type counts once, under the label of the flows that carried that type (by bytes).'),
      h('div', { class: 'controls' }, h('label', { attrs: { for: 'type-region' } }, 'Region '), region),
      typeHost,
      typeTable,
    ),
  );
  drawTypes();
  return root;
}
