import { defineCrawl } from 'ccbrowse';

// The census benchmark's crawl (docs/benchmarks/crawl.md): the first site of each of the
// synthetic internet's nine hosting origins, from its three regions (27 site-measurements),
// through both Nebby profiles, TCP transfers ended once their verdict is stable.
export default defineCrawl({
  name: 'synthetic-internet-sample',
  lab: 'synth',
  targets: [{ sites: 'sites/synthetic-internet-sample.txt', mode: 'probe' }],
  regions: ['us', 'eu', 'ap'],
  profiles: ['nebby-50', 'nebby-100'],
  stopWhenStable: true,
  concurrency: 1,
  retries: 1,
  backoffSeconds: 10,
});
