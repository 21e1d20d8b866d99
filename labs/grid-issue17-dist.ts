import { defineGrid } from 'ccbrowse';

// Issue 17's senders (BBRv2, BBRv3, FAST as AkamaiCC-like, Copa) at the server distances and on
// the `video` profile the shipped model's `.dist` groups were trained at (labs/grid.ts: rtt-40,
// rtt-80, video-rtt0, video-rtt80; session 32 measured them for the twelve kernel TCP and the QUIC
// stacks only). Training data; judged on held-out conditions chosen before it was measured
// (labs/grid-heldout-delay.ts).
export default defineGrid({
  name: 'g17',
  lab: 'labs/train.ts',
  origins: ['tcp-bbr2', 'tcp-bbr3', 'tcp-fast', 'tcp-copa'],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 3,
  seconds: 30,
  conditions: [
    { id: 'rtt-40', axis: 'server-rtt', value: '40 ms', path: { rttMs: 40 } },
    { id: 'rtt-80', axis: 'server-rtt', value: '80 ms', path: { rttMs: 80 } },
    { id: 'video-rtt0', axis: 'profile', value: 'video, 0 ms', profiles: ['video'], path: { rttMs: 0 } },
    { id: 'video-rtt80', axis: 'profile', value: 'video, 80 ms', profiles: ['video'], path: { rttMs: 80 } },
  ],
});
