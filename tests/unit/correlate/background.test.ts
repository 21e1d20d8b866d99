import { describe, expect, it } from 'vitest';
import { backgroundReason, isBrowserBackgroundRequest } from '../../../src/correlate/background.js';

describe('isBrowserBackgroundRequest', () => {
  const background = [
    'https://update.googleapis.com/service/update2/json?cup2key=1',
    'https://clients2.google.com/time/1/current?cup2key=2',
    'https://clients2.googleusercontent.com/crx/blobs/abc/crlset.crx',
    'https://safebrowsing.googleapis.com/v4/threatListUpdates:fetch?key=x',
    'https://optimizationguide-pa.googleapis.com/v1:GetModels?key=x',
    'https://content-autofill.googleapis.com/v1/pages/abc',
    'https://clientservices.googleapis.com/chrome-variations/seed?osname=linux',
    'https://accounts.google.com/ListAccounts?gpsia=1&source=ChromiumBrowser',
    'https://android.clients.google.com/c2dm/register3',
    'https://r2---sn-4g5e6nzs.gvt1.com/edgedl/release2/chrome_component/abc.crx3',
    'https://edgedl.me.gvt1.com/edgedl/release2/chrome_component/x',
    'https://www.gstatic.com/chrome/intelligence/assist/ranker/models/translate/model.pb',
    'https://dl.google.com/release2/chrome_component/ab/cd.crx3',
    'HTTPS://UPDATE.GOOGLEAPIS.COM./service/update2',
    'data:image/png;base64,iVBORw0KGgo=',
    ' DATA:text/plain,x',
    'blob:https://www.youtube.com/4c1e2a3b-aaaa-bbbb-cccc-123456789012',
    'chrome-extension://abcdefghijklmnop/manifest.json',
    'chrome://newtab/',
    'about:blank',
    'devtools://devtools/bundled/inspector.html',
  ];
  it.each(background)('flags %s', (url) => {
    expect(isBrowserBackgroundRequest({ url })).toBe(true);
  });

  const site = [
    'https://www.youtube.com/youtubei/v1/player?key=x',
    'https://rr3---sn-abc.googlevideo.com/videoplayback?itag=137',
    'https://accounts.google.com/ServiceLogin?continue=https://www.youtube.com',
    'https://accounts.youtube.com/accounts/CheckConnection',
    'https://play.google.com/log?format=json',
    'https://jnn-pa.googleapis.com/$rpc/google.internal.waa.v1.Waa/Create',
    'https://www.gstatic.com/images/branding/googlelogo/1x/googlelogo_color_272x92dp.png',
    'https://dl.google.com/linux/direct/google-chrome-stable_current_amd64.deb',
    'https://www.googleapis.com/youtube/v3/videos',
    'https://update.googleapis.com.evil.example/x', // suffix trickery is not the browser's host
    'https://notclients2.google.com/x',
    'https://example.org/data:image/png',
    'wss://www.lab.ccb.test/signal?room=lab',
    'https://www.lab.ccb.test/vod/',
  ];
  it.each(site)('keeps %s', (url) => {
    expect(isBrowserBackgroundRequest({ url })).toBe(false);
  });

  it('drops name-resolution failures only in lab mode (the resolver maps everything else to ~NOTFOUND)', () => {
    const failed = { url: 'https://www.google.com/async/ddljson', errorText: 'net::ERR_NAME_NOT_RESOLVED' };
    expect(isBrowserBackgroundRequest(failed, { lab: true })).toBe(true);
    expect(isBrowserBackgroundRequest({ url: 'https://fonts.example/x.woff2', netError: -105 }, { lab: true })).toBe(true);
    // In internet mode a site's own failed lookup is the site's business: kept.
    expect(isBrowserBackgroundRequest({ url: 'https://fonts.example/x.woff2', netError: -105 })).toBe(false);
    expect(isBrowserBackgroundRequest({ url: 'https://fonts.example/x.woff2', errorText: 'net::ERR_CONNECTION_RESET' }, { lab: true })).toBe(false);
  });

  it('explains its decisions', () => {
    expect(backgroundReason({ url: 'https://safebrowsing.googleapis.com/v4/x' })).toMatch(/safebrowsing/);
    expect(backgroundReason({ url: 'data:,' })).toMatch(/data:/);
    expect(backgroundReason({ url: 'https://example.org/' })).toBeNull();
  });

  it('never throws on hostile input', () => {
    for (const url of ['', '%', 'http://[::1', '\u0000', 'x'.repeat(100_000), null, undefined, 5, {}] as unknown[]) {
      expect(typeof isBrowserBackgroundRequest({ url: url as string, errorText: url as string, netError: url as number })).toBe('boolean');
    }
    expect(isBrowserBackgroundRequest(null as unknown as { url: string })).toBe(false);
  });
});
