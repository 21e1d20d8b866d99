/**
 * buildLabSites(outDir, config): the lab's document root, served identically by every
 * origin. Idempotent: media and images are remade only when their parameters change (a
 * stamp file), everything else is rewritten only when its content changes. No internet.
 *
 *   outDir/config.json      which URL (host, so origin) serves what: read by the pages
 *   outDir/index.html       links to every site
 *   outDir/common/          player, config loader, styles
 *   outDir/static/          news-like page (>1 MB with fonts and images)
 *   outDir/vod|live|audio|call/  the media and call pages (vod/watch/: the VOD page's app bundles)
 *   outDir/media/vod/       fMP4 segments + manifest.json (also the live loop's source)
 *   outDir/img/             photos and thumbnails (the images origin); img/vod/: poster, storyboards
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CcbError } from '../../util/errors.js';
import { LabSitesConfig, type LabSitesConfigInput } from './config.js';
import { copyIfChanged, writeIfChanged } from './fs-util.js';
import { buildImages } from './images.js';
import type { VodManifest } from './manifest.js';
import { buildMedia } from './media.js';
import { buildStaticPage } from './static-page.js';
import { buildVodPage } from './vod-page.js';

export interface BuiltLabSites {
  outDir: string;
  config: LabSitesConfig;
  manifest: VodManifest;
}

// The page sources live beside this module in www/; compiled code (dist/lab/sites) reads
// them from the source tree, which tsc does not copy.
function wwwDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [join(here, 'www'), resolve(here, '../../../src/lab/sites/www')]) {
    if (existsSync(dir)) return dir;
  }
  throw new CcbError(`lab page sources (www/) not found next to ${here}`);
}

export async function buildLabSites(outDir: string = 'build/lab/sites', input: LabSitesConfigInput = {}): Promise<BuiltLabSites> {
  const config = LabSitesConfig.parse(input);
  const manifest = await buildMedia(join(outDir, 'media', 'vod'), config.media);
  const images = await buildImages(join(outDir, 'img'));
  await buildStaticPage(join(outDir, 'static'), { imagesBase: config.urls.imagesBase, ...images });
  await buildVodPage(outDir, join(outDir, 'img'));
  await copyTree(wwwDir(), outDir);
  await writeIfChanged(join(outDir, 'config.json'), JSON.stringify({ version: 1, ...config.urls }, null, 2) + '\n');
  return { outDir, config, manifest };
}

async function copyTree(src: string, dst: string): Promise<void> {
  for (const entry of await readdir(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const from = join(entry.parentPath ?? entry.path, entry.name);
    await copyIfChanged(from, join(dst, relative(src, from)));
  }
}
