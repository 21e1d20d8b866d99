import { defineGrid } from 'ccbrowse';

// Issue 17's senders (BBRv2, BBRv3, FAST as AkamaiCC-like, Copa) away from the lab's base
// (session 46). Their classes were trained at 10 ms only, so held out farther away they read
// mostly Unknown (labs/grid-heldout-delay.ts: BBRv2 17 of 18, BBRv3 17 of 18, Copa 15 of 18).
// Session 35 trained them at the .dist conditions (labs/grid-issue17-dist.ts) as one widened
// group per class, one run per condition, and a stranger fell inside (TCP-LP named BBRv3); here
// each condition is spliced as its own group (as the twelve's .far100/.far250), two runs at the
// conditions nearest the held-out distances (one at 250 ms and behind video at 150 ms, as the
// twelve's .far250 and .fv150). No condition repeats a held-out condition of these senders; two
// are repeated on purpose for the open set (labs/grid-heldout-open.ts ho-rtt-80j2, ho-video-80j1:
// strangers where these groups could take them in).
export default defineGrid({
  name: 'g17far',
  lab: 'labs/train.ts',
  origins: ['tcp-bbr2', 'tcp-bbr3', 'tcp-fast', 'tcp-copa'],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 2,
  seconds: 30,
  conditions: [
    { id: 't17-40j1', axis: 'mixed', value: '40 ms, 1 ms jitter', path: { rttMs: 40, jitterMs: 1 } },
    { id: 't17-80j2', axis: 'mixed', value: '80 ms, 2 ms jitter', path: { rttMs: 80, jitterMs: 2 } },
    { id: 't17-150j5', axis: 'mixed', value: '150 ms, 5 ms jitter', path: { rttMs: 150, jitterMs: 5 } },
    { id: 't17-250j4', axis: 'mixed', value: '250 ms, 4 ms jitter', path: { rttMs: 250, jitterMs: 4 }, runs: 1 },
    { id: 't17-video-80j1', axis: 'profile', value: 'video, 80 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 80, jitterMs: 1 } },
    { id: 't17-video-150j3', axis: 'profile', value: 'video, 150 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 150, jitterMs: 3 }, runs: 1 },
    // Session 47: the same gap for issue 17's senders (hd-video-95j3 read 4 of 15).
    { id: 't17-video-115j2', axis: 'profile', value: 'video, 115 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 115, jitterMs: 2 } },
    // Session 48: behind `video` BBRv2 read as Vegas and BBRv3 outside every shape held out at 100-140
    // ms (session 47 rounds A-C): two more distances, three runs each for the spread.
    { id: 't17-video-105j1', axis: 'profile', value: 'video, 105 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 105, jitterMs: 1 }, runs: 3 },
    { id: 't17-video-135j1', axis: 'profile', value: 'video, 135 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 135, jitterMs: 1 }, runs: 3 },
    // Session 48: behind nebby-100 BBRv3 read BBRv2 at 0.86-0.97 held out at 100 and 120 ms
    // (hd-rtt-100j4, hd-rtt-120j3), between the trained 80 and 150 ms.
    { id: 't17-110j2', axis: 'mixed', value: '110 ms, 2 ms jitter', path: { rttMs: 110, jitterMs: 2 } },
  ],
});
