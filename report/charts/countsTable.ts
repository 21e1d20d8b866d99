/**
 * The thesis-style table (Nebby Tables 6.5/6.8): one row per label, one column per region /
 * asset type / date, each cell "count (share)". Labels that never occur are left out.
 */
import type { CountsRow, LabelInfo } from '../../src/report/contract.js';
import { h } from '../dom.js';
import { fmtInt, fmtPct } from '../format.js';
import { swatch } from '../labels.js';

export function countsTable(rows: CountsRow[], labels: LabelInfo[], caption: string, colName: (key: string) => string): HTMLTableElement {
  const used = labels.map((_, i) => i).filter((i) => rows.some((r) => r.counts[i] > 0));
  return h(
    'table',
    { class: 'counts' },
    h('caption', null, caption),
    h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, 'Label'), ...rows.map((r) => h('th', { attrs: { scope: 'col' } }, colName(r.key))))),
    h(
      'tbody',
      null,
      ...used.map((i) =>
        h(
          'tr',
          null,
          h('th', { attrs: { scope: 'row' } }, swatch(labels[i]), labels[i].name),
          ...rows.map((r) => {
            const n = r.counts[i];
            return h('td', { class: n ? '' : 'zero' }, n ? `${fmtInt(n)} (${fmtPct(r.total ? n / r.total : 0)})` : '–');
          }),
        ),
      ),
      h('tr', { class: 'total' }, h('th', { attrs: { scope: 'row' } }, 'Total'), ...rows.map((r) => h('td', null, fmtInt(r.total)))),
    ),
  );
}
