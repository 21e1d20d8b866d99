/**
 * Requests Chromium makes on its own (update checks, Safe Browsing, optimization hints,
 * GCM, variations, network time, ...) and requests that never touch the network (data:,
 * blob:, extensions). They are not the site's assets and must not be attributed to it.
 * Host lists are exact or narrowly scoped by path: a Google host a web page really uses
 * (youtubei, play.google.com, accounts.youtube.com) must stay.
 */
import { splitUrl } from './asset-type.js';

export interface BackgroundEntry {
  url: string;
  /** Playwright/HAR resource type; unused for now, kept so callers pass what they have. */
  resourceType?: string;
  /** CDP loadingFailed errorText / HAR `_failureText`, e.g. "net::ERR_NAME_NOT_RESOLVED". */
  errorText?: string;
  /** NetLog net_error, e.g. -105. */
  netError?: number;
}

export interface BackgroundOptions {
  /**
   * Lab mode: the resolver rules end in "MAP * ~NOTFOUND", so every name outside the lab
   * fails with -105 (ERR_NAME_NOT_RESOLVED) before any packet is sent. Such a request is
   * never a lab asset. In internet mode a -105 is the site's own failure and is kept.
   */
  lab?: boolean;
}

/** Schemes that never make a network request of their own, or belong to the browser. */
const NON_NETWORK_SCHEMES = new Set([
  'data', 'blob', 'about', 'javascript', 'filesystem', 'chrome', 'chrome-extension', 'chrome-untrusted',
  'chrome-search', 'chrome-error', 'devtools', 'edge', 'extension', 'moz-extension', 'file',
]);

/** Hosts only the browser itself talks to (component updater, Safe Browsing, hints, GCM, ...). */
const BROWSER_HOSTS = new Set([
  'update.googleapis.com',
  'updates.googleapis.com',
  'clients2.google.com', // component/extension updates, network time, crash reports
  'clients2.googleusercontent.com', // CRLSet and component downloads
  'safebrowsing.googleapis.com',
  'safebrowsing.google.com',
  'safebrowsing-cache.google.com',
  'sb-ssl.google.com',
  'safebrowsingohttpgateway.googleapis.com',
  'google-ohttp-relay-safebrowsing.fastly-edge.com',
  'optimizationguide-pa.googleapis.com',
  'chromekanonymity-pa.googleapis.com',
  'chromereporting-pa.googleapis.com',
  'passwordsleakcheck-pa.googleapis.com',
  'content-autofill.googleapis.com',
  'clientservices.googleapis.com', // variations seed
  'chromewebstore.googleapis.com',
  'android.clients.google.com', // GCM check-in and registration
  'mtalk.google.com', // GCM connection
  'chrome-devtools-frontend.appspot.com',
  'redirector.gvt1.com',
  'edgedl.me.gvt1.com',
  'dl.l.google.com',
]);

/** Suffixes only the browser uses: the component updater's download CDN. */
const BROWSER_HOST_SUFFIXES = ['.gvt1.com', '.gvt2.com'];

/** Host + path prefixes: hosts pages also use, where only these paths are the browser's. */
const BROWSER_PATHS: ReadonlyArray<readonly [string, string]> = [
  ['accounts.google.com', '/ListAccounts'],
  ['accounts.google.com', '/oauth/multilogin'],
  ['www.googleapis.com', '/chromewebstore/'],
  ['www.googleapis.com', '/oauth2/v4/token'],
  ['www.google.com', '/async/newtab'],
  ['www.gstatic.com', '/chrome/'],
  ['dl.google.com', '/release2/chrome_component/'],
  ['dl.google.com', '/edgedl/'],
  ['translate.googleapis.com', '/translate_a/l'],
  ['www.google.com', '/complete/search'],
];

/** Why a request is the browser's own or not a network request, or null if it is the site's. */
export function backgroundReason(entry: BackgroundEntry, opts: BackgroundOptions = {}): string | null {
  const e = entry && typeof entry === 'object' ? entry : { url: '' };
  const { scheme, host, path } = splitUrl(e.url);
  if (scheme && NON_NETWORK_SCHEMES.has(scheme)) return `${scheme}: URL (no network request)`;
  if (opts.lab && isNameNotResolved(e)) return 'name not resolved (lab resolver rules map other hosts to ~NOTFOUND)';
  if (!host) return null;
  if (BROWSER_HOSTS.has(host)) return `browser service host ${host}`;
  if (BROWSER_HOST_SUFFIXES.some((s) => host.endsWith(s))) return `browser download host ${host}`;
  for (const [h, prefix] of BROWSER_PATHS) {
    if (host === h && path.startsWith(prefix)) return `browser service ${h}${prefix}`;
  }
  return null;
}

function isNameNotResolved(e: BackgroundEntry): boolean {
  if (e.netError === -105) return true;
  return typeof e.errorText === 'string' && /ERR_NAME_NOT_RESOLVED/i.test(e.errorText.slice(0, 200));
}

/** True for requests Chromium makes by itself or that never reach the network. */
export function isBrowserBackgroundRequest(entry: BackgroundEntry, opts: BackgroundOptions = {}): boolean {
  return backgroundReason(entry, opts) !== null;
}
