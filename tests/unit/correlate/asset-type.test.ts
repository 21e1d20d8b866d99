import { describe, expect, it } from 'vitest';
import { ASSET_TYPES, assetType, mimeEssence, splitUrl, urlAssetType, type AssetRule } from '../../../src/correlate/asset-type.js';

describe('assetType: MIME types', () => {
  const cases: Array<[string, string]> = [
    ['video/mp4', 'video'],
    ['Video/MP4; codecs="avc1.42c01e"', 'video'],
    ['video/iso.segment', 'video'],
    ['video/mp2t', 'video'],
    ['audio/mpeg', 'audio'],
    ['audio/mp4; codecs=mp4a.40.2', 'audio'],
    ['application/dash+xml', 'manifest'],
    ['application/vnd.apple.mpegurl', 'manifest'],
    ['application/x-mpegURL', 'manifest'],
    ['audio/mpegurl', 'manifest'], // an HLS playlist, not audio
    ['audio/x-mpegurl', 'manifest'],
    ['image/avif', 'image'],
    ['image/svg+xml', 'image'],
    ['text/css; charset=utf-8', 'style'],
    ['text/javascript', 'script'],
    ['application/javascript', 'script'],
    ['application/wasm', 'script'],
    ['font/woff2', 'font'],
    ['application/font-woff', 'font'],
    ['application/vnd.ms-fontobject', 'font'],
  ];
  it.each(cases)('%s -> %s', (mimeType, want) => {
    expect(assetType({ url: 'https://cdn.example/x', mimeType })).toBe(want);
  });

  it('lets a strong MIME type beat how it was requested (MSE players fetch() segments)', () => {
    expect(assetType({ url: 'https://cdn.example/seg', resourceType: 'fetch', mimeType: 'video/iso.segment' })).toBe('video');
    expect(assetType({ url: 'https://cdn.example/a', resourceType: 'xhr', mimeType: 'audio/aac' })).toBe('audio');
  });

  it('does not decide from generic MIME types: URL extension wins over xhr/fetch', () => {
    expect(assetType({ url: 'https://cdn.example/v/seg-0-00012.m4s', resourceType: 'fetch', mimeType: 'application/octet-stream' })).toBe('video');
    expect(assetType({ url: 'https://cdn.example/hls/720p/0042.ts?token=a', resourceType: 'xhr', mimeType: 'binary/octet-stream' })).toBe('video');
    expect(assetType({ url: 'https://cdn.example/live/index.m3u8', resourceType: 'xhr', mimeType: 'text/plain' })).toBe('manifest');
    expect(assetType({ url: 'https://api.example/v1/items', resourceType: 'fetch', mimeType: 'application/octet-stream' })).toBe('xhr');
  });

  it('uses html/json MIME types only after resource type and URL', () => {
    expect(assetType({ url: 'https://example.org/', mimeType: 'text/html; charset=utf-8' })).toBe('document');
    expect(assetType({ url: 'https://example.org/fragment', resourceType: 'fetch', mimeType: 'text/html' })).toBe('xhr');
    expect(assetType({ url: 'https://example.org/api', mimeType: 'application/json' })).toBe('xhr');
    expect(assetType({ url: 'https://example.org/api', mimeType: 'application/ld+json' })).toBe('xhr');
  });
});

describe('assetType: resource types', () => {
  const cases: Array<[string, string]> = [
    ['document', 'document'], ['Document', 'document'], ['stylesheet', 'style'], ['Stylesheet', 'style'], ['image', 'image'],
    ['font', 'font'], ['script', 'script'], ['Script', 'script'], ['xhr', 'xhr'], ['XHR', 'xhr'], ['fetch', 'xhr'],
    ['eventsource', 'xhr'], ['websocket', 'xhr'], ['ping', 'xhr'], ['texttrack', 'other'], ['other', 'other'],
    // A web app manifest is not a media manifest.
    ['manifest', 'other'],
  ];
  it.each(cases)('%s -> %s', (resourceType, want) => {
    expect(assetType({ url: 'https://example.org/thing', resourceType })).toBe(want);
  });

  it('types media requests by URL: audio, manifest, else video', () => {
    expect(assetType({ url: 'https://radio.example/stream', resourceType: 'media' })).toBe('video');
    expect(assetType({ url: 'https://radio.example/stream.mp3', resourceType: 'media' })).toBe('audio');
    expect(assetType({ url: 'https://cdn.example/master.m3u8', resourceType: 'media' })).toBe('manifest');
  });
});

describe('assetType: URLs', () => {
  const cases: Array<[string, string | undefined]> = [
    ['https://cdn.example/video/seg-1.m4s', 'video'],
    ['https://cdn.example/dash/audio/seg-1.m4s', 'audio'],
    ['https://cdn.example/dash/seg-1.m4s?track=audio_eng', 'audio'],
    ['https://cdn.example/aac/128k/seg-1.m4s', 'audio'],
    ['https://cdn.example/movie.MP4', 'video'],
    ['https://cdn.example/clip.webm#t=10', 'video'],
    ['https://cdn.example/chunk.cmfv', 'video'],
    ['https://cdn.example/chunk.cmfa', 'audio'],
    ['https://cdn.example/song.m4a', 'audio'],
    ['https://cdn.example/radio.pls', 'manifest'],
    ['https://cdn.example/stream.mpd?x=1', 'manifest'],
    ['https://cdn.example/a.isml/Manifest', 'manifest'],
    ['https://cdn.example/a.ism/QualityLevels(128000)/Fragments(audio=0)', 'audio'],
    ['https://cdn.example/a.ism/QualityLevels(3000000)/Fragments(video=20000000)', 'video'],
    ['https://r3---sn-x.googlevideo.com/videoplayback?itag=137&range=0-65535', 'video'],
    ['https://r3---sn-x.googlevideo.com/videoplayback?itag=140&mime=audio%2Fmp4&range=0-65535', 'audio'],
    ['https://cdn.example/media/range/1000-2000', 'video'],
    ['https://cdn.example/photo.jpeg?w=300', 'image'],
    ['https://cdn.example/app.mjs', 'script'],
    ['https://cdn.example/site.css', 'style'],
    ['https://cdn.example/f.woff2', 'font'],
    ['https://cdn.example/', undefined],
    ['https://cdn.example/api/items', undefined],
    // An extension only counts in the last path segment, not in a host or a query.
    ['https://video.mp4.example/page', undefined],
    ['https://example.org/page?file=movie.mp4', undefined],
  ];
  it.each(cases)('%s -> %s', (url, want) => {
    expect(urlAssetType(url)).toBe(want);
  });
});

describe('assetType: site rules', () => {
  const rules: AssetRule[] = [
    { match: /googlevideo\.com\/videoplayback\?.*\bmime=audio/i, type: 'audio' },
    { match: 'googlevideo.com/videoplayback', type: 'video' },
    { mime: 'application/vnd.yt-ump', type: 'video' },
    { match: 'example.org/data', mime: /json/, type: 'manifest' },
  ];

  it('tries rules first, first match wins', () => {
    const base = 'https://rr1---sn-abc.googlevideo.com/videoplayback?expire=1&itag=251';
    expect(assetType({ url: `${base}&mime=audio%2Fwebm`, mimeType: 'application/octet-stream' }, rules)).toBe('audio');
    expect(assetType({ url: `${base}&mime=video%2Fwebm`, mimeType: 'application/octet-stream' }, rules)).toBe('video');
    expect(assetType({ url: 'https://x.example/sabr', mimeType: 'application/vnd.yt-ump' }, rules)).toBe('video');
  });

  it('matches strings case-insensitively as substrings, and needs every condition', () => {
    expect(assetType({ url: 'https://RR1.GoogleVideo.com/VIDEOPLAYBACK?x', mimeType: 'text/plain' }, rules)).toBe('video');
    expect(assetType({ url: 'https://example.org/data.json', mimeType: 'application/json' }, rules)).toBe('manifest');
    expect(assetType({ url: 'https://example.org/data.json', mimeType: 'text/plain' }, rules)).toBe('xhr');
  });

  it('is not fooled by a stateful /g RegExp', () => {
    const g: AssetRule[] = [{ match: /videoplayback/g, type: 'video' }];
    for (let i = 0; i < 4; i++) expect(assetType({ url: 'https://x.example/videoplayback' }, g)).toBe('video');
  });

  it('ignores rules with no condition and empty strings', () => {
    expect(assetType({ url: 'https://x.example/a' }, [{ type: 'video' }, { match: '', type: 'audio' } as AssetRule])).toBe('other');
  });
});

describe('assetType: hostile input', () => {
  const hostile: unknown[] = [
    '', ' ', 'not a url', '%', '%E0%A4%A', 'http://', 'http://[::1', 'https://exa mple.com/x.mp4', 'javascript:alert(1)',
    '://x', '?range=1-2', '#', 'https://example.org/%ZZ.mp4', 'https://example.org/' + 'a'.repeat(200_000) + '.mp4',
    'https://example.org/(.*)*$.js', 'https://example.org/[a-/.css', 'https://\u0000\u202e.example/\ud800.png',
    'data:video/mp4;base64,AAAA', 'https://user:pass@host:99999/x.m3u8', 'https://example.org/x.m4s?mime=audio%',
    '\\\\server\\share\\a.mp4', 'HTTPS://EXAMPLE.ORG/A.JPG', 'https://example.org/' + '('.repeat(10_000),
    null, undefined, 42, {}, [],
  ];
  it('never throws, always returns a known type, whatever the URL, MIME or resource type', () => {
    for (const url of hostile) {
      for (const mimeType of [undefined, '', ';;;', 'video', '/', 'x'.repeat(10_000), 42 as unknown as string]) {
        for (const resourceType of [undefined, '', 'MEDIA', '__proto__', 'constructor', {} as unknown as string]) {
          const t = assetType({ url: url as string, mimeType, resourceType });
          expect(ASSET_TYPES).toContain(t);
        }
      }
    }
    expect(assetType(null as unknown as { url: string })).toBe('other');
  });

  it('never treats a URL as a pattern', () => {
    // A URL full of regex syntax must not match an unrelated rule, nor blow up.
    const rules: AssetRule[] = [{ match: '.*', type: 'video' }];
    expect(assetType({ url: 'https://example.org/abc' }, rules)).toBe('other');
    expect(assetType({ url: 'https://example.org/.*' }, rules)).toBe('video');
  });

  it('gives the right answer for awkward but valid URLs', () => {
    expect(assetType({ url: 'HTTPS://EXAMPLE.ORG/A.JPG' })).toBe('image');
    expect(assetType({ url: 'https://example.org/%ZZ.mp4' })).toBe('video');
    expect(assetType({ url: 'https://example.org/x.m4s?mime=audio%' })).toBe('audio');
    expect(assetType({ url: 'https://example.org/' + 'a'.repeat(200_000) + '.mp4' })).toBe('other'); // beyond the scan limit
  });

  it('splits URLs forgivingly', () => {
    expect(splitUrl('https://User@Update.GoogleAPIs.com.:443/a/b?c=d#e')).toEqual({ scheme: 'https', host: 'update.googleapis.com', path: '/a/b', query: 'c=d' });
    expect(splitUrl('https://exa mple.com/x.mp4?q')).toMatchObject({ scheme: 'https', host: 'exa mple.com', path: '/x.mp4', query: 'q' });
    expect(splitUrl('data:text/html,hi')).toMatchObject({ scheme: 'data', host: '' });
    expect(splitUrl(undefined)).toEqual({ scheme: '', host: '', path: '', query: '' });
    expect(mimeEssence('  Text/HTML ; charset=x')).toBe('text/html');
  });
});
