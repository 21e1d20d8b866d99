/**
 * One flow's bytes-in-flight trace with the classifier's evidence drawn on it: the smoothed
 * curve, the segments between back-offs (tinted when judged) with their fitted polynomials,
 * the back-offs, and periodic signatures (BBR's ProbeBW bumps every ~8 RTTs, ProbeRTT dips,
 * AkamaiCC's regular back-offs). Returns the SVG and a legend/caption describing what is drawn.
 */
import { axisBottom, axisLeft, line, scaleLinear, select } from 'd3';
import type { Evidence, LabelInfo } from '../../src/report/contract.js';
import { h } from '../dom.js';
import { attachTip } from '../tooltip.js';

const W = 760;
const H = 240;
const M = { top: 26, right: 16, bottom: 34, left: 56 };

const PERIOD_TEXT: Record<string, string> = {
  'probe-bw': 'ProbeBW bump (+25% for one RTT)',
  'probe-rtt': 'ProbeRTT dip',
  'backoff-cycle': 'regular back-off',
  oscillation: 'periodic oscillation',
};

function smoothedAt(e: Evidence, t: number): number {
  const { t0, dt, bif } = e.smoothed;
  if (bif.length === 0) return 0;
  if (dt <= 0) return bif[0];
  const i = Math.max(0, Math.min(bif.length - 1, Math.round((t - t0) / dt)));
  return bif[i];
}

function rangeIn(e: Evidence, a: number, b: number): [number, number] {
  const { t0, dt, bif } = e.smoothed;
  let lo = Infinity;
  let hi = -Infinity;
  bif.forEach((y, i) => {
    const t = t0 + i * dt;
    if (t >= a && t <= b) {
      lo = Math.min(lo, y);
      hi = Math.max(hi, y);
    }
  });
  return Number.isFinite(lo) ? [lo, hi] : [0, 0];
}

export function bifChart(e: Evidence, label: LabelInfo): { svg: SVGSVGElement; legend: HTMLElement } {
  const { t0, dt, bif } = e.smoothed;
  const pts = bif.map((y, i) => [t0 + i * dt, y] as [number, number]);
  const raw = e.raw ? e.raw.t.map((t, i) => [t, e.raw!.bif[i]] as [number, number]) : [];
  const tMax = Math.max(1e-3, ...pts.map((p) => p[0]), ...raw.map((p) => p[0]), ...e.segments.map((s) => s.tEnd));
  const yMax = Math.max(1, ...pts.map((p) => p[1]), ...raw.map((p) => p[1])) * 1.12;
  const x = scaleLinear().domain([0, tMax]).range([M.left, W - M.right]);
  const y = scaleLinear().domain([0, yMax]).range([H - M.bottom, M.top]).nice();
  const svg = select(document.createElementNS('http://www.w3.org/2000/svg', 'svg'))
    .attr('viewBox', `0 0 ${W} ${H}`)
    .attr('class', 'chart bif')
    .attr('role', 'img')
    .attr('aria-label', `Bytes in flight over time with the classifier's evidence (${label.name})`);
  const shown: Array<[string, string]> = [];

  // Segments first (background), judged ones tinted with the verdict's colour.
  e.segments.forEach((s) => {
    const g = svg.append('g').attr('class', 'segment').attr('tabindex', 0);
    g.append('rect').attr('x', x(s.tStart)).attr('y', M.top).attr('width', Math.max(1, x(s.tEnd) - x(s.tStart))).attr('height', H - M.top - M.bottom)
      .attr('fill', s.usable ? label.color : '#000').attr('fill-opacity', s.usable ? 0.14 : 0.04);
    const wide = x(s.tEnd) - x(s.tStart) > 60;
    g.append('text').attr('class', 'seg-index').attr('x', x(s.tStart) + 3).attr('y', M.top + 11).text(`S${s.index}${s.polynomial && wide ? ` · deg ${s.polynomial.degree}` : ''}`);
    attachTip(g.node()!, () => [
      `segment S${s.index}: ${s.tStart.toFixed(2)}–${s.tEnd.toFixed(2)} s`,
      ['judged', s.usable ? 'yes' : `no${s.dropReason ? ` (${s.dropReason})` : ''}`],
      ['fit', s.polynomial ? `degree ${s.polynomial.degree}${s.polynomial.mse !== undefined ? `, MSE ${s.polynomial.mse.toExponential(2)}` : ''}` : 'none'],
      ['coefficients', s.polynomial ? s.polynomial.coefficients.map((c) => c.toFixed(3)).join(', ') : '–'],
      ['voted for', s.match ?? '–'],
    ]);
  });
  if (e.segments.length) shown.push(['seg', 'segments between back-offs (tinted = judged by the shape classifier)']);

  if (raw.length) {
    svg.append('path').attr('class', 'raw').attr('d', line().x((p) => x(p[0])).y((p) => y(p[1]))(raw) ?? '');
    shown.push(['raw', 'raw bytes in flight']);
  }
  const curve = line().x((p) => x(p[0])).y((p) => y(p[1]));
  svg.append('path').attr('class', 'smoothed-halo').attr('d', curve(pts) ?? '');
  svg.append('path').attr('class', 'smoothed').attr('d', curve(pts) ?? '').attr('stroke', label.kind === 'cca' ? label.color : '#444');
  shown.push(['smoothed', 'smoothed (low-pass at 1/RTT)']);

  // Fitted polynomials in real units (the fit is on the segment normalised to [0, 1]).
  let fits = 0;
  for (const s of e.segments) {
    const p = s.polynomial;
    if (!p) continue;
    const [lo, hi] = s.bifMin !== undefined && s.bifMax !== undefined ? [s.bifMin, s.bifMax] : rangeIn(e, s.tStart, s.tEnd);
    const fit: Array<[number, number]> = [];
    for (let k = 0; k <= 40; k++) {
      const u = k / 40;
      let v = 0;
      for (let j = p.coefficients.length - 1; j >= 0; j--) v = v * u + p.coefficients[j];
      fit.push([s.tStart + u * (s.tEnd - s.tStart), lo + v * (hi - lo)]);
    }
    svg.append('path').attr('class', 'fit').attr('d', curve(fit) ?? '');
    fits++;
  }
  if (fits) shown.push(['fit', 'fitted polynomial per segment (its degree after the segment’s name)']);

  if (e.slowStartEndSeconds !== null && e.slowStartEndSeconds !== undefined) {
    svg.append('line').attr('class', 'slowstart').attr('x1', x(e.slowStartEndSeconds)).attr('x2', x(e.slowStartEndSeconds)).attr('y1', M.top).attr('y2', H - M.bottom);
    svg.append('text').attr('class', 'mark-label').attr('x', x(e.slowStartEndSeconds) + 3).attr('y', H - M.bottom - 4).text('slow start ends');
  }

  for (const b of e.backoffs) {
    const bx = x(b.tPeak);
    const by = y(smoothedAt(e, b.tPeak)) - 6;
    const g = svg.append('g').attr('class', 'backoff').attr('tabindex', 0);
    g.append('path').attr('d', `M${bx - 5},${by - 8} L${bx + 5},${by - 8} L${bx},${by} Z`);
    attachTip(g.node()!, () => [`back-off at ${b.tPeak.toFixed(2)} s`, ['depth', `${Math.round(b.depth * 100)}% of the peak`], ['trough', `${b.tTrough.toFixed(2)} s`]]);
  }
  if (e.backoffs.length) shown.push(['backoff', `back-off (${e.backoffs.length})`]);

  for (const p of e.periods) {
    const every = `every ${p.periodSeconds.toFixed(2)} s${p.periodRtts ? ` (${p.periodRtts.toFixed(1)} RTT)` : ''}${p.strength !== undefined ? `, strength ${p.strength.toFixed(2)}` : ''}`;
    const what = PERIOD_TEXT[p.kind] ?? p.kind;
    if (p.kind === 'probe-bw') {
      for (const t of p.marks) {
        const mx = x(t);
        const my = y(smoothedAt(e, t)) - 8;
        const g = svg.append('g').attr('class', 'probe-bw').attr('tabindex', 0);
        g.append('path').attr('d', `M${mx - 5},${my} L${mx + 5},${my} L${mx},${my - 8} Z`);
        attachTip(g.node()!, () => [`${what} at ${t.toFixed(2)} s`, ['period', every]]);
      }
    } else {
      for (const t of p.marks) {
        const g = svg.append('g').attr('class', `period-mark ${p.kind === 'probe-rtt' ? 'probe-rtt' : 'cycle'}`).attr('tabindex', 0);
        g.append('line').attr('x1', x(t)).attr('x2', x(t)).attr('y1', M.top - 10).attr('y2', H - M.bottom);
        const nearEnd = x(t) > W - M.right - 70;
        g.append('text').attr('class', 'mark-label').attr('x', x(t) + (nearEnd ? -3 : 3)).attr('y', M.top - 2).attr('text-anchor', nearEnd ? 'end' : 'start')
          .text(p.kind === 'probe-rtt' ? 'ProbeRTT' : p.kind === 'backoff-cycle' ? 'cycle' : p.kind);
        attachTip(g.node()!, () => [`${what} at ${t.toFixed(2)} s`, ['period', every]]);
      }
    }
    shown.push([p.kind === 'probe-bw' ? 'probe-bw' : p.kind === 'probe-rtt' ? 'probe-rtt' : 'cycle', `${what}: ${every}${p.marks.length ? ` (${p.marks.length} marked)` : ''}`]);
  }

  svg.append('g').attr('class', 'axis').attr('transform', `translate(0, ${H - M.bottom})`).call(axisBottom(x).ticks(10).tickFormat((d) => `${d}`));
  svg.append('g').attr('class', 'axis').attr('transform', `translate(${M.left}, 0)`).call(axisLeft(y).ticks(5).tickFormat((d) => `${(Number(d) / 1000).toFixed(0)}`));
  svg.append('text').attr('class', 'axis-title').attr('x', W - M.right).attr('y', H - 4).attr('text-anchor', 'end').text('seconds since the flow’s first packet');
  svg.append('text').attr('class', 'axis-title').attr('x', 4).attr('y', 12).text('KB in flight');

  const legendEl = h('ul', { class: 'bif-legend' }, ...shown.map(([cls, text]) => {
    const key = h('span', { class: `key key-${cls}`, attrs: { 'aria-hidden': 'true' } });
    if (cls === 'seg') key.style.background = label.color;
    if (cls === 'smoothed') key.style.borderTopColor = label.kind === 'cca' ? label.color : '#444';
    return h('li', null, key, text);
  }));
  return { svg: svg.node()!, legend: legendEl };
}
