/**
 * One tooltip for the page. Content is a list of lines (text only). Pages attach it to an
 * element (or delegate from a container) with a function that returns the lines.
 */
import { h, clear } from './dom.js';

let tip: HTMLDivElement | null = null;

function el(): HTMLDivElement {
  if (!tip) {
    tip = h('div', { class: 'tooltip', attrs: { role: 'tooltip', 'aria-hidden': 'true' } });
    document.body.appendChild(tip);
  }
  return tip;
}

export type TipLine = string | [string, string];

export function showTip(lines: TipLine[], x: number, y: number): void {
  const t = el();
  clear(t);
  for (const l of lines) {
    if (typeof l === 'string') t.appendChild(h('div', { class: 'tip-line' }, l));
    else t.appendChild(h('div', { class: 'tip-row' }, h('span', { class: 'tip-key' }, l[0]), h('span', { class: 'tip-val' }, l[1])));
  }
  t.classList.add('visible');
  const pad = 14;
  const { innerWidth: W, innerHeight: H } = window;
  const r = t.getBoundingClientRect();
  const left = x + pad + r.width > W ? Math.max(4, x - pad - r.width) : x + pad;
  const top = y + pad + r.height > H ? Math.max(4, y - pad - r.height) : y + pad;
  t.style.left = `${left + window.scrollX}px`;
  t.style.top = `${top + window.scrollY}px`;
}

export function hideTip(): void {
  tip?.classList.remove('visible');
}

/** Tooltip on hover and on keyboard focus (for elements with tabindex). */
export function attachTip(target: Element, lines: () => TipLine[]): void {
  target.addEventListener('mousemove', (e) => {
    const m = e as MouseEvent;
    showTip(lines(), m.clientX, m.clientY);
  });
  target.addEventListener('mouseleave', hideTip);
  target.addEventListener('focus', () => {
    const r = target.getBoundingClientRect();
    showTip(lines(), r.right, r.top);
  });
  target.addEventListener('blur', hideTip);
}
