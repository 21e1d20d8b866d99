/**
 * The matrix: sites x asset types, each cell the CCA (colour + label + confidence) in one
 * region, or all regions side by side with a "differs across regions" mark (Nebby Table 6.11).
 * Filtering and sorting work on an index array; only the rows in view exist in the DOM, so
 * 20,000 sites scroll as smoothly as 20.
 */
import { decodeCell, type LabelInfo, type MatrixView } from '../../src/report/contract.js';
import type { Ctx } from '../context.js';
import { clear, emptyState, h, link } from '../dom.js';
import { fmtConf, fmtInt, fmtPct } from '../format.js';
import { legend } from '../labels.js';
import { hideTip, showTip, type TipLine } from '../tooltip.js';

const ROW_H = 34;
const OVERSCAN = 8;

interface State {
  region: number; // -1 = all regions
  query: string;
  label: number; // -1 = any
  differsOnly: boolean;
  sort: string;
}

export function matrixPage(ctx: Ctx, v: MatrixView): HTMLElement {
  const root = h('section', { class: 'page matrix' }, h('h1', null, 'Matrix: sites × asset types'));
  const S = v.sites.length;
  const T = v.assetTypes.length;
  const R = v.regions.length;
  if (S === 0) {
    root.appendChild(emptyState('No sites to show.', 'The matrix fills in once runs are in the store: one row per site, one column per asset type, each cell the congestion control that served it.'));
    return root;
  }
  const labels = ctx.labels;
  const code = (s: number, t: number, r: number): number => v.cells[(s * T + t) * R + r];
  const lower = v.sites.map((x) => x.toLowerCase());
  const cca = labels.map((l) => l.kind === 'cca');

  /** The label most regions agree on (answers first), and how many regions measured it. */
  const majority = (s: number, t: number): { label: number; n: number; of: number } | null => {
    const tally = new Map<number, number>();
    let of = 0;
    for (let r = 0; r < R; r++) {
      const c = decodeCell(code(s, t, r));
      if (!c) continue;
      of++;
      tally.set(c.label, (tally.get(c.label) ?? 0) + (cca[c.label] ? 1000 : 1));
    }
    let best = -1;
    let bestN = -1;
    for (const [l, n] of tally) if (n > bestN || (n === bestN && l < best)) [best, bestN] = [l, n];
    return best < 0 ? null : { label: best, n: bestN >= 1000 ? Math.floor(bestN / 1000) : bestN, of };
  };

  const state: State = { region: -1, query: '', label: -1, differsOnly: false, sort: 'site' };
  let order = new Int32Array(0);

  // ---- controls
  const regionSel = h('select', { attrs: { id: 'mx-region' } }, h('option', { attrs: { value: '-1' } }, 'All regions (compare)'), ...v.regions.map((r, i) => h('option', { attrs: { value: String(i) } }, r)));
  const search = h('input', { attrs: { id: 'mx-search', type: 'search', placeholder: 'site contains…', autocomplete: 'off', spellcheck: 'false' } });
  const labelSel = h('select', { attrs: { id: 'mx-label' } }, h('option', { attrs: { value: '-1' } }, 'any label'), ...labels.map((l, i) => h('option', { attrs: { value: String(i) } }, l.name)));
  const differs = h('input', { attrs: { id: 'mx-differs', type: 'checkbox' } });
  const sortSel = h(
    'select',
    { attrs: { id: 'mx-sort' } },
    ...[
      ['site', 'site A→Z'],
      ['site-desc', 'site Z→A'],
      ['differs', 'differs across regions first'],
      ['types', 'most asset types first'],
      ['conf', 'lowest confidence first'],
      ...v.assetTypes.map((t, i) => [`col:${i}`, `by ${t} label`]),
    ].map(([value, text]) => h('option', { attrs: { value } }, text)),
  );
  const count = h('p', { class: 'count', attrs: { 'aria-live': 'polite', id: 'mx-count' } });
  const controls = h(
    'div',
    { class: 'controls' },
    h('label', { attrs: { for: 'mx-region' } }, 'Region '), regionSel,
    h('label', { attrs: { for: 'mx-search' } }, 'Search '), search,
    h('label', { attrs: { for: 'mx-label' } }, 'Label '), labelSel,
    h('label', { class: 'check', attrs: { for: 'mx-differs' } }, differs, ' differs across regions only'),
    h('label', { attrs: { for: 'mx-sort' } }, 'Sort '), sortSel,
  );

  // ---- the virtual table
  const header = h('div', { class: 'mx-row mx-head', attrs: { role: 'row' } });
  const body = h('div', { class: 'mx-body', attrs: { role: 'rowgroup' } });
  const scroller = h('div', { class: 'mx-scroll', attrs: { role: 'table', 'aria-label': 'Congestion control per site and asset type', tabindex: 0 } }, header, body);
  const gridCols = `minmax(220px, 2fr) repeat(${T}, minmax(96px, 1fr))`;
  header.style.gridTemplateColumns = gridCols;

  const sortBy = (value: string): void => {
    state.sort = value;
    sortSel.value = value;
    refilter();
  };
  header.appendChild(h('div', { class: 'mx-site', attrs: { role: 'columnheader' } }, h('button', { class: 'linkish', on: { click: () => sortBy(state.sort === 'site' ? 'site-desc' : 'site') } }, 'Site ⇅')));
  v.assetTypes.forEach((t, i) => {
    header.appendChild(h('div', { attrs: { role: 'columnheader' } }, h('button', { class: 'linkish', title: `Sort by the ${t} label`, on: { click: () => sortBy(`col:${i}`) } }, t)));
  });

  const cellLabel = (s: number, t: number): number => {
    if (state.region >= 0) return decodeCell(code(s, t, state.region))?.label ?? -1;
    return majority(s, t)?.label ?? -1;
  };

  function refilter(): void {
    const q = state.query.trim().toLowerCase();
    const keep: number[] = [];
    for (let s = 0; s < S; s++) {
      if (q && !lower[s].includes(q)) continue;
      if (state.differsOnly && v.differs[s] === 0) continue;
      if (state.label >= 0) {
        let hit = false;
        for (let t = 0; t < T && !hit; t++) {
          for (let r = 0; r < R && !hit; r++) {
            if (state.region >= 0 && r !== state.region) continue;
            hit = decodeCell(code(s, t, r))?.label === state.label;
          }
        }
        if (!hit) continue;
      }
      if (state.region >= 0) {
        let any = false;
        for (let t = 0; t < T && !any; t++) any = code(s, t, state.region) >= 0;
        if (!any) continue;
      }
      keep.push(s);
    }
    const byName = (a: number, b: number): number => (v.sites[a] < v.sites[b] ? -1 : v.sites[a] > v.sites[b] ? 1 : 0);
    const typesOf = (s: number): number => {
      let n = 0;
      for (let t = 0; t < T; t++) for (let r = 0; r < R; r++) if (code(s, t, r) >= 0) { n++; break; }
      return n;
    };
    const minConf = (s: number): number => {
      let m = 2;
      for (let t = 0; t < T; t++) for (let r = 0; r < R; r++) {
        if (state.region >= 0 && r !== state.region) continue;
        const c = decodeCell(code(s, t, r));
        if (c && cca[c.label]) m = Math.min(m, c.confidence);
      }
      return m;
    };
    if (state.sort === 'site-desc') keep.sort((a, b) => -byName(a, b));
    else if (state.sort === 'differs') keep.sort((a, b) => bitCount(v.differs[b]) - bitCount(v.differs[a]) || byName(a, b));
    else if (state.sort === 'types') {
      const n = new Map(keep.map((s) => [s, typesOf(s)]));
      keep.sort((a, b) => n.get(b)! - n.get(a)! || byName(a, b));
    } else if (state.sort === 'conf') {
      const m = new Map(keep.map((s) => [s, minConf(s)]));
      keep.sort((a, b) => m.get(a)! - m.get(b)! || byName(a, b));
    } else if (state.sort.startsWith('col:')) {
      const t = Number(state.sort.slice(4));
      const l = new Map(keep.map((s) => [s, cellLabel(s, t)]));
      keep.sort((a, b) => {
        const la = l.get(a)!;
        const lb = l.get(b)!;
        return (la < 0 ? 1e9 : la) - (lb < 0 ? 1e9 : lb) || byName(a, b);
      });
    } else keep.sort(byName);
    order = Int32Array.from(keep);
    body.style.height = `${order.length * ROW_H}px`;
    scroller.setAttribute('aria-rowcount', String(order.length + 1));
    count.textContent = `Showing ${fmtInt(order.length)} of ${fmtInt(S)} sites${state.region >= 0 ? ` measured in ${v.regions[state.region]}` : ''}.`;
    scroller.scrollTop = 0;
    renderRows();
  }

  function cellEl(s: number, t: number): HTMLElement {
    const diff = (v.differs[s] >> t) & 1;
    const cell = h('div', { class: `mx-cell${diff ? ' differs' : ''}`, attrs: { role: 'cell', 'data-s': s, 'data-t': t } });
    if (state.region >= 0) {
      const c = decodeCell(code(s, t, state.region));
      if (!c) {
        cell.classList.add('none');
        cell.textContent = '–';
        return cell;
      }
      const l = labels[c.label];
      paint(cell, l);
      cell.append(h('span', { class: 'mx-label' }, l.short), h('span', { class: 'mx-conf' }, cca[c.label] ? fmtConf(c.confidence) : ''));
    } else {
      const m = majority(s, t);
      if (!m) {
        cell.classList.add('none');
        cell.textContent = '–';
        return cell;
      }
      const l = labels[m.label];
      const top = h('span', { class: 'mx-label' }, l.short, m.n < m.of ? h('span', { class: 'mx-frac' }, ` ${m.n}/${m.of}`) : null);
      paint(top, l);
      const stripe = h('span', { class: 'mx-stripe', attrs: { 'aria-hidden': 'true' } });
      for (let r = 0; r < R; r++) {
        const c = decodeCell(code(s, t, r));
        const b = h('span', { class: 'mx-tick' });
        if (c) b.style.background = labels[c.label].color;
        else b.classList.add('empty');
        stripe.appendChild(b);
      }
      cell.append(top, stripe);
    }
    if (diff) cell.appendChild(h('span', { class: 'mx-diff', title: 'differs across regions' }, '≠'));
    return cell;
  }

  function renderRows(): void {
    const top = scroller.scrollTop;
    const viewH = scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(order.length, Math.ceil((top + viewH) / ROW_H) + OVERSCAN);
    clear(body);
    for (let i = first; i < last; i++) {
      const s = order[i];
      const diffs = bitCount(v.differs[s]);
      const row = h(
        'div',
        { class: 'mx-row', attrs: { role: 'row', 'aria-rowindex': i + 2 } },
        h('div', { class: 'mx-site', attrs: { role: 'rowheader' } }, link(ctx.siteHref(v.slugs[s]), v.sites[s]), diffs ? h('span', { class: 'badge', title: 'CCA differs across regions for some asset types' }, `≠ ${diffs}`) : null),
      );
      row.style.gridTemplateColumns = gridCols;
      row.style.transform = `translateY(${i * ROW_H}px)`;
      for (let t = 0; t < T; t++) row.appendChild(cellEl(s, t));
      body.appendChild(row);
    }
  }

  function tipLines(s: number, t: number): TipLine[] {
    const lines: TipLine[] = [v.sites[s], `asset type: ${v.assetTypes[t]}`];
    for (let r = 0; r < R; r++) {
      const c = decodeCell(code(s, t, r));
      const d = v.siteDates[s * R + r];
      lines.push([v.regions[r], c ? `${labels[c.label].name}${cca[c.label] ? ` · conf ${fmtConf(c.confidence)} · ${fmtPct(c.share, 0)} of bytes` : ''}${d >= 0 ? ` · ${v.dates[d]}` : ''}` : 'not measured']);
    }
    if ((v.differs[s] >> t) & 1) lines.push('≠ the CCA differs across regions');
    return lines;
  }

  let raf = 0;
  scroller.addEventListener('scroll', () => {
    hideTip();
    if (!raf) raf = requestAnimationFrame(() => ((raf = 0), renderRows()));
  });
  body.addEventListener('mousemove', (e) => {
    const cell = (e.target as Element).closest('.mx-cell');
    if (!cell) return hideTip();
    const s = Number(cell.getAttribute('data-s'));
    const t = Number(cell.getAttribute('data-t'));
    showTip(tipLines(s, t), e.clientX, e.clientY);
  });
  body.addEventListener('mouseleave', hideTip);

  regionSel.addEventListener('change', () => ((state.region = Number(regionSel.value)), refilter()));
  labelSel.addEventListener('change', () => ((state.label = Number(labelSel.value)), refilter()));
  differs.addEventListener('change', () => ((state.differsOnly = differs.checked), refilter()));
  sortSel.addEventListener('change', () => sortBy(sortSel.value));
  let debounce = 0;
  search.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = window.setTimeout(() => ((state.query = search.value), refilter()), 120);
  });

  const used = new Set<number>();
  for (const c of v.cells) if (c >= 0) used.add(decodeCell(c)!.label);
  root.append(
    h('p', { class: 'note' }, 'Each cell: the label that carried most of that asset type’s bytes at the site’s latest date in the region (confidence 0–1 after the label). “All regions” shows the label most regions agree on and one tick per region (',
      v.regions.join(', '), '); a dashed outline and ≠ mark an asset type whose CCA differs between regions. Hover a cell for every region.'),
    legend(labels, used),
    controls,
    count,
    scroller,
  );
  // Layout is known only once attached: draw after the browser has placed the scroller.
  requestAnimationFrame(() => refilter());
  refilter();
  return root;
}

function paint(el: HTMLElement, l: LabelInfo): void {
  el.style.background = l.color;
  el.style.color = l.ink;
}

function bitCount(x: number): number {
  let n = 0;
  while (x) {
    n += x & 1;
    x >>>= 1;
  }
  return n;
}
