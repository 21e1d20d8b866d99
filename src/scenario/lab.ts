/**
 * Lab URLs for scenarios. The lab's hostnames come from the lab's own configuration
 * (src/lab/sites/config.ts), named here by ROLE, the first label of the host:
 * www (pages, signalling), media (VOD segments), live, audio, img. A session that serves
 * a role elsewhere (another host, a port on loopback) passes `ctx.lab.hosts`
 * ({ media: 'https://127.0.0.2:8443' }); nothing is hard-coded twice.
 */
import type { AssetRule } from '../correlate/asset-type.js';
import { MediaConfig, SiteUrls } from '../lab/sites/config.js';
import { BadInputError } from '../util/errors.js';

/** What the session tells a lab scenario about the lab it runs against. */
export interface LabContext {
  /** role -> base URL ("https://host[:port]"), overriding the lab's configured hosts. */
  hosts: Record<string, string>;
  /** Room the session's call peer joined (lab call page); default "lab", as the peer's. */
  callRoom?: string;
}

export type LabRole = 'www' | 'media' | 'live' | 'audio' | 'img';

/** The lab's configured base URL of each role, from the lab sites' defaults. */
export function labDefaultHosts(): Record<LabRole, string> {
  const u = SiteUrls.parse({});
  const origin = (url: string) => new URL(url.replace(/^wss:/, 'https:')).origin;
  return {
    www: origin(u.signalUrl),
    media: origin(u.vodManifest),
    live: origin(u.liveManifest),
    audio: origin(u.audioManifest),
    img: origin(u.imagesBase),
  };
}

/** Base URL (no trailing slash) of a lab role: the session's mapping first, then the lab's default. */
export function labBase(lab: LabContext | undefined, role: LabRole | string): string {
  const given = lab?.hosts?.[role];
  const base = given ?? (labDefaultHosts() as Record<string, string>)[role];
  if (!base) {
    throw new BadInputError(`unknown lab role "${role}"`,
      `use one of ${Object.keys(labDefaultHosts()).join(', ')} or pass it in ctx.lab.hosts`);
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new BadInputError(`lab host for role "${role}" is not a URL: "${base}"`, 'give a base URL such as https://127.0.0.2:8443');
  }
  return url.origin;
}

/** An absolute URL on a lab role's origin. */
export function labUrl(lab: LabContext | undefined, role: LabRole | string, path = '/'): string {
  return new URL(path, `${labBase(lab, role)}/`).href;
}

// Query overrides each lab page understands (docs/lab-sites.md), and the role serving each.
const PAGE_OVERRIDES: Record<string, Array<[param: string, role: LabRole, path: string]>> = {
  vod: [['manifest', 'media', '/media/vod/manifest.json'], ['images', 'img', '/img/']],
  live: [['manifest', 'live', '/live/manifest.json']],
  audio: [['manifest', 'audio', '/media/vod/manifest.json'], ['images', 'img', '/img/']],
  call: [['signal', 'www', '/signal']],
};

/**
 * The URL a lab scenario's start URL really means in this session: its origin swapped for
 * the session's host of the same role, and, when a role is served somewhere other than its
 * configured host, the page's query overrides pointing at it (the pages otherwise read
 * /config.json, written for the configured hosts). Non-lab URLs are returned unchanged.
 */
export function resolveLabUrl(startUrl: string, lab: LabContext | undefined): string {
  let url: URL;
  try {
    url = new URL(startUrl);
  } catch {
    return startUrl;
  }
  const defaults = labDefaultHosts();
  const role = (Object.keys(defaults) as LabRole[]).find((r) => defaults[r] === url.origin);
  if (!role) return startUrl;
  const moved = new URL(url.pathname + url.search + url.hash, `${labBase(lab, role)}/`);
  const page = /^\/(vod|live|audio|call)\/?/.exec(moved.pathname)?.[1];
  for (const [param, r, path] of page ? PAGE_OVERRIDES[page] : []) {
    if (moved.searchParams.has(param) || labBase(lab, r) === defaults[r]) continue;
    const target = labUrl(lab, r, path);
    moved.searchParams.set(param, param === 'signal' ? target.replace(/^http/, 'ws') : target);
  }
  if (page === 'call' && lab?.callRoom && !moved.searchParams.has('room')) moved.searchParams.set('room', lab.callRoom);
  return moved.href;
}

/**
 * Asset rules for the lab sites. Their manifests are JSON (application/json would read as
 * xhr), and every fMP4 segment is served as video/iso.segment, audio included: the audio
 * track is ffmpeg's representation after the video renditions (init-N.mp4, seg-N-*.m4s,
 * N = number of renditions, see src/lab/sites/media.ts).
 */
export function labAssetRules(media: Partial<Pick<MediaConfig, 'renditions'>> = {}): AssetRule[] {
  const n = (media.renditions ?? MediaConfig.parse({}).renditions).length;
  return [
    { match: /\/(media\/vod|live)\/manifest\.json(\?|$)/, type: 'manifest' },
    { match: new RegExp(`/(init-${n}\\.mp4|seg-${n}-\\d+\\.m4s)(\\?|$)`), type: 'audio' },
  ];
}
