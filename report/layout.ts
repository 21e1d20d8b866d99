/** The frame around every page: title, navigation, what the report covers, footer. */
import type { PageName } from '../src/report/contract.js';
import type { Ctx } from './context.js';
import { h, link } from './dom.js';
import { fmtInt } from './format.js';

const NAV: Array<[Exclude<PageName, 'site'>, string]> = [
  ['landscape', 'Landscape'],
  ['matrix', 'Matrix'],
  ['changes', 'Changes over time'],
  ['lab', 'Lab accuracy'],
  ['downloads', 'Downloads'],
];

export function frame(ctx: Ctx, current: PageName, content: HTMLElement): HTMLElement {
  const s = ctx.common.summary;
  const nav = h(
    'nav',
    { attrs: { 'aria-label': 'Report pages' } },
    h('ul', null, ...NAV.map(([page, text]) => {
      const a = link(ctx.pageHref(page), text);
      if (page === current) a.setAttribute('aria-current', 'page');
      return h('li', null, a);
    })),
  );
  const dates = s.dates.length === 0 ? 'no dates' : s.dates.length === 1 ? s.dates[0] : `${s.dates[0]} to ${s.dates[s.dates.length - 1]} (${s.dates.length} dates)`;
  const facts = h(
    'p',
    { class: 'facts' },
    `${fmtInt(s.sites)} sites · ${fmtInt(s.regions.length)} regions · ${fmtInt(s.runs)} runs`,
    s.incompleteRuns ? ` (${fmtInt(s.incompleteRuns)} incomplete)` : '',
    ` · ${fmtInt(s.flows)} flows · ${fmtInt(s.assets)} assets · ${dates}`,
  );
  return h(
    'div',
    { class: 'frame' },
    h('header', { class: 'top' }, h('div', { class: 'brand' }, h('span', { class: 'logo', attrs: { 'aria-hidden': 'true' } }, 'cc'), h('span', null, ctx.common.title)), nav),
    h('main', { attrs: { id: 'main' } }, facts, content),
    h(
      'footer',
      null,
      h('p', null, `Generated ${ctx.common.generatedAt.replace('T', ' ').slice(0, 16)} UTC by ccbrowse. `,
        'Verdicts come from the shape of each flow’s bytes in flight (Nebby’s method); “Short flow”, “Unknown” and “Application-limited” are honest non-answers, not CCAs. ',
        'Colours follow the Okabe-Ito palette and every colour is also written as text.'),
    ),
  );
}
