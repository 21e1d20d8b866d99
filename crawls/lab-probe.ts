import { defineCrawl } from 'ccbrowse';

// A probe census of the default lab (`ccbrowse lab up`): every site of sites/lab-probe.txt
// fetched through both Nebby profiles from both lab regions, twice, two probes at once.
export default defineCrawl({
  name: 'lab-probe',
  lab: 'default',
  targets: [{ sites: 'sites/lab-probe.txt', mode: 'probe' }],
  regions: ['near', 'far'],
  repeats: 2,
  profiles: ['nebby-50', 'nebby-100'],
  concurrency: 2,
  retries: 2,
  backoffSeconds: 30,
  // schedule: '0 3 * * *',   // a new round every day at 03:00 UTC (fired by `ccbrowse worker`)
});
