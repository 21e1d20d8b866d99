/** Lab accuracy: confusion matrix and per-class accuracy of a classifier benchmark. */
import { interpolateBlues } from 'd3';
import type { LabBench, LabView } from '../../src/report/contract.js';
import type { Ctx } from '../context.js';
import { emptyState, h } from '../dom.js';
import { fmtInt, fmtPct } from '../format.js';

export function labPage(_ctx: Ctx, v: LabView): HTMLElement {
  const root = h('section', { class: 'page lab' }, h('h1', null, 'Lab accuracy'));
  if (v.benches.length === 0) {
    root.appendChild(
      emptyState(
        'No benchmark result in this report.',
        'Run the classifier benchmark against the lab origins (ground truth), then build the report with --lab FILE (or ingest the result into the store). This page then shows the confusion matrix and per-class accuracy.',
      ),
    );
    return root;
  }
  for (const b of v.benches) root.appendChild(bench(b));
  return root;
}

function tile(label: string, value: string): HTMLElement {
  return h('div', { class: 'tile' }, h('div', { class: 'tile-value' }, value), h('div', { class: 'tile-label' }, label));
}

function bench(b: LabBench): HTMLElement {
  const total = b.matrix.reduce((a, r) => a + r.reduce((x, y) => x + y, 0), 0);
  const tiles = h(
    'div',
    { class: 'tiles' },
    tile('overall accuracy', fmtPct(b.overallAccuracy)),
    tile('traces', fmtInt(total)),
    tile('labelled Unknown / non-answer', fmtPct(b.unknownRate)),
    tile('median trace length', `${b.medianTraceSeconds.toFixed(1)} s`),
  );
  // Rows: true class; columns: predicted label. Shade = share of the row (row-normalised).
  const cm = h(
    'table',
    { class: 'confusion' },
    h('caption', null, 'Confusion matrix: rows are the true CCA of the lab origin, columns the label given; each cell is a count, shaded by its share of the row.'),
    h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, 'true ↓ / given →'), ...b.predictedLabels.map((p) => h('th', { attrs: { scope: 'col' }, class: 'rot' }, h('span', null, p))))),
    h(
      'tbody',
      null,
      ...b.matrix.map((row, i) => {
        const n = row.reduce((a, x) => a + x, 0);
        return h(
          'tr',
          null,
          h('th', { attrs: { scope: 'row' } }, b.trueClasses[i]),
          ...row.map((c, j) => {
            const share = n ? c / n : 0;
            const td = h('td', { class: b.predictedLabels[j] === b.trueClasses[i] ? 'diag' : '', title: `${b.trueClasses[i]} → ${b.predictedLabels[j]}: ${c} of ${n} (${fmtPct(share)})` }, c ? fmtInt(c) : '·');
            td.style.background = c ? interpolateBlues(0.08 + share * 0.85) : '';
            td.style.color = share > 0.5 ? '#fff' : '#000';
            return td;
          }),
        );
      }),
    ),
  );
  const acc = h(
    'table',
    { class: 'accuracy' },
    h('caption', null, 'Per-class accuracy (correct / traces of that class)'),
    h('thead', null, h('tr', null, ...['Class', 'Accuracy', '', 'Correct', 'Traces'].map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
    h(
      'tbody',
      null,
      ...b.perClass.map((p) => {
        const bar = h('span', { class: 'acc-bar' });
        bar.style.width = `${Math.round(p.accuracy * 100)}%`;
        return h('tr', null, h('th', { attrs: { scope: 'row' } }, p.label), h('td', null, fmtPct(p.accuracy)), h('td', { class: 'acc-cell' }, h('span', { class: 'acc-track' }, bar)), h('td', null, fmtInt(p.correct)), h('td', null, fmtInt(p.n)));
      }),
    ),
  );
  return h(
    'section',
    { class: 'card bench' },
    h('h2', null, b.name),
    h('p', { class: 'note' }, `Model ${b.model} · ${b.createdAt}${b.profiles.length ? ` · profiles ${b.profiles.join(', ')}` : ''}${b.note ? ` · ${b.note}` : ''}`),
    tiles,
    h('div', { class: 'table-scroll' }, cm),
    h('div', { class: 'table-scroll' }, acc),
  );
}
