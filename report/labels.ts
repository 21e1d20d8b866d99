/** Label chips and the legend: colour plus the label's text, always both. */
import type { LabelInfo } from '../src/report/contract.js';
import { h } from './dom.js';

export function chip(l: LabelInfo, extra?: string): HTMLSpanElement {
  const c = h('span', { class: 'chip' }, l.name, extra ? h('span', { class: 'chip-extra' }, extra) : null);
  c.style.background = l.color;
  c.style.color = l.ink;
  return c;
}

export function swatch(l: LabelInfo): HTMLSpanElement {
  const s = h('span', { class: 'swatch', attrs: { 'aria-hidden': 'true' } });
  s.style.background = l.color;
  return s;
}

const KIND_TEXT: Record<string, string> = {
  cca: 'congestion control',
  unknown: 'judged, matched nothing known',
  'short-flow': 'too short to judge',
  'application-limited': 'sender idle or app-limited',
  media: 'real-time media (no TCP-like CCA)',
};

/** Legend for the given labels (indexes into ctx.labels), in legend order. */
export function legend(labels: LabelInfo[], used?: Set<number>): HTMLElement {
  const items = labels
    .map((l, i) => ({ l, i }))
    .filter(({ i }) => !used || used.has(i))
    .map(({ l }) => h('li', { title: KIND_TEXT[l.kind] ?? l.kind }, swatch(l), h('span', null, l.name)));
  return h('ul', { class: 'legend', attrs: { 'aria-label': 'Legend: colours of the verdict labels' } }, ...items);
}
