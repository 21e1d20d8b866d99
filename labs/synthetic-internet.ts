import { syntheticInternet } from 'ccbrowse';

// The synthetic internet (issue 18): 240 sites (site001..site240.si.ccb.test) on nine hosting
// origins with known controllers (kernel CUBIC, BBR, Reno; BPF Vegas, H-TCP; quinn HTTP/3
// CUBIC and BBR), in three regions that differ: in eu edge-bbr-b runs CUBIC, in ap
// edge-cubic-b runs BBR and host-reno's sites are served over HTTP/3 (quinn NewReno).
// Generated from a seed by src/lab/synthetic-internet.ts; crawls/synthetic-internet.ts probes it
// and bench/census.ts scores the crawl against this configuration.
export default syntheticInternet({ seed: 18, sites: 240, name: 'synth' });
