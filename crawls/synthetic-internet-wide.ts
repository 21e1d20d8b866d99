import { defineCrawl } from 'ccbrowse';

// A wider census sample than synthetic-internet-sample.ts (docs/benchmarks/crawl.md, session 42):
// 27 sites (010-036) from the three regions, 81 cells of 1.2 points each where the sample's 27
// cells are 3.7 points each; both Nebby profiles, TCP transfers ended once their verdict is stable.
export default defineCrawl({
  name: 'synthetic-internet-wide',
  lab: 'synth',
  targets: [{ sites: 'sites/synthetic-internet-wide.txt', mode: 'probe' }],
  regions: ['us', 'eu', 'ap'],
  profiles: ['nebby-50', 'nebby-100'],
  stopWhenStable: true,
  concurrency: 1,
  retries: 1,
  backoffSeconds: 10,
});
