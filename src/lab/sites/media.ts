/**
 * The lab's media, made by ffmpeg at set-up (no internet, nothing committed): one ffmpeg run
 * encodes a test pattern and a tone into fragmented-MP4 DASH segments, every rendition with
 * keyframes on segment boundaries so a player can switch bitrate between any two segments.
 * The result is described by manifest.json (see manifest.ts), which both players and the
 * origin's live endpoint read.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CcbError } from '../../util/errors.js';
import { run } from '../../util/exec.js';
import type { MediaConfig } from './config.js';
import { stampMatches, writeIfChanged, writeStamp } from './fs-util.js';
import { VodManifest, type Track } from './manifest.js';

const STAMP = '.media-stamp.json';
const STAMP_VERSION = 1;

export async function buildMedia(dir: string, cfg: MediaConfig): Promise<VodManifest> {
  const params = { v: STAMP_VERSION, cfg };
  const manifestPath = join(dir, 'manifest.json');
  if (await stampMatches(join(dir, STAMP), params)) {
    return VodManifest.parse(JSON.parse(await readFile(manifestPath, 'utf8')));
  }
  await rm(dir, { recursive: true, force: true });
  await writeIfChanged(join(dir, '.keep'), '');
  await run('ffmpeg', ffmpegArgs(cfg), { cwd: dir, timeoutMs: 15 * 60_000 });
  const manifest = await describe(dir, cfg);
  await writeIfChanged(manifestPath, JSON.stringify(manifest, null, 1) + '\n');
  await writeStamp(join(dir, STAMP), params);
  return manifest;
}

/** Exported for tests: the ffmpeg command line for a media configuration. */
export function ffmpegArgs(cfg: MediaConfig): string[] {
  const n = cfg.renditions.length;
  const maxW = Math.max(...cfg.renditions.map((r) => r.width));
  const maxH = Math.max(...cfg.renditions.map((r) => r.height));
  const gop = cfg.fps * cfg.segmentSec;
  const split = `[0:v]split=${n}${cfg.renditions.map((_, i) => `[s${i}]`).join('')}`;
  const scales = cfg.renditions.map((r, i) => `[s${i}]scale=${r.width}:${r.height}[v${i}]`);
  const args = [
    '-y', '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-f', 'lavfi', '-i', `testsrc=size=${maxW}x${maxH}:rate=${cfg.fps}:duration=${cfg.durationSec}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:beep_factor=4:sample_rate=48000:duration=${cfg.durationSec}`,
    '-filter_complex', [split, ...scales].join(';'),
    ...cfg.renditions.flatMap((_, i) => ['-map', `[v${i}]`]),
    '-map', '1:a',
    // ultrafast: set-up time matters more than quality on a 2-core machine; the bitrate caps
    // (maxrate/bufsize) keep each rendition near its nominal rate anyway.
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p',
    ...cfg.renditions.flatMap((r, i) => [
      `-b:v:${i}`, `${r.kbps}k`, `-maxrate:v:${i}`, `${r.kbps}k`, `-bufsize:v:${i}`, `${2 * r.kbps}k`,
    ]),
    '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', `${cfg.audioKbps}k`, '-ac', '2',
    '-f', 'dash', '-seg_duration', String(cfg.segmentSec), '-use_template', '1', '-use_timeline', '0',
    '-init_seg_name', 'init-$RepresentationID$.mp4',
    '-media_seg_name', 'seg-$RepresentationID$-$Number%05d$.m4s',
    '-adaptation_sets', 'id=0,streams=v id=1,streams=a',
    'stream.mpd',
  ];
  return args;
}

interface MpdRepresentation {
  id: string;
  codecs: string;
  bandwidth: number;
  width?: number;
  height?: number;
  mimeType: string;
}

/** The Representation attributes ffmpeg wrote (codec strings come from the real encode). */
export function parseMpdRepresentations(mpd: string): MpdRepresentation[] {
  const reps: MpdRepresentation[] = [];
  for (const tag of mpd.match(/<Representation\b[^>]*>/g) ?? []) {
    const a = Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!a.id || !a.codecs || !a.bandwidth || !a.mimeType) continue;
    reps.push({
      id: a.id,
      codecs: a.codecs,
      bandwidth: Number(a.bandwidth),
      width: a.width ? Number(a.width) : undefined,
      height: a.height ? Number(a.height) : undefined,
      mimeType: a.mimeType,
    });
  }
  return reps;
}

async function describe(dir: string, cfg: MediaConfig): Promise<VodManifest> {
  const reps = parseMpdRepresentations(await readFile(join(dir, 'stream.mpd'), 'utf8'));
  const files = (await readdir(dir)).sort();
  const tracks: Track[] = reps.map((r) => {
    const kind = r.mimeType.startsWith('audio/') ? 'audio' : 'video';
    const segments = files.filter((f) => f.startsWith(`seg-${r.id}-`) && f.endsWith('.m4s'));
    if (segments.length === 0) throw new CcbError(`ffmpeg wrote no segments for representation ${r.id} in ${dir}`);
    return {
      id: kind === 'audio' ? `a${Math.round(r.bandwidth / 1000)}` : `v${r.height}`,
      kind,
      bandwidth: r.bandwidth,
      codecs: r.codecs,
      width: r.width,
      height: r.height,
      init: `init-${r.id}.mp4`,
      segments,
    };
  });
  return VodManifest.parse({
    version: 1,
    type: 'vod',
    segmentDuration: cfg.segmentSec,
    duration: cfg.durationSec,
    video: tracks.filter((t) => t.kind === 'video').sort((a, b) => a.bandwidth - b.bandwidth),
    audio: tracks.filter((t) => t.kind === 'audio'),
  });
}
