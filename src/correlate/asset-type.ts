/**
 * What kind of asset a request fetched: video, audio, manifest, image, ... from a
 * scenario's site rules, the MIME type, the browser's resource type and the URL.
 *
 * URLs and headers come from the sites we measure: HOSTILE input. Nothing here throws on a
 * malformed value, no URL is ever used as a pattern, and only linear-time regexes of our
 * own run over them (user rules' RegExps run on a length-capped copy).
 */

export const ASSET_TYPES = ['video', 'audio', 'manifest', 'image', 'script', 'style', 'document', 'font', 'xhr', 'other'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/**
 * A site-specific rule (from a scenario). Every given condition must hold; the first rule
 * that matches wins. A string matches as a case-insensitive substring (never as a regex).
 */
export interface AssetRule {
  /** Condition on the full URL. */
  match?: string | RegExp;
  /** Condition on the response MIME type (parameters such as "; codecs=" included). */
  mime?: string | RegExp;
  type: AssetType;
}

export interface AssetEntry {
  url: string;
  /** Playwright/HAR `_resourceType` ("media", "fetch") or CDP's ("Media", "XHR"). */
  resourceType?: string;
  mimeType?: string;
}

/** Beyond this a URL is scanned only in part: bounds the cost of any rule's RegExp. */
export const MAX_URL_SCAN = 16 * 1024;

export interface UrlParts {
  /** Lower case, without ":" ("https", "data"); '' if none could be found. */
  scheme: string;
  /** Lower case, no port, no trailing dot; '' for URLs without a host. */
  host: string;
  /** As written (not decoded). */
  path: string;
  /** Without "?"; as written. */
  query: string;
}

/** Splits a URL without ever throwing; falls back to a forgiving split when URL() refuses. */
export function splitUrl(raw: unknown): UrlParts {
  const url = typeof raw === 'string' ? raw.slice(0, MAX_URL_SCAN).trim() : '';
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]{0,31}):/.exec(url);
  const scheme = schemeMatch ? schemeMatch[1].toLowerCase() : '';
  let host = '';
  let rest = schemeMatch ? url.slice(schemeMatch[0].length) : url;
  try {
    const u = new URL(url);
    if (u.protocol === `${scheme}:` && (u.host || !rest.startsWith('//'))) {
      return { scheme, host: cleanHost(u.hostname), path: u.pathname, query: u.search.slice(1) };
    }
  } catch {
    // malformed: split by hand below
  }
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? '' : rest.slice(2 + end);
    host = cleanHost(authority.slice(authority.lastIndexOf('@') + 1).replace(/:\d*$/, ''));
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  return { scheme, host, path: q >= 0 ? rest.slice(0, q) : rest, query: q >= 0 ? rest.slice(q + 1) : '' };
}

function cleanHost(h: string): string {
  return h.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** "Video/MP4; codecs=..." -> "video/mp4". */
export function mimeEssence(mime: unknown): string {
  return typeof mime === 'string' ? mime.slice(0, 256).split(';')[0].trim().toLowerCase() : '';
}

function ruleMatches(cond: string | RegExp, value: string): boolean {
  if (typeof cond === 'string') return cond.length > 0 && value.toLowerCase().includes(cond.toLowerCase());
  // A /g or /y RegExp remembers lastIndex between calls: reset so each entry is judged alone.
  cond.lastIndex = 0;
  try {
    return cond.test(value);
  } finally {
    cond.lastIndex = 0;
  }
}

/** First matching site rule's type, or undefined. A rule with no condition never matches. */
export function matchRule(entry: AssetEntry, rules: readonly AssetRule[] | undefined): AssetType | undefined {
  if (!rules) return undefined;
  const url = typeof entry.url === 'string' ? entry.url.slice(0, MAX_URL_SCAN) : '';
  const mime = typeof entry.mimeType === 'string' ? entry.mimeType.slice(0, 256) : '';
  for (const rule of rules) {
    if (rule.match === undefined && rule.mime === undefined) continue;
    if (rule.match !== undefined && !ruleMatches(rule.match, url)) continue;
    if (rule.mime !== undefined && !ruleMatches(rule.mime, mime)) continue;
    return rule.type;
  }
  return undefined;
}

const MANIFEST_MIMES = new Set([
  'application/dash+xml',
  'video/vnd.mpeg.dash.mpd',
  'application/vnd.apple.mpegurl',
  'application/x-mpegurl',
  'application/mpegurl',
  'audio/mpegurl',
  'audio/x-mpegurl',
  'application/vnd.ms-sstr+xml',
  'application/f4m+xml',
  'audio/x-scpls', // .pls internet-radio playlists
]);
const SCRIPT_MIMES = new Set([
  'application/javascript', 'text/javascript', 'application/x-javascript', 'application/ecmascript',
  'text/ecmascript', 'text/jscript', 'application/wasm',
]);
const FONT_MIMES = new Set([
  'application/font-woff', 'application/x-font-woff', 'application/font-woff2', 'application/font-sfnt',
  'application/x-font-ttf', 'application/x-font-truetype', 'application/x-font-otf', 'application/x-font-opentype',
  'application/vnd.ms-fontobject',
]);

/** MIME types that say what the bytes ARE (as opposed to html/json/text, which depend on use). */
function strongMimeType(mime: string): AssetType | undefined {
  if (!mime) return undefined;
  if (MANIFEST_MIMES.has(mime)) return 'manifest';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('font/') || FONT_MIMES.has(mime)) return 'font';
  if (mime === 'text/css') return 'style';
  if (SCRIPT_MIMES.has(mime)) return 'script';
  return undefined;
}

/** MIME types that only hint: used after resource type and URL have had their say. */
function weakMimeType(mime: string): AssetType | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'document';
  if (mime === 'application/json' || mime.endsWith('+json') || mime === 'text/json' || mime === 'application/x-protobuf' ||
    mime === 'application/protobuf' || mime === 'text/event-stream' || mime === 'application/grpc-web+proto') return 'xhr';
  return undefined;
}

/** Resource types that say what the browser will do with the bytes. */
function strongResourceType(rt: string): AssetType | undefined {
  switch (rt) {
    case 'document':
    case 'iframe':
    case 'subdocument':
    case 'main_frame':
    case 'sub_frame':
      return 'document';
    case 'stylesheet':
      return 'style';
    case 'image':
    case 'imageset':
      return 'image';
    case 'font':
      return 'font';
    case 'script':
      return 'script';
    default:
      return undefined;
  }
}

/**
 * Resource types that only say HOW something was requested: an MSE player fetch()es its
 * video segments, so these lose to the URL extension.
 */
function weakResourceType(rt: string): AssetType | undefined {
  switch (rt) {
    case 'xhr':
    case 'fetch':
    case 'eventsource':
    case 'websocket':
    case 'ping':
    case 'preflight':
    case 'beacon':
    case 'cspviolationreport':
      return 'xhr';
    default:
      return undefined;
  }
}

const EXTENSIONS: Record<string, AssetType> = {
  // video (and ambiguous A/V containers; see refineMedia)
  mp4: 'video', m4v: 'video', m4s: 'video', ts: 'video', mts: 'video', m2ts: 'video', webm: 'video', mkv: 'video',
  mov: 'video', avi: 'video', flv: 'video', '3gp': 'video', cmfv: 'video', m4f: 'video', f4f: 'video', ismv: 'video',
  mpg: 'video', mpeg: 'video', ogv: 'video', h264: 'video', av1: 'video', cmft: 'video', seg: 'video',
  // audio
  mp3: 'audio', m4a: 'audio', aac: 'audio', oga: 'audio', ogg: 'audio', opus: 'audio', flac: 'audio', wav: 'audio',
  cmfa: 'audio', weba: 'audio', mka: 'audio', isma: 'audio', ac3: 'audio', ec3: 'audio', mp2: 'audio',
  // manifests and playlists
  m3u8: 'manifest', m3u: 'manifest', mpd: 'manifest', f4m: 'manifest', pls: 'manifest', ism: 'manifest', isml: 'manifest',
  // the rest
  jpg: 'image', jpeg: 'image', png: 'image', gif: 'image', webp: 'image', avif: 'image', svg: 'image', ico: 'image',
  bmp: 'image', apng: 'image', jxl: 'image', heic: 'image', heif: 'image', tif: 'image', tiff: 'image',
  js: 'script', mjs: 'script', cjs: 'script', wasm: 'script',
  css: 'style',
  woff: 'font', woff2: 'font', ttf: 'font', otf: 'font', eot: 'font',
  html: 'document', htm: 'document', xhtml: 'document',
  json: 'xhr',
};

/** Containers that hold video or audio: the path or query decides (DASH keeps them apart). */
const AMBIGUOUS_MEDIA = new Set(['mp4', 'm4s', 'ts', 'webm', 'cmft', 'seg', 'mkv', 'ogg']);

/** A word "audio", "aac", "mp4a" or a "mime=audio" parameter anywhere in path or query. */
function audioHint(text: string): boolean {
  return /(^|[^a-z0-9])(audio|aac|mp4a|opus)([^a-z]|$)/i.test(text) || /mime=audio/i.test(text);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The type the URL alone suggests (extension, byte-range and fragment patterns). */
export function urlAssetType(url: string): AssetType | undefined {
  const { path, query } = splitUrl(url);
  const lastSegment = path.slice(path.lastIndexOf('/') + 1);
  const dot = lastSegment.lastIndexOf('.');
  const ext = dot >= 0 ? lastSegment.slice(dot + 1).toLowerCase() : '';
  const byExt = Object.prototype.hasOwnProperty.call(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
  const hints = `${path}?${safeDecode(query)}`;
  if (byExt && AMBIGUOUS_MEDIA.has(ext)) return audioHint(hints) ? 'audio' : byExt;
  if (byExt) return byExt;
  // Smooth Streaming: .../QualityLevels(128000)/Fragments(audio=0); .../Manifest
  if (/\.isml?\/manifest$/i.test(path)) return 'manifest';
  const frag = /fragments\((video|audio)=/i.exec(path);
  if (frag) return frag[1].toLowerCase() === 'audio' ? 'audio' : 'video';
  // Extension-less byte-range segments (e.g. ?range=0-65535, /range/0-65535, bytestart=).
  if (/(^|[&;])(range|byterange|bytes)=\d+-\d*/i.test(query) || /\/range\/\d+-\d+/i.test(path) ||
    /(^|[&;])bytestart=\d+/i.test(query)) {
    return audioHint(hints) ? 'audio' : 'video';
  }
  return undefined;
}

/**
 * The asset type of a request. Order: site rules; MIME types that name the content
 * (video/*, audio/*, manifests, image/*, fonts, css, js); resource types that name what
 * the browser does with it (document, stylesheet, image, font, script); media requests
 * (audio if the URL says so); the URL (extension, byte ranges); how it was requested
 * (xhr/fetch -> xhr); html/json MIME types; 'other'.
 * Generic MIME types (application/octet-stream, binary/octet-stream, text/plain) decide
 * nothing: CDNs send video segments with them.
 */
export function assetType(entry: AssetEntry, rules?: readonly AssetRule[]): AssetType {
  const e: AssetEntry = entry && typeof entry === 'object' ? entry : { url: '' };
  const url = typeof e.url === 'string' ? e.url : '';
  const fromRule = matchRule({ ...e, url }, rules);
  if (fromRule) return fromRule;
  const mime = mimeEssence(e.mimeType);
  const strongMime = strongMimeType(mime);
  if (strongMime) return strongMime;
  const rt = typeof e.resourceType === 'string' ? e.resourceType.trim().toLowerCase() : '';
  const strongRt = strongResourceType(rt);
  if (strongRt) return strongRt;
  const fromUrl = urlAssetType(url);
  if (rt === 'media' || rt === 'texttrack') {
    // A <video>/<audio> load: the URL may say audio or manifest; otherwise assume video.
    if (rt === 'texttrack') return 'other';
    return fromUrl === 'audio' || fromUrl === 'manifest' ? fromUrl : 'video';
  }
  if (fromUrl) return fromUrl;
  return weakResourceType(rt) ?? weakMimeType(mime) ?? 'other';
}
