import { defineGrid } from 'ccbrowse';

// Loss on the server's side of the path, trained (session 43): with 0.3% random loss 70 ms away
// (held-out `h-rtt-70l03`) 12 of 17 lab controllers read Unknown, most "shape outside every
// trained class": no trained flow had lost packets anywhere but at our own bottleneck, so none
// had a window cut short by a random loss before it filled the buffer. Random loss at two rates
// and distances (the lower rate twice) and bursty loss near; held-out loss conditions are in
// labs/grid-heldout.ts.
export default defineGrid({
  name: 'gloss',
  lab: 'labs/train.ts',
  origins: [
    'tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-westwood', 'tcp-htcp', 'tcp-bic', 'tcp-illinois', 'tcp-veno',
    'tcp-highspeed', 'tcp-scalable', 'tcp-yeah',
    'quinn-newreno', 'quinn-cubic', 'quinn-bbr', 'aioquic-reno', 'aioquic-cubic',
  ],
  base: { path: { rttMs: 40 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 1,
  seconds: 30,
  conditions: [
    { id: 'loss-02-40', axis: 'server-loss', value: '0.2% random, 40 ms', path: { rttMs: 40, loss: { percent: 0.2 } }, runs: 2 },
    { id: 'loss-05-120j3', axis: 'mixed', value: '0.5% random, 120 ms, 3 ms jitter', path: { rttMs: 120, jitterMs: 3, loss: { percent: 0.5 } } },
    { id: 'lossb-05-20', axis: 'server-loss', value: '0.5% bursty (4 packets), 20 ms', path: { rttMs: 20, loss: { percent: 0.5, burstLen: 4 } } },
  ],
});
