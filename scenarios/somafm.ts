import { clickFirstVisible, defineScenario, waitForPlayback } from 'ccbrowse';

// Internet radio: SomaFM (listener-supported, no account, no ads). Its web player plays a
// station on a click; if the player cannot be started, the station's direct stream is
// opened instead (Chromium plays it in a media document): the same bytes, the same server.
const STATION = 'groovesalad';

export default defineScenario({
  name: 'somafm',
  description: 'Audio: SomaFM internet radio (Groove Salad) in its web player, anonymous',
  kind: 'audio',
  startUrl: `https://somafm.com/player/#/now-playing/${STATION}`,
  activitySeconds: 60,
  browser: { locale: 'en-US' },
  assetRules: [
    // Icecast streams (ice1..ice6.somafm.com/groovesalad-128-mp3) and HLS audio.
    { match: /somafm\.com\/[a-z0-9]+-\d+-(mp3|aac|aacp)(\?|$)/i, type: 'audio' },
    { match: /hls\.somafm\.com\/.*\.m3u8/i, type: 'manifest' },
    { match: /hls\.somafm\.com\/.*\.(aac|ts|m4s|mp4)(\?|$)/i, type: 'audio' },
  ],
  steps: async ({ page, log, signal }) => {
    const clicked = await clickFirstVisible(
      [
        page.locator('button[aria-label*="play" i], button[title*="play" i], [class*="play-button" i], [class*="playbutton" i]'),
        page.getByRole('button', { name: /^\s*(play|listen|listen now|start)\b/i }),
      ],
      { timeoutMs: 20_000, signal },
    );
    log(clicked >= 0 ? 'clicked the player\'s play button' : 'no play button found in the player');
    let wait = await waitForPlayback(page, { minSeconds: 2, timeoutMs: 30_000, log, signal });
    if (!wait.playing) {
      const stream = `https://ice2.somafm.com/${STATION}-128-mp3`;
      log(`player did not start: opening the direct stream ${stream}`);
      await page.goto(stream, { waitUntil: 'commit', timeout: 45_000 });
      wait = await waitForPlayback(page, { minSeconds: 2, timeoutMs: 30_000, log, signal });
    }
    log(wait.playing ? `audio playing after ${wait.waitedMs} ms` : 'audio not playing');
  },
});
