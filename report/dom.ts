/**
 * Building DOM without HTML strings: every piece of data becomes a text node or an attribute
 * value, never markup. Event-handler attributes, inline styles and non-relative links are
 * refused outright, so a slip in a page cannot turn data into code.
 */
type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: Partial<Record<keyof HTMLElementEventMap, (e: Event) => void>>;
}

/** Links may only point inside the report: relative paths and #fragments we build ourselves. */
export function isSafeHref(href: string): boolean {
  return /^(#[A-Za-z0-9/_.=&%-]*|(\.\.\/)*[A-Za-z0-9_-][A-Za-z0-9/_.-]*(#[A-Za-z0-9/_.=&%-]*)?)$/.test(href) && !href.includes('..//');
}

export function setAttr(el: Element, name: string, value: string): void {
  const n = name.toLowerCase();
  if (n.startsWith('on') || n === 'style' || n === 'srcdoc') throw new Error(`refusing attribute ${name}`);
  if ((n === 'href' || n === 'src' || n === 'xlink:href' || n === 'action') && !isSafeHref(value)) throw new Error(`refusing ${name}=${JSON.stringify(value)}`);
  el.setAttribute(name, value);
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.text !== undefined) el.textContent = props.text;
    if (props.title !== undefined) el.title = props.title;
    for (const [k, v] of Object.entries(props.attrs ?? {})) {
      if (v === undefined || v === false) continue;
      setAttr(el, k, v === true ? '' : String(v));
    }
    for (const [ev, fn] of Object.entries(props.on ?? {})) if (fn) el.addEventListener(ev, fn);
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** A link inside the report. */
export function link(href: string, text: string, cls?: string): HTMLAnchorElement {
  return h('a', { class: cls, attrs: { href } }, text);
}

export function emptyState(title: string, ...lines: Child[]): HTMLElement {
  return h('div', { class: 'empty', attrs: { role: 'status' } }, h('p', { class: 'empty-title' }, title), ...lines.map((l) => (typeof l === 'string' ? h('p', null, l) : l)));
}
