import { defineCrawl } from 'ccbrowse';

// A browser-mode crawl of the default lab (`ccbrowse lab up`): the five lab scenarios (video on
// demand, live video, audio, a video call, a static page) from two regions, through both Nebby
// profiles, two sessions at once (each its own namespaces, Chromium and captures). The browser-mode
// throughput benchmark (docs/benchmarks/crawl.md).
export default defineCrawl({
  name: 'lab-browser',
  lab: 'default',
  targets: [
    { scenario: '../scenarios/lab/vod.ts' },
    { scenario: '../scenarios/lab/live.ts' },
    { scenario: '../scenarios/lab/audio.ts' },
    { scenario: '../scenarios/lab/call.ts' },
    { scenario: '../scenarios/lab/static.ts' },
  ],
  regions: ['near', 'far'],
  profiles: ['nebby-50', 'nebby-100'],
  concurrency: 2,
  retries: 1,
  backoffSeconds: 10,
});
