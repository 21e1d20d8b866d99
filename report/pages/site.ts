/**
 * One site: its row of the matrix per region, its runs, and for the chosen run and profile
 * the request waterfall coloured by verdict and every flow's trace with the evidence.
 */
import { decodeAssets, decodeCell, type AssetRecord, type SiteFlowView, type SiteRunView, type SiteView } from '../../src/report/contract.js';
import { bifChart } from '../charts/bif.js';
import { waterfall, type FlowTag } from '../charts/waterfall.js';
import type { Ctx } from '../context.js';
import { clear, emptyState, h, link } from '../dom.js';
import { fmtBytes, fmtConf, fmtInt, fmtMs, fmtPct } from '../format.js';
import { chip, legend } from '../labels.js';

export function sitePage(ctx: Ctx, v: SiteView): HTMLElement {
  const root = h(
    'section',
    { class: 'page site' },
    h('p', { class: 'crumbs' }, link(ctx.pageHref('matrix'), 'Matrix'), ' › site'),
    h('h1', { class: 'site-name' }, v.site),
  );
  root.appendChild(snapshotTable(ctx, v));
  if (v.runs.length === 0) {
    root.appendChild(emptyState('No runs for this site.'));
    return root;
  }
  const detail = h('div', { class: 'run-detail' });
  let current = v.runs.findIndex((r) => r.detailed && r.status === 'complete');
  if (current < 0) current = Math.max(0, v.runs.findIndex((r) => r.detailed));
  const buttons: HTMLButtonElement[] = [];
  const select = (i: number): void => {
    current = i;
    buttons.forEach((b, j) => b.setAttribute('aria-pressed', String(j === i)));
    clear(detail);
    detail.appendChild(runDetail(ctx, v.runs[i]));
  };
  const runsTable = h(
    'table',
    { class: 'runs' },
    h('caption', null, `Runs (${v.runs.length}), newest first`),
    h('thead', null, h('tr', null, ...['', 'Region', 'Date', 'Scenario', 'Mode', 'Status', 'Profiles', 'Flows', 'Assets', 'Model'].map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
    h(
      'tbody',
      null,
      ...v.runs.map((r, i) => {
        const b = r.detailed
          ? h('button', { class: 'small', attrs: { 'aria-pressed': 'false', 'data-run': i }, on: { click: () => select(i) } }, 'show')
          : h('button', { class: 'small', attrs: { disabled: true, title: 'This report keeps flows and traces of each region’s latest date; older runs are in the results store (build with site history “all” to include them).' } }, 'summary');
        buttons.push(b);
        return h(
          'tr',
          { class: r.status === 'incomplete' ? 'incomplete' : '' },
          h('td', null, b),
          h('td', null, r.region),
          h('td', null, r.date),
          h('td', null, `${r.scenario.name} (${r.scenario.kind})`),
          h('td', null, r.mode),
          h('td', { title: r.incompleteReason ?? '' }, r.status === 'complete' ? 'complete' : `incomplete: ${r.incompleteReason ?? ''}`),
          h('td', null, r.profiles.map((p) => p.name).join(', ')),
          h('td', null, fmtInt(r.flowCount)),
          h('td', null, fmtInt(r.assetCount)),
          h('td', null, r.versions.model ?? '–'),
        );
      }),
    ),
  );
  root.append(h('section', { class: 'card' }, h('h2', null, 'Runs'), h('div', { class: 'table-scroll' }, runsTable)), detail);
  select(current);
  return root;
}

function snapshotTable(ctx: Ctx, v: SiteView): HTMLElement {
  const R = v.regions.length;
  const used = new Set<number>();
  const rows = v.assetTypes
    .map((t, ti) => ({ t, ti, codes: v.regions.map((_, r) => v.cells[ti * R + r] ?? -1) }))
    .filter((x) => x.codes.some((c) => c >= 0));
  if (rows.length === 0) return h('section', { class: 'card' }, h('h2', null, 'Latest verdicts by asset type'), emptyState('No asset of this site could be tied to a judged flow.'));
  const table = h(
    'table',
    { class: 'snapshot' },
    h('caption', null, 'Latest verdict per asset type and region (label, confidence); ≠ = differs across regions'),
    h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, 'Asset type'), ...v.regions.map((r) => h('th', { attrs: { scope: 'col' } }, r)))),
    h(
      'tbody',
      null,
      ...rows.map(({ t, ti, codes }) => {
        const differs = (v.differs >> ti) & 1;
        return h(
          'tr',
          { class: differs ? 'differs' : '' },
          h('th', { attrs: { scope: 'row' } }, t, differs ? h('span', { class: 'badge', title: 'differs across regions' }, '≠') : null),
          ...codes.map((c) => {
            const d = decodeCell(c);
            if (!d) return h('td', { class: 'none' }, '–');
            used.add(d.label);
            const l = ctx.labels[d.label];
            return h('td', null, chip(l, l.kind === 'cca' ? fmtConf(d.confidence) : undefined));
          }),
        );
      }),
    ),
  );
  return h('section', { class: 'card' }, h('h2', null, 'Latest verdicts by asset type'), legend(ctx.labels, used), h('div', { class: 'table-scroll' }, table));
}

function labelIndex(ctx: Ctx): Map<string, number> {
  return new Map(ctx.labels.map((l, i) => [l.name, i]));
}

function runDetail(ctx: Ctx, r: SiteRunView): HTMLElement {
  const meta = h(
    'dl',
    { class: 'meta' },
    ...([
      ['Run', r.runId],
      ['Start URL', r.startUrl],
      ['Scenario', `${r.scenario.name} (${r.scenario.kind}, ${r.scenario.file})`],
      ['Region / mode', `${r.region} / ${r.mode}`],
      ['Started', r.startedAt],
      ['Ended', r.endedAt ?? 'did not finish'],
      ['Status', r.status === 'complete' ? 'complete' : `incomplete: ${r.incompleteReason ?? ''}`],
      ['Repeat', r.repeat ? `${r.repeat.index} of ${r.repeat.of}` : '–'],
      ['Versions', `ccbrowse ${r.versions.tool} · ${r.versions.browser} · model ${r.versions.model ?? '–'}`],
    ] as Array<[string, string]>).flatMap(([k, val]) => [h('dt', null, k), h('dd', null, val)]),
  );
  const body = h('div', { class: 'profile-body' });
  const profiles = r.profiles.map((p) => p.name);
  const assets = decodeAssets(r.assets);
  const tabs = h('div', { class: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Network profile' } });
  const show = (name: string): void => {
    for (const b of tabs.querySelectorAll('button')) b.setAttribute('aria-selected', String(b.getAttribute('data-profile') === name));
    clear(body);
    body.appendChild(profileDetail(ctx, r, assets, name));
  };
  for (const p of r.profiles) {
    const desc = [p.rateKbit !== undefined ? `${p.rateKbit} kbit/s` : '', p.delayMs !== undefined ? `${p.delayMs} ms one-way` : ''].filter(Boolean).join(', ');
    tabs.appendChild(h('button', { attrs: { role: 'tab', 'data-profile': p.name }, on: { click: () => show(p.name) } }, p.name, desc ? h('span', { class: 'muted' }, ` (${desc})`) : null));
  }
  const wrap = h('section', { class: 'card' }, h('h2', null, `Run in ${r.region} on ${r.date}`), meta, tabs, body);
  if (profiles.length) show(profiles[0]);
  return wrap;
}

function profileDetail(ctx: Ctx, r: SiteRunView, runAssets: AssetRecord[], profile: string): HTMLElement {
  const L = labelIndex(ctx);
  const flows = r.flows.filter((f) => f.profile === profile);
  const assets = runAssets.filter((a) => a.profile === profile);
  const tags = new Map<string, FlowTag>();
  const used = new Set<number>();
  for (const f of flows) {
    if (!f.verdict) continue;
    const li = L.get(f.verdict.label);
    if (li === undefined) continue;
    tags.set(f.id, { label: li, confidence: f.verdict.confidence, protocol: f.protocol });
  }
  for (const a of assets) if (a.flowId !== null && tags.has(a.flowId)) used.add(tags.get(a.flowId)!.label);
  const out = h('div', null);
  if (assets.length === 0) out.appendChild(emptyState('No requests recorded for this profile.', r.status === 'incomplete' ? 'The run stopped before this session loaded anything.' : ''));
  else {
    const wf = waterfall(assets, tags, ctx.labels);
    const uncorrelated = assets.filter((a) => a.flowId === null).length;
    out.append(
      h('h3', null, 'Request waterfall'),
      h('p', { class: 'note' }, `${fmtInt(assets.length)} requests${wf.shown < assets.length ? `, first ${wf.shown} by start time shown` : ''}; bars coloured by the verdict of the flow that carried each.${uncorrelated ? ` ${uncorrelated} not tied to a flow (hatched).` : ''}`),
      legend(ctx.labels, used),
      h('div', { class: 'chart-scroll' }, wf.svg),
    );
  }
  out.appendChild(h('h3', null, `Flows (${flows.length})`));
  if (flows.length === 0) out.appendChild(emptyState('No flows captured for this profile.'));
  const sorted = flows.slice().sort((a, b) => b.bytes.down - a.bytes.down);
  const cards = sorted.map((f) => flowCard(ctx, f, L, assets.filter((a) => a.flowId === f.id)));
  out.append(...cards.map((c) => c.el));
  lazyDraw(cards);
  return out;
}

interface Card {
  el: HTMLElement;
  draw: () => void;
}

/** Charts are drawn when their card scrolls into view (sites with dozens of flows stay fast). */
function lazyDraw(cards: Card[]): void {
  if (typeof IntersectionObserver === 'undefined') {
    cards.forEach((c) => c.draw());
    return;
  }
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        io.unobserve(e.target);
        cards.find((c) => c.el === e.target)?.draw();
      }
    },
    { rootMargin: '400px' },
  );
  cards.forEach((c) => io.observe(c.el));
}

function flowCard(ctx: Ctx, f: SiteFlowView, L: Map<string, number>, assets: AssetRecord[]): Card {
  const v = f.verdict;
  const l = v ? ctx.labels[L.get(v.label) ?? -1] : undefined;
  const types = [...new Set(assets.map((a) => a.assetType))].join(', ') || 'no assets';
  const head = h(
    'div',
    { class: 'flow-head' },
    l ? chip(l, l.kind === 'cca' && v ? fmtConf(v.confidence) : undefined) : h('span', { class: 'chip none' }, 'no verdict'),
    h('span', { class: 'flow-id' }, f.id),
    h('span', null, `${f.protocol} · ${f.serverName ?? f.server.ip}:${f.server.port}`),
  );
  const facts = h(
    'p',
    { class: 'flow-facts' },
    `${fmtBytes(f.bytes.down)} down, ${fmtBytes(f.bytes.up)} up · ${fmtInt(f.packets.down)} packets down · ${fmtMs(f.durationMs)} · RTT ${f.rttMs === null ? 'unknown' : fmtMs(f.rttMs)} · retransmissions ${f.retransmissions ?? 'unknown'} · BiF ${f.bifMethod} · carried ${assets.length} assets (${types})`,
  );
  const chartHost = h('div', { class: 'chart-host' });
  const el = h('article', { class: 'flow card-inner', attrs: { 'data-flow': f.id } }, head, facts);
  if (v) {
    el.appendChild(h('p', { class: 'reason' }, h('strong', null, 'Why: '), v.reason || '–'));
    if (v.posterior.length) {
      el.appendChild(
        h(
          'ul',
          { class: 'posterior', attrs: { 'aria-label': 'Per-class posterior' } },
          ...v.posterior.slice(0, 6).map(([name, p]) => {
            const bar = h('span', { class: 'post-bar' });
            bar.style.width = `${Math.round(p * 100)}%`;
            return h('li', null, h('span', { class: 'post-name' }, name), h('span', { class: 'post-track' }, bar), h('span', { class: 'post-val' }, fmtPct(p, 0)));
          }),
        ),
      );
    }
  }
  el.appendChild(chartHost);
  let drawn = false;
  const draw = (): void => {
    if (drawn) return;
    drawn = true;
    if (!v || !v.evidence || v.evidence.smoothed.bif.length === 0) {
      chartHost.appendChild(h('p', { class: 'muted' }, v ? `No trace to draw (${v.label}).` : 'This flow was not analysed.'));
      return;
    }
    const c = bifChart(v.evidence, l ?? { name: v.label, kind: v.kind, color: '#6e6e6e', ink: '#fff', short: v.label });
    chartHost.append(h('div', { class: 'chart-scroll' }, c.svg), c.legend);
  };
  return { el, draw };
}
