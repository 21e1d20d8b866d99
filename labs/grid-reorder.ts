import { defineGrid } from 'ccbrowse';

// Reordering on the server's side, trained (session 51): the model had never seen more than
// 0.05% of packets reordered, so held-out h-reord-95j1 (3% held 5 ms, 95 ms: 0.7-1.8% measured over TCP)
// read 5 of 17, every TCP flow but BBR's and YeAH's Unknown ("reordering ... trained up to").
// One near and one far distance, with different shares and hold times, two runs each (one-run
// groups let strangers in: session 33). Held out for it: the round M lines in
// labs/grid-heldout.ts, chosen before these were trained or measured. Spliced as .rd30 and .rd140
// with `add-lab-rounds.ts --need-reordering 0.002`: they judge only flows that measured at least
// 0.2% of packets reordered (the lab's unreordered flows: at most 0.05%; these: 0.7-2.3% over
// TCP), so no flow without reordering meets their shapes; their envelope rows count for every
// flow. Ungated, they named held-out kernel NV and Copa Vegas at 0.89-1.00 and lost eight right
// answers on rounds A-L (winning sixteen, seven of them on h-reord-95j1).
export default defineGrid({
  name: 'greorder',
  lab: 'labs/train.ts',
  origins: [
    'tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-westwood', 'tcp-htcp', 'tcp-bic', 'tcp-illinois', 'tcp-veno',
    'tcp-highspeed', 'tcp-scalable', 'tcp-yeah',
    'quinn-newreno', 'quinn-cubic', 'quinn-bbr', 'aioquic-reno', 'aioquic-cubic',
  ],
  base: { path: { rttMs: 30 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 2,
  seconds: 30,
  conditions: [
    { id: 'rd-30j1', axis: 'mixed', value: '2% held 8 ms, 30 ms, 1 ms jitter', path: { rttMs: 30, jitterMs: 1, reorder: { percent: 2, extraMs: 8 } } },
    { id: 'rd-140j3', axis: 'mixed', value: '4% held 4 ms, 140 ms, 3 ms jitter', path: { rttMs: 140, jitterMs: 3, reorder: { percent: 4, extraMs: 4 } } },
    // Round M (labs/grid-heldout.ts) read `video` behind a reordered path 0 of 17: no `video`
    // group had seen reordering. The same two paths behind `video`; held out for them: round N.
    // Their TCP flows only are spliced (.rdv30, .rdv140): with their QUIC flows, QUIC CUBIC behind
    // `video` and reordering read NewReno at 0.94-1.00 (a QUIC sender backs off on reordering as on
    // loss, packet threshold 3); round O measured the TCP-only groups.
    { id: 'rd-video-30j1', axis: 'profile', value: 'video, 2% held 8 ms, 30 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 30, jitterMs: 1, reorder: { percent: 2, extraMs: 8 } } },
    { id: 'rd-video-140j3', axis: 'profile', value: 'video, 4% held 4 ms, 140 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 140, jitterMs: 3, reorder: { percent: 4, extraMs: 4 } } },
  ],
});
