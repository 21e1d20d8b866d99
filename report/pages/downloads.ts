/** Downloads: the data behind every page, as CSV (spreadsheets) and JSON (scripts). */
import type { DownloadsView } from '../../src/report/contract.js';
import type { Ctx } from '../context.js';
import { emptyState, h, link } from '../dom.js';
import { fmtBytes, fmtInt } from '../format.js';

function blobButton(name: string, content: string, format: 'csv' | 'json'): HTMLButtonElement {
  return h('button', {
    class: 'small',
    on: {
      click: () => {
        // Single file: the data is embedded, so the file is made here. The object URL is
        // ours (blob:), set as a property, never taken from data.
        const url = URL.createObjectURL(new Blob([content], { type: format === 'csv' ? 'text/csv' : 'application/json' }));
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      },
    },
  }, 'download');
}

export function downloadsPage(ctx: Ctx, v: DownloadsView): HTMLElement {
  const root = h('section', { class: 'page downloads' }, h('h1', null, 'Downloads'));
  if (v.files.length === 0 || ctx.common.summary.runs === 0) {
    root.appendChild(emptyState('Nothing to download: the store is empty.'));
    return root;
  }
  root.append(
    h('p', { class: 'note' }, 'The data behind these pages. CSV opens in spreadsheets (cells that would read as formulas are prefixed with an apostrophe); JSON holds the same table as {"columns": [...], "data": [[...], ...]} (pandas: read_json(file, orient="split")). Traces (evidence) stay in the results store and the run directories.'),
    h(
      'table',
      { class: 'files' },
      h('thead', null, h('tr', null, ...['File', 'What', 'Rows', 'Size', ''].map((c) => h('th', { attrs: { scope: 'col' } }, c)))),
      h(
        'tbody',
        null,
        ...v.files.map((f) =>
          h(
            'tr',
            null,
            h('td', { class: 'mono' }, f.name),
            h('td', null, f.description),
            h('td', null, fmtInt(f.rows)),
            h('td', null, fmtBytes(f.bytes)),
            h('td', null, f.path !== undefined ? withDownload(link(f.path, 'download'), f.name) : blobButton(f.name, f.content ?? '', f.format)),
          ),
        ),
      ),
    ),
  );
  return root;
}

function withDownload(a: HTMLAnchorElement, name: string): HTMLAnchorElement {
  a.setAttribute('download', name);
  return a;
}
