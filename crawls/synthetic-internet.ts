import { defineCrawl } from 'ccbrowse';

// The census of the synthetic internet (labs/synthetic-internet.ts: `ccbrowse lab up --config
// labs/synthetic-internet.ts`): every site's large object probed through both Nebby profiles
// from the three regions, TCP transfers ended once their verdict is stable. Score it against
// the lab's configuration: `npx tsx bench/census.ts --crawl synthetic-internet`.
export default defineCrawl({
  name: 'synthetic-internet',
  lab: 'synth',
  targets: [{ sites: 'sites/synthetic-internet.txt', mode: 'probe' }],
  regions: ['us', 'eu', 'ap'],
  profiles: ['nebby-50', 'nebby-100'],
  stopWhenStable: true,
  concurrency: 1,
  retries: 1,
  backoffSeconds: 10,
});
