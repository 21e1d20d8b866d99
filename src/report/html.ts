/**
 * The HTML shell of every page. Data goes in a <script type="application/json"> block (never
 * executed, read with textContent), with every character that could end the block or open a
 * comment escaped; the only other text from data is the <title>, HTML-escaped. A strict
 * Content-Security-Policy allows our own script and style only: nothing inline that is not
 * ours (single file: by hash), no network, no plugins, no forms, no <base>.
 */
import { createHash } from 'node:crypto';

/** JSON that is safe inside <script type="application/json"> and in any HTML context. */
const UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

export function safeJson(value: unknown): string {
  // One pass; inside JSON these characters only occur in strings, where \uXXXX means the same.
  return JSON.stringify(value).replace(UNSAFE, (c) => ESCAPES[c]);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** For attribute values in double quotes: only & and " matter there. */
function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export function contentSecurityPolicy(src: { script: string; style: string }): string {
  return [
    "default-src 'none'",
    `script-src ${src.script}`,
    `style-src ${src.style}`,
    "img-src 'none'",
    "connect-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export type Assets =
  | { kind: 'linked'; root: string }
  | { kind: 'inline'; js: string; css: string };

export function pageHtml(opts: { title: string; data: unknown; assets: Assets }): string {
  const { assets } = opts;
  // An inline script must not contain "</script" (our bundle is ours, but check anyway).
  if (assets.kind === 'inline' && /<\/script/i.test(assets.js)) throw new Error('bundle contains </script: cannot inline it');
  if (assets.kind === 'inline' && /<\/style/i.test(assets.css)) throw new Error('stylesheet contains </style: cannot inline it');
  const csp =
    assets.kind === 'linked'
      ? contentSecurityPolicy({ script: "'self'", style: "'self'" })
      : contentSecurityPolicy({ script: sha256(assets.js), style: sha256(assets.css) });
  const head =
    assets.kind === 'linked'
      ? `<link rel="stylesheet" href="${escapeHtml(assets.root)}assets/report.css">`
      : `<style>${assets.css}</style>`;
  const script =
    assets.kind === 'linked' ? `<script src="${escapeHtml(assets.root)}assets/report.js"></script>` : `<script>${assets.js}</script>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
${head}
</head>
<body>
<noscript><p class="noscript">This report draws its pages with JavaScript (bundled; it makes no network requests). Enable JavaScript to read it, or use the CSV and JSON files in data/.</p></noscript>
<div id="app"></div>
<script type="application/json" id="ccb-data">${safeJson(opts.data)}</script>
${script}
</body>
</html>
`;
}
