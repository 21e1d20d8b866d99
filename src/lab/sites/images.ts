/**
 * Photos and thumbnails for the pages, served by the images origin. ffmpeg test sources give
 * real JPEG/PNG files of realistic size without shipping any binary in git.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../util/exec.js';
import { stampMatches, writeIfChanged, writeStamp } from './fs-util.js';

export const PHOTO_COUNT = 8;
export const THUMB_COUNT = 12;
const STAMP = '.images-stamp.json';
const PARAMS = { v: 3, photos: PHOTO_COUNT, thumbs: THUMB_COUNT };

/** Returns the file names (relative to dir) of photos and thumbnails. */
export async function buildImages(dir: string): Promise<{ photos: string[]; thumbs: string[] }> {
  if (!(await stampMatches(join(dir, STAMP), PARAMS))) {
    await writeIfChanged(join(dir, '.keep'), '');
    await run(
      'ffmpeg',
      [
        '-y', '-hide_banner', '-loglevel', 'error', '-nostdin',
        '-f', 'lavfi', '-i', `testsrc2=size=960x540:rate=1:duration=${PHOTO_COUNT}`,
        '-f', 'lavfi', '-i', 'mandelbrot=size=240x135:rate=1',
        // Grain makes the JPEGs photo-sized (~160 KB) instead of a few KB of flat colour.
        '-map', '0:v', '-vf', 'noise=alls=12:allf=t', '-q:v', '3', 'photo-%02d.jpg',
        // A hue turn per frame: distinct thumbnails (the fractal itself barely changes).
        '-map', '1:v', '-vf', 'hue=h=30*n', '-frames:v', String(THUMB_COUNT), 'thumb-%02d.png',
      ],
      { cwd: dir, timeoutMs: 120_000 },
    );
    await writeStamp(join(dir, STAMP), PARAMS);
  }
  const files = (await readdir(dir)).sort();
  return {
    photos: files.filter((f) => /^photo-\d+\.jpg$/.test(f)),
    thumbs: files.filter((f) => /^thumb-\d+\.png$/.test(f)),
  };
}
