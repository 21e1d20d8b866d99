import { defineLab } from '../../src/lab/config.js';

// tests/fixtures/labs/vod-mix.ts, region "tcp" only, under its own name (bench/stop-when-stable.ts, docs/benchmarks/speed.md).
export default defineLab({
  name: 'wt20-stop',
  origins: [
    { name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' },
    { name: 'media', hosts: ['media.lab.ccb.test'], cca: 'bbr' },
    { name: 'img', hosts: ['img.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'cubic' },
  ],
  regions: [{ name: 'tcp', rttMs: 0, origins: ['www', 'media', 'img'] }],
});
