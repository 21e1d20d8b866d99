import { describe, expect, it } from 'vitest';
import { assetType } from '../../../src/correlate/asset-type.js';
import { SiteUrls } from '../../../src/lab/sites/config.js';
import { labAssetRules, labBase, labDefaultHosts, labUrl, resolveLabUrl } from '../../../src/scenario/lab.js';
import { BadInputError } from '../../../src/util/errors.js';

describe('lab URLs', () => {
  it('takes the default hosts from the lab sites configuration', () => {
    const urls = SiteUrls.parse({});
    const hosts = labDefaultHosts();
    expect(urls.vodManifest.startsWith(hosts.media)).toBe(true);
    expect(urls.imagesBase.startsWith(hosts.img)).toBe(true);
    expect(urls.signalUrl.replace('wss:', 'https:').startsWith(hosts.www)).toBe(true);
    expect(labUrl(undefined, 'www', '/vod/')).toBe(`${hosts.www}/vod/`);
  });

  it('prefers the session\'s hosts and rejects unknown roles and non-URLs', () => {
    const lab = { hosts: { media: 'https://127.0.0.2:8443/' } };
    expect(labBase(lab, 'media')).toBe('https://127.0.0.2:8443');
    expect(labUrl(lab, 'media', 'media/vod/manifest.json')).toBe('https://127.0.0.2:8443/media/vod/manifest.json');
    expect(() => labBase(lab, 'nope')).toThrow(BadInputError);
    expect(() => labBase({ hosts: { www: 'not a url' } }, 'www')).toThrow(/not a URL/);
  });

  it('leaves start URLs alone when the session serves the configured hosts', () => {
    const start = labUrl(undefined, 'www', '/vod/');
    expect(resolveLabUrl(start, undefined)).toBe(start);
    expect(resolveLabUrl(start, { hosts: {} })).toBe(start);
    expect(resolveLabUrl('https://example.org/vod/', { hosts: { www: 'https://127.0.0.1:1' } })).toBe('https://example.org/vod/');
  });

  it('moves the page and points it at moved roles through its query overrides', () => {
    const lab = { hosts: { www: 'https://127.0.0.1:8443', media: 'https://127.0.0.2:8443', img: 'https://127.0.0.3:8443' }, callRoom: 'r7' };
    const vod = new URL(resolveLabUrl(labUrl(undefined, 'www', '/vod/?loop=1'), lab));
    expect(vod.origin).toBe('https://127.0.0.1:8443');
    expect(vod.searchParams.get('manifest')).toBe('https://127.0.0.2:8443/media/vod/manifest.json');
    expect(vod.searchParams.get('images')).toBe('https://127.0.0.3:8443/img/');
    expect(vod.searchParams.get('loop')).toBe('1');
    const call = new URL(resolveLabUrl(labUrl(undefined, 'www', '/call/'), lab));
    expect(call.searchParams.get('signal')).toBe('wss://127.0.0.1:8443/signal');
    expect(call.searchParams.get('room')).toBe('r7');
    // An override already in the scenario's URL is kept.
    const pinned = new URL(resolveLabUrl(labUrl(undefined, 'www', '/vod/?manifest=https://x.test/m.json'), lab));
    expect(pinned.searchParams.get('manifest')).toBe('https://x.test/m.json');
  });

  it('types the lab\'s JSON manifests and its audio track correctly', () => {
    const rules = labAssetRules();
    const m = labDefaultHosts().media;
    const n = 3; // three video renditions by default: the audio track is representation 3
    expect(assetType({ url: `${m}/media/vod/manifest.json`, mimeType: 'application/json' }, rules)).toBe('manifest');
    expect(assetType({ url: `${labDefaultHosts().live}/live/manifest.json`, mimeType: 'application/json' }, rules)).toBe('manifest');
    expect(assetType({ url: `${m}/media/vod/seg-${n}-00004.m4s`, mimeType: 'video/iso.segment' }, rules)).toBe('audio');
    expect(assetType({ url: `${m}/media/vod/init-${n}.mp4`, mimeType: 'video/mp4' }, rules)).toBe('audio');
    expect(assetType({ url: `${m}/media/vod/seg-1-00004.m4s`, mimeType: 'video/iso.segment' }, rules)).toBe('video');
    expect(assetType({ url: `${m}/media/vod/seg-${n}0-00004.m4s`, mimeType: 'video/iso.segment' }, rules)).toBe('video');
    expect(assetType({ url: `${m}/config.json`, mimeType: 'application/json' }, rules)).toBe('xhr');
    // With two renditions the audio track is representation 2.
    const two = labAssetRules({ renditions: [{ width: 426, height: 240, kbps: 200 }, { width: 640, height: 360, kbps: 500 }] });
    expect(assetType({ url: `${m}/media/vod/seg-2-00001.m4s`, mimeType: 'video/iso.segment' }, two)).toBe('audio');
  });
});
