import { defineGrid } from 'ccbrowse';

// The conditions grid (issue 16): each condition changes one thing (or, for the mixed ones,
// several) from the base: lab region 10 ms from the bottleneck, both Nebby profiles, 4 probes
// at once. `ccbrowse lab grid labs/grid.ts` measures all 17 lab controllers under each (TCP-only
// axes: the 12 TCP ones) and writes one dataset per condition (docs/benchmarks/conditions.md).
const TCP = ['tcp'] as const;
export default defineGrid({
  name: 'g1',
  lab: 'labs/train.ts',
  origins: [
    'tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-westwood', 'tcp-htcp', 'tcp-bic', 'tcp-illinois', 'tcp-veno',
    'tcp-highspeed', 'tcp-scalable', 'tcp-yeah',
    'quinn-newreno', 'quinn-cubic', 'quinn-bbr', 'aioquic-reno', 'aioquic-cubic',
  ],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 2,
  seconds: 30,
  conditions: [
    { id: 'base', axis: 'base', value: '10 ms, both Nebby profiles', runs: 3 },
    { id: 'video', axis: 'profile', value: 'video (1.5 Mbit/s)', profiles: ['video'], runs: 3 },
    { id: 'rtt-0', axis: 'server-rtt', value: '0 ms', path: { rttMs: 0 } },
    { id: 'rtt-40', axis: 'server-rtt', value: '40 ms', path: { rttMs: 40 } },
    { id: 'rtt-80', axis: 'server-rtt', value: '80 ms', path: { rttMs: 80 } },
    { id: 'rtt-150', axis: 'server-rtt', value: '150 ms', path: { rttMs: 150 } },
    { id: 'rtt-300', axis: 'server-rtt', value: '300 ms', path: { rttMs: 300 } },
    { id: 'sack-off', axis: 'sack', value: 'off', profile: { sack: false }, protocols: [...TCP] },
    { id: 'mss-off', axis: 'mss', value: 'no clamp', profile: { tcpMss: null }, protocols: [...TCP] },
    { id: 'buf-05', axis: 'buffer', value: '0.5 BDP', profile: { buffer: { bdp: 0.5 } } },
    { id: 'buf-1', axis: 'buffer', value: '1 BDP', profile: { buffer: { bdp: 1 } } },
    { id: 'buf-4', axis: 'buffer', value: '4 BDP', profile: { buffer: { bdp: 4 } } },
    { id: 'loss-05', axis: 'server-loss', value: '0.5% random', path: { loss: { percent: 0.5 } } },
    { id: 'loss-2', axis: 'server-loss', value: '2% random', path: { loss: { percent: 2 } } },
    { id: 'lossb-1', axis: 'server-loss', value: '1% bursty (4 packets)', path: { loss: { percent: 1, burstLen: 4 } } },
    { id: 'jit-3', axis: 'jitter', value: '3 ms, no reordering', path: { jitterMs: 3 } },
    { id: 'jit-10', axis: 'jitter', value: '10 ms, no reordering', path: { jitterMs: 10 } },
    { id: 'jitr-5', axis: 'jitter-reorder', value: '5 ms, reordering', path: { jitterMs: 5, jitterReorders: true } },
    { id: 'reord-2', axis: 'reorder', value: '2% held 10 ms', path: { reorder: { percent: 2, extraMs: 10 } } },
    { id: 'iw-40', axis: 'initcwnd', value: '40 segments', path: { sender: { initcwnd: 40, pacing: false, tso: false } }, protocols: [...TCP] },
    { id: 'pacing', axis: 'pacing', value: 'on', path: { sender: { pacing: true, tso: false } }, protocols: [...TCP] },
    { id: 'tso', axis: 'tso', value: 'on', path: { sender: { tso: true, pacing: false } }, protocols: [...TCP] },
    { id: 'ackagg-20', axis: 'ack', value: 'aggregated every 20 ms', profile: { ackAggregationMs: 20 } },
    { id: 'quickack', axis: 'ack', value: 'no delayed ACKs', profile: { delayedAck: false }, protocols: [...TCP] },
    { id: 'host-1', axis: 'host', value: '1 probe at a time', host: { concurrency: 1 }, runs: 1 },
    { id: 'host-load', axis: 'host', value: '4 at once + 2 busy processes', host: { concurrency: 4, cpuLoad: 2 } },
    { id: 'cross', axis: 'cross-traffic', value: 'CUBIC download in the queue', crossTraffic: 'tcp-cubic' },
    { id: 'xpath', axis: 'cross-traffic', value: 'server-side path of 2 Mbit/s shared with a CUBIC download', path: { crossTraffic: { pathRateKbit: 2000, bufferMs: 30, from: 'tcp-cubic' } } },
    { id: 'video-rtt80', axis: 'profile', value: 'video, 80 ms', profiles: ['video'], path: { rttMs: 80 } },
    // The video profile along the main axes too, so its verdicts are measured like the Nebby profiles'.
    { id: 'video-rtt0', axis: 'profile', value: 'video, 0 ms', profiles: ['video'], path: { rttMs: 0 } },
    { id: 'video-rtt150', axis: 'profile', value: 'video, 150 ms', profiles: ['video'], path: { rttMs: 150 } },
    { id: 'video-buf1', axis: 'profile', value: 'video, 1 BDP', profiles: ['video'], profile: { buffer: { bdp: 1 } } },
    { id: 'video-buf4', axis: 'profile', value: 'video, 4 BDP', profiles: ['video'], profile: { buffer: { bdp: 4 } } },
    { id: 'video-lossb', axis: 'profile', value: 'video, 1% bursty loss', profiles: ['video'], path: { loss: { percent: 1, burstLen: 4 } } },
    { id: 'video-jit', axis: 'profile', value: 'video, 5 ms reordering jitter', profiles: ['video'], path: { jitterMs: 5, jitterReorders: true } },
    // Other bottlenecks (foreign captures are taken behind them): rate, delay, buffer, segments, SACK.
    { id: 'bn-100k-25', axis: 'bottleneck', value: '100 kbit/s, 25 ms, 1 BDP', profiles: ['nebby-50'], profile: { rateKbit: 100, delayMs: 25, buffer: { bdp: 1 } } },
    { id: 'bn-400k-20', axis: 'bottleneck', value: '400 kbit/s, 20 ms, 1 BDP', profiles: ['nebby-50'], profile: { rateKbit: 400, delayMs: 20, buffer: { bdp: 1 } } },
    { id: 'bn-400k-45ns', axis: 'bottleneck', value: '400 kbit/s, 45 ms, 1 BDP, SACK off', profiles: ['nebby-50'], profile: { rateKbit: 400, delayMs: 45, buffer: { bdp: 1 }, sack: false } },
    { id: 'bn-50k-45', axis: 'bottleneck', value: '50 kbit/s, 45 ms, 2 BDP', profiles: ['nebby-50'], profile: { rateKbit: 50, delayMs: 45 } },
    { id: 'bn-1m-25', axis: 'bottleneck', value: '1 Mbit/s, 25 ms, 1 BDP, MSS 500', profiles: ['nebby-50'], profile: { rateKbit: 1000, delayMs: 25, buffer: { bdp: 1 }, tcpMss: 500 } },
    { id: 'bn-200k-10', axis: 'bottleneck', value: '200 kbit/s, 10 ms, 2 BDP', profiles: ['nebby-50'], profile: { delayMs: 10 } },
    // Mixed conditions: several axes at once, as real paths are.
    { id: 'mix-a', axis: 'mixed', value: '40 ms, 3 ms jitter, 0.5% loss, IW 40, paced', path: { rttMs: 40, jitterMs: 3, loss: { percent: 0.5 }, sender: { initcwnd: 40, pacing: true, tso: false } } },
    { id: 'mix-b', axis: 'mixed', value: '150 ms, 5 ms reordering jitter, 1 BDP', path: { rttMs: 150, jitterMs: 5, jitterReorders: true }, profile: { buffer: { bdp: 1 } } },
  ],
});
