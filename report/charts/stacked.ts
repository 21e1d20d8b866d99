/**
 * 100%-stacked horizontal bars: one bar per row (a region, an asset type, a date), one
 * segment per label, the label and share written in the segment when it fits, the count in
 * the tooltip. A pure function from rows to an SVG element.
 */
import { scaleBand, scaleLinear, select } from 'd3';
import type { CountsRow, LabelInfo } from '../../src/report/contract.js';
import { fmtInt, fmtPct } from '../format.js';
import { attachTip } from '../tooltip.js';

export interface StackedOptions {
  rowName: (key: string) => string;
  unit: string;
  width?: number;
}

export function stackedBars(rows: CountsRow[], labels: LabelInfo[], opts: StackedOptions): SVGSVGElement {
  const width = opts.width ?? 860;
  const left = 130;
  const rowH = 30;
  const height = rows.length * rowH + 24;
  const x = scaleLinear().domain([0, 1]).range([left, width - 70]);
  const y = scaleBand<string>().domain(rows.map((r) => r.key)).range([4, height - 20]).padding(0.18);
  const svg = select(document.createElementNS('http://www.w3.org/2000/svg', 'svg'))
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('class', 'chart stacked')
    .attr('role', 'img')
    .attr('aria-label', `Share of each label per row, in ${opts.unit}`);
  for (const r of rows) {
    const g = svg.append('g').attr('class', 'bar-row');
    const by = y(r.key)!;
    g.append('text').attr('class', 'row-name').attr('x', left - 8).attr('y', by + y.bandwidth() / 2).attr('dy', '0.35em').attr('text-anchor', 'end').text(opts.rowName(r.key));
    g.append('text').attr('class', 'row-total').attr('x', width - 64).attr('y', by + y.bandwidth() / 2).attr('dy', '0.35em').text(`n=${fmtInt(r.total)}`);
    if (r.total === 0) {
      g.append('text').attr('class', 'muted').attr('x', left + 4).attr('y', by + y.bandwidth() / 2).attr('dy', '0.35em').text('no data');
      continue;
    }
    let acc = 0;
    r.counts.forEach((n, i) => {
      if (n === 0) return;
      const l = labels[i];
      const share = n / r.total;
      const x0 = x(acc);
      const w = x(acc + share) - x0;
      acc += share;
      const seg = g.append('g').attr('class', 'seg').attr('tabindex', 0).attr('aria-label', `${opts.rowName(r.key)}: ${l.name} ${fmtPct(share)} (${fmtInt(n)} ${opts.unit})`);
      seg.append('rect').attr('x', x0).attr('y', by).attr('width', Math.max(0.5, w)).attr('height', y.bandwidth()).attr('fill', l.color).attr('stroke', '#fff').attr('stroke-width', 0.5);
      const text = `${l.short} ${Math.round(share * 100)}%`;
      if (w > text.length * 6.2 + 6) {
        seg.append('text').attr('x', x0 + 4).attr('y', by + y.bandwidth() / 2).attr('dy', '0.35em').attr('fill', l.ink).attr('class', 'seg-label').text(text);
      }
      attachTip(seg.node()!, () => [opts.rowName(r.key), [l.name, `${fmtInt(n)} ${opts.unit} (${fmtPct(share)})`], ['total', fmtInt(r.total)]]);
    });
  }
  const axis = svg.append('g').attr('class', 'axis').attr('transform', `translate(0, ${height - 16})`);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    axis.append('text').attr('x', x(t)).attr('y', 10).attr('text-anchor', 'middle').text(fmtPct(t, 0));
  }
  return svg.node()!;
}
