import { describe, expect, it } from 'vitest';
import { hostResolverRules, labChromiumArgs } from '../../../src/lab/sites/chromium.js';
import { configHostnames, LabSitesConfig } from '../../../src/lab/sites/config.js';
import { ffmpegArgs, parseMpdRepresentations } from '../../../src/lab/sites/media.js';
import { prng } from '../../../src/lab/sites/static-page.js';
import { VOD_IMAGES, WATCH_FILES, watchTextFiles } from '../../../src/lab/sites/vod-page.js';

describe('lab sites configuration', () => {
  it('defaults every URL to a lab hostname and validates schemes', () => {
    const c = LabSitesConfig.parse({});
    expect(configHostnames(c.urls)).toEqual(['audio.lab.ccb.test', 'img.lab.ccb.test', 'live.lab.ccb.test', 'media.lab.ccb.test', 'www.lab.ccb.test']);
    expect(c.media.renditions.map((r) => r.kbps)).toEqual([200, 500, 1200]);
    expect(() => LabSitesConfig.parse({ urls: { imagesBase: 'http://img.lab.ccb.test/' } })).toThrow();
    expect(() => LabSitesConfig.parse({ urls: { signalUrl: 'https://www.lab.ccb.test/signal' } })).toThrow();
    expect(() => LabSitesConfig.parse({ media: { renditions: [{ width: 427, height: 240, kbps: 100 }] } })).toThrow();
  });

  it('builds resolver rules that end with a deny-all', () => {
    expect(hostResolverRules({ 'www.lab.ccb.test': '127.0.0.1:8443', 'img.lab.ccb.test': '10.77.0.3' })).toBe(
      'MAP www.lab.ccb.test 127.0.0.1:8443, MAP img.lab.ccb.test 10.77.0.3, MAP * ~NOTFOUND',
    );
    expect(() => hostResolverRules({ 'a.test': 'example.com' })).toThrow(/IPv4/);
    const args = labChromiumArgs({ hosts: { 'a.test': '127.0.0.1' }, spki: ['x', 'y'], fakeMedia: true });
    expect(args).toContain('--ignore-certificate-errors-spki-list=x,y');
    expect(args).toContain('--disable-background-networking');
    expect(args).toContain('--use-fake-device-for-media-stream');
    expect(args).not.toContain('--allow-loopback-in-peer-connection');
  });

  it('encodes every rendition with keyframes on segment boundaries', () => {
    const media = LabSitesConfig.parse({ media: { segmentSec: 2, fps: 25 } }).media;
    const a = ffmpegArgs(media);
    expect(a.filter((x) => /^\[v\d\]$/.test(x))).toEqual(['[v0]', '[v1]', '[v2]']);
    expect(a[a.indexOf('-g') + 1]).toBe('50');
    expect(a[a.indexOf('-keyint_min') + 1]).toBe('50');
    expect(a[a.indexOf('-b:v:2') + 1]).toBe('1200k');
  });

  it('reads Representation attributes from an MPD', () => {
    const mpd = `<AdaptationSet><Representation id="0" mimeType="video/mp4" codecs="avc1.42c015" bandwidth="200000" width="426" height="240" sar="1:1">
      </Representation><Representation id="3" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="64000" audioSamplingRate="48000"></AdaptationSet>`;
    expect(parseMpdRepresentations(mpd)).toEqual([
      { id: '0', codecs: 'avc1.42c015', bandwidth: 200000, width: 426, height: 240, mimeType: 'video/mp4' },
      { id: '3', codecs: 'mp4a.40.2', bandwidth: 64000, width: undefined, height: undefined, mimeType: 'audio/mp4' },
    ]);
  });

  it('gives the VOD page a watch app heavy enough to classify its origin\'s flow', () => {
    const files = watchTextFiles();
    expect(watchTextFiles()).toEqual(files); // deterministic
    expect(Object.keys(files).sort()).toEqual([WATCH_FILES.loader, WATCH_FILES.style, ...WATCH_FILES.scripts].sort());
    // >= 20 s busy at 200 kbit/s with 100-byte segments (~15 kB/s of payload), and done well
    // within the scenario's 40 s of activity.
    const heavy = [WATCH_FILES.style, ...WATCH_FILES.scripts].reduce((n, f) => n + Buffer.byteLength(files[f]), 0);
    expect(heavy).toBeGreaterThanOrEqual(400_000);
    expect(heavy).toBeLessThanOrEqual(500_000);
    for (const f of WATCH_FILES.scripts) expect(() => new Function(files[f]), f).not.toThrow();
    // The loader asks for exactly these files and images.
    const loader = files[WATCH_FILES.loader];
    for (const f of [WATCH_FILES.style, ...WATCH_FILES.scripts]) expect(loader).toContain(`"/${f}"`);
    for (const f of [VOD_IMAGES.poster, ...VOD_IMAGES.storyboards]) expect(loader).toContain(`"${f}"`);
  });

  it('generates the same content on every build', () => {
    const a = prng(42);
    const b = prng(42);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(new Set(xs).size).toBe(5);
  });
});
