/**
 * The request waterfall of one profile session: one row per asset, a bar from request start
 * to response end, coloured by the verdict of the flow that carried it (hatched grey when no
 * flow could be tied to it). Text on the left names the asset; the tooltip has the details.
 */
import { axisBottom, scaleLinear, select } from 'd3';
import type { AssetRecord, LabelInfo } from '../../src/report/contract.js';
import { fmtBytes, fmtConf, fmtMs } from '../format.js';
import { attachTip } from '../tooltip.js';

export interface FlowTag {
  label: number;
  confidence: number;
  protocol: string;
}

const MAX_ROWS = 400;

function shortName(a: AssetRecord): string {
  let path = a.url;
  const m = /^[a-z]+:\/\/[^/]*(\/.*)?$/i.exec(a.url);
  if (m) path = m[1] ?? '/';
  const s = `${a.host}${path}`;
  return s.length > 46 ? `${s.slice(0, 45)}…` : s;
}

export function waterfall(assets: AssetRecord[], flows: Map<string, FlowTag>, labels: LabelInfo[]): { svg: SVGSVGElement; shown: number } {
  const rows = assets.slice().sort((a, b) => a.startMs - b.startMs || a.harIndex - b.harIndex).slice(0, MAX_ROWS);
  const width = 960;
  const left = 300;
  const rowH = 16;
  const top = 8;
  const height = top + rows.length * rowH + 30;
  const maxEnd = Math.max(1, ...rows.map((a) => a.endMs));
  const x = scaleLinear().domain([0, maxEnd]).range([left, width - 20]).nice();
  const svg = select(document.createElementNS('http://www.w3.org/2000/svg', 'svg'))
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('class', 'chart waterfall')
    .attr('role', 'img')
    .attr('aria-label', `Request waterfall, ${rows.length} requests, coloured by the verdict of the flow that carried each`);
  svg.append('defs').append('pattern').attr('id', 'hatch').attr('width', 6).attr('height', 6).attr('patternUnits', 'userSpaceOnUse').attr('patternTransform', 'rotate(45)')
    .append('rect').attr('width', 3).attr('height', 6).attr('fill', '#9a9a9a');
  rows.forEach((a, i) => {
    const y = top + i * rowH;
    const tag = a.flowId !== null ? flows.get(a.flowId) : undefined;
    const l = tag ? labels[tag.label] : undefined;
    const g = svg.append('g').attr('class', 'wf-row').attr('tabindex', 0);
    if (i % 2 === 0) g.append('rect').attr('class', 'zebra').attr('x', 0).attr('y', y).attr('width', width).attr('height', rowH);
    g.append('text').attr('class', 'wf-name').attr('x', 4).attr('y', y + rowH / 2).attr('dy', '0.35em').text(`${a.assetType.padEnd(8, ' ')} ${shortName(a)}`);
    const x0 = x(a.startMs);
    const w = Math.max(2, x(a.endMs) - x0);
    g.append('rect').attr('x', x0).attr('y', y + 3).attr('width', w).attr('height', rowH - 6).attr('rx', 2)
      .attr('fill', l ? l.color : 'url(#hatch)').attr('stroke', l ? 'none' : '#6e6e6e');
    if (l && w > 40) g.append('text').attr('class', 'wf-bar-label').attr('x', x0 + 3).attr('y', y + rowH / 2).attr('dy', '0.35em').attr('fill', l.ink).text(l.short);
    attachTip(g.node()!, () => [
      a.url,
      ['type', `${a.assetType} (${a.mime || 'no MIME type'})`],
      ['size', fmtBytes(a.bytes)],
      ['HTTP', a.protocol ?? 'unknown'],
      ['time', `${fmtMs(a.startMs)} → ${fmtMs(a.endMs)}`],
      ['flow', a.flowId === null ? 'not tied to a flow' : `${a.flowId}${tag ? ` (${tag.protocol})` : ''}`],
      ['verdict', l && tag ? `${l.name}${l.kind === 'cca' ? `, confidence ${fmtConf(tag.confidence)}` : ''}` : 'none'],
    ]);
  });
  svg.append('g').attr('class', 'axis').attr('transform', `translate(0, ${top + rows.length * rowH + 4})`)
    .call(axisBottom(x).ticks(8).tickFormat((d) => fmtMs(Number(d))));
  return { svg: svg.node()!, shown: rows.length };
}
