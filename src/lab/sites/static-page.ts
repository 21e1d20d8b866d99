/**
 * A news-like static page of realistic weight (well over 1 MB): HTML, several scripts that
 * really run, stylesheets, two web fonts and images from the images origin. Text and code
 * come from a seeded generator so every build is byte-identical (idempotent, diff-free).
 */
import { mulberry32 } from '../../util/random.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MissingPrerequisiteError } from '../../util/errors.js';
import { copyIfChanged, writeIfChanged } from './fs-util.js';

/** Fonts from Debian's fonts-dejavu-core: honest TrueType files, no generator needed. */
export const FONT_FILES = {
  body: '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf',
  heading: '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
} as const;

const SCRIPTS = ['vendor-framework', 'vendor-analytics', 'widgets', 'app'] as const;
const WORDS = (
  'network packet congestion window latency bandwidth browser server stream video segment ' +
  'buffer queue router fibre satellite mobile tower city council market river weather season ' +
  'report analysis policy energy transport festival science school harbour station bridge ' +
  'committee research engineers protocol measurement delay throughput capacity village coast'
).split(' ');

/** The project's seeded PRNG (util/random.ts), so generated content is stable across builds. */
export const prng = mulberry32;

/** A sentence of min..max-1 words from the lab vocabulary. */
export function sentence(rnd: () => number, min = 8, max = 20): string {
  const n = min + Math.floor(rnd() * (max - min));
  const w = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
  return w.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.';
}

export interface StaticPageInput {
  imagesBase: string;
  photos: string[];
  thumbs: string[];
}

export async function buildStaticPage(dir: string, input: StaticPageInput): Promise<void> {
  for (const [role, path] of Object.entries(FONT_FILES)) {
    if (!existsSync(path)) {
      throw new MissingPrerequisiteError(`font for the static lab page (${role}) not found: ${path}`, 'apt-get install fonts-dejavu-core');
    }
  }
  await copyIfChanged(FONT_FILES.body, join(dir, 'fonts', 'LabSerif.ttf'));
  await copyIfChanged(FONT_FILES.heading, join(dir, 'fonts', 'LabSansBold.ttf'));
  await writeIfChanged(join(dir, 'css', 'main.css'), mainCss());
  await writeIfChanged(join(dir, 'css', 'layout.css'), layoutCss(prng(7)));
  for (const [i, name] of SCRIPTS.entries()) {
    await writeIfChanged(join(dir, 'js', `${name}.js`), script(name, prng(100 + i)));
  }
  await writeIfChanged(join(dir, 'index.html'), html(input, prng(1)));
}

function html(input: StaticPageInput, rnd: () => number): string {
  const img = (f: string) => new URL(f, input.imagesBase).href;
  const articles = input.photos
    .map((photo, i) => {
      const paras = Array.from({ length: 14 }, () => `<p>${Array.from({ length: 5 }, () => sentence(rnd)).join(' ')}</p>`);
      return `<article class="story c-${i % 40}">
  <h2>${sentence(rnd, 4, 9).slice(0, -1)}</h2>
  <img src="${img(photo)}" width="960" height="540" alt="photo ${i + 1}">
  ${paras.join('\n  ')}
</article>`;
    })
    .join('\n');
  const thumbs = input.thumbs
    .map((t, i) => `<li><img src="${img(t)}" width="240" height="135" alt="thumbnail ${i + 1}"><span>${sentence(rnd, 3, 6)}</span></li>`)
    .join('\n');
  const scriptTags = SCRIPTS.map((s, i) => `<script src="js/${s}.js"${i < 2 ? ' defer' : ''}></script>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>The Lab Gazette</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script>window.__ccb = { kind: 'static', scripts: [], errors: [], ready: false };
addEventListener('error', (e) => window.__ccb.errors.push(String(e.message || e.target?.src || e.type)), true);</script>
<link rel="stylesheet" href="css/main.css">
<link rel="stylesheet" href="css/layout.css">
${scriptTags.slice(0, 2).join('\n')}
</head>
<body>
<header><h1>The Lab Gazette</h1><nav>${WORDS.slice(0, 8).map((w) => `<a href="#${w}">${w}</a>`).join(' ')}</nav></header>
<main>
${articles}
</main>
<aside><h3>Most watched</h3><ul class="thumbs">
${thumbs}
</ul></aside>
<footer>Generated for the ccbrowse lab. All text is synthetic.</footer>
${scriptTags.slice(2).join('\n')}
</body>
</html>
`;
}

function mainCss(): string {
  return `@font-face { font-family: LabSerif; src: url(../fonts/LabSerif.ttf) format("truetype"); font-display: block; }
@font-face { font-family: LabSansBold; src: url(../fonts/LabSansBold.ttf) format("truetype"); font-weight: bold; font-display: block; }
body { font-family: LabSerif, serif; margin: 0; background: #faf8f3; color: #222; }
h1, h2, h3, nav { font-family: LabSansBold, sans-serif; }
header { background: #1d3557; color: #fff; padding: 12px 24px; }
header a { color: #ffd166; margin-right: 12px; }
main { float: left; width: 68%; padding: 0 24px; }
aside { float: right; width: 26%; padding-right: 12px; }
.story img { width: 100%; height: auto; }
.thumbs { list-style: none; padding: 0; }
.thumbs img { width: 100%; height: auto; display: block; }
footer { clear: both; padding: 24px; font-size: 12px; }
`;
}

/** Many small utility classes, like a real site's generated stylesheet. */
function layoutCss(rnd: () => number): string {
  const rules: string[] = [];
  for (let i = 0; i < 600; i++) {
    const hue = Math.floor(rnd() * 360);
    rules.push(`.c-${i} { border-left: ${1 + (i % 4)}px solid hsl(${hue} 60% 45%); padding-left: ${4 + (i % 9)}px; letter-spacing: ${(rnd() * 0.02).toFixed(3)}em; }`);
  }
  return rules.join('\n') + '\n';
}

/** A script that carries a data table and does a little work with it when it runs. */
function script(name: string, rnd: () => number): string {
  const rows = Array.from({ length: 1600 }, (_, i) => `[${i},"${sentence(rnd, 2, 5)}",${rnd().toFixed(6)}]`);
  return `/* ${name}: generated for the ccbrowse lab */
(function () {
  'use strict';
  var TABLE = [
${rows.join(',\n')}
  ];
  var total = 0;
  for (var i = 0; i < TABLE.length; i++) total += TABLE[i][2] * TABLE[i][1].length;
  var s = window.__ccb || (window.__ccb = { scripts: [], errors: [] });
  s.scripts.push(${JSON.stringify(name)});
  s.checksum = (s.checksum || 0) + Math.round(total);
${name === 'app' ? appTail() : ''}})();
`;
}

// The last script waits for the page's subresources and reports what loaded.
function appTail(): string {
  return `  function report() {
    var imgs = Array.prototype.slice.call(document.images);
    s.images = imgs.length;
    s.imagesLoaded = imgs.filter(function (im) { return im.complete && im.naturalWidth > 0; }).length;
    document.fonts.ready.then(function () {
      var faces = [];
      document.fonts.forEach(function (f) { faces.push(f); });
      s.fonts = faces.length;
      s.fontsLoaded = faces.filter(function (f) { return f.status === 'loaded'; }).length;
      s.ready = true;
    });
  }
  if (document.readyState === 'complete') report(); else addEventListener('load', report);
`;
}
