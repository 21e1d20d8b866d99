/**
 * What the lab sites point at. Which origin (and so which congestion controller) serves
 * which host is configuration: pages read these URLs from /config.json at run time (and
 * accept query-parameter overrides), so re-mapping hosts never needs a rebuild of media.
 */
import { z } from 'zod';

const httpsUrl = z.string().url().refine((u) => u.startsWith('https://'), 'must be an https:// URL');
const wssUrl = z.string().url().refine((u) => u.startsWith('wss://'), 'must be a wss:// URL');

export const SiteUrls = z.object({
  /** VOD manifest (segments are fetched relative to it, i.e. from the same origin). */
  vodManifest: httpsUrl.default('https://media.lab.ccb.test/media/vod/manifest.json'),
  /** The origin's dynamic live manifest. */
  liveManifest: httpsUrl.default('https://live.lab.ccb.test/live/manifest.json'),
  /** Manifest the audio-only page plays (its audio tracks only). */
  audioManifest: httpsUrl.default('https://audio.lab.ccb.test/media/vod/manifest.json'),
  /** Where images and thumbnails come from (a third origin). Baked into the static page. */
  imagesBase: httpsUrl.default('https://img.lab.ccb.test/img/'),
  /** WebSocket signalling endpoint of the call site. */
  signalUrl: wssUrl.default('wss://www.lab.ccb.test/signal'),
  /** Only ICE host candidates whose address starts with this are signalled ('' = all). */
  iceAddressPrefix: z.string().default(''),
});
export type SiteUrls = z.infer<typeof SiteUrls>;

export const Rendition = z.object({
  width: z.number().int().min(16).max(1920).multipleOf(2),
  height: z.number().int().min(16).max(1080).multipleOf(2),
  kbps: z.number().int().min(20).max(20_000),
});

export const MediaConfig = z.object({
  durationSec: z.number().int().min(4).max(600).default(60),
  segmentSec: z.number().int().min(1).max(10).default(2),
  fps: z.number().int().min(5).max(60).default(25),
  renditions: z
    .array(Rendition)
    .min(1)
    .default([
      { width: 426, height: 240, kbps: 200 },
      { width: 640, height: 360, kbps: 500 },
      { width: 854, height: 480, kbps: 1200 },
    ]),
  audioKbps: z.number().int().min(16).max(320).default(64),
});
export type MediaConfig = z.infer<typeof MediaConfig>;

export const LabSitesConfig = z.object({
  urls: SiteUrls.default(SiteUrls.parse({})),
  media: MediaConfig.default(MediaConfig.parse({})),
});
export type LabSitesConfig = z.infer<typeof LabSitesConfig>;
export type LabSitesConfigInput = z.input<typeof LabSitesConfig>;

/** Every hostname the configuration names: what the certificate and the resolver map need. */
export function configHostnames(urls: SiteUrls): string[] {
  const hosts = [urls.vodManifest, urls.liveManifest, urls.audioManifest, urls.imagesBase, urls.signalUrl].map(
    (u) => new URL(u).hostname,
  );
  return [...new Set(hosts)].sort();
}
