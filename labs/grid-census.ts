import { defineGrid } from 'ccbrowse';

// The census's own conditions in the lab (session 42): the synthetic internet's three regions
// (labs/synthetic-internet.ts: us 10 ms with 1 ms jitter, eu 40 ms with 2 ms, ap 150 ms with 5 ms)
// and the controllers its origins run, both Nebby profiles, three runs. The per-flow lab accuracy
// under the very conditions a census crawl of the synthetic internet meets (docs/benchmarks/crawl.md).
export default defineGrid({
  name: 'census',
  lab: 'labs/train.ts',
  origins: ['tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-htcp', 'quinn-newreno', 'quinn-cubic', 'quinn-bbr'],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 3,
  seconds: 30,
  conditions: [
    { id: 'census-us', axis: 'mixed', value: 'region us: 10 ms, 1 ms jitter', path: { rttMs: 10, jitterMs: 1 } },
    { id: 'census-eu', axis: 'mixed', value: 'region eu: 40 ms, 2 ms jitter', path: { rttMs: 40, jitterMs: 2 } },
    { id: 'census-ap', axis: 'mixed', value: 'region ap: 150 ms, 5 ms jitter', path: { rttMs: 150, jitterMs: 5 } },
  ],
});
