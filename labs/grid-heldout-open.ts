import { defineGrid } from 'ccbrowse';

// The open set (controllers no class is trained on) on held-out conditions: a correct answer is
// Unknown or the stranger's design family, never a confident wrong label. Chosen (session 36)
// after the link-idle bound (lossBased.ts linkIdle) was written and before either was measured
// (its threshold and margin were set while these ran, before their results were read); the same
// conditions as grid-heldout.ts `h-video-50j` and `h-rtt-90` for the trained controllers.
export default defineGrid({
  name: 'ho',
  lab: 'labs/open-set.ts',
  origins: ['tcp-lp', 'tcp-cdg', 'tcp-hybla', 'tcp-nv', 'tcp-dctcp'],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 2,
  seconds: 30,
  conditions: [
    { id: 'ho-video-50j', axis: 'profile', value: 'video, 50 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 50, jitterMs: 1 } },
    { id: 'ho-rtt-90', axis: 'server-rtt', value: '90 ms', path: { rttMs: 90 } },
    // Chosen (session 42) with the far groups (labs/grid-far.ts), before they were trained: strangers
    // at a trained far condition (150 ms, 5 ms jitter) and at the held-out 175 ms (h-rtt-175j4).
    { id: 'ho-rtt-150j5', axis: 'mixed', value: '150 ms, 5 ms jitter', path: { rttMs: 150, jitterMs: 5 } },
    { id: 'ho-rtt-175j4', axis: 'mixed', value: '175 ms, 4 ms jitter', path: { rttMs: 175, jitterMs: 4 } },
    // Chosen (session 43) with the server-side loss groups (labs/grid-loss.ts), before they were
    // trained: strangers at the held-out loss condition h-rtt-70l03 (0.3% random, 70 ms, 2 ms jitter).
    { id: 'ho-loss-03-70j2', axis: 'mixed', value: '0.3% loss, 70 ms, 2 ms jitter', path: { rttMs: 70, jitterMs: 2, loss: { percent: 0.3 } } },
    // Chosen (session 43) with h-loss-04-30j1, after the BBRv1 signature rule under loss was written.
    { id: 'ho-lossb-05-100', axis: 'mixed', value: '0.5% bursty (2 packets), 100 ms', path: { rttMs: 100, loss: { percent: 0.5, burstLen: 2 } } },
    // Chosen (session 46) with issue 17's far groups (labs/grid-issue17-far.ts), before they were
    // trained: strangers at two of its trained conditions, where a widened BBRv2/BBRv3/Copa/FAST
    // class would take them in (session 35: TCP-LP named BBRv3 at 0.85).
    { id: 'ho-rtt-80j2', axis: 'mixed', value: '80 ms, 2 ms jitter', path: { rttMs: 80, jitterMs: 2 } },
    { id: 'ho-video-80j1', axis: 'profile', value: 'video, 80 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 80, jitterMs: 1 }, runs: 1 },
    // Chosen (session 47) on a new machine, before anything was measured on it or changed.
    { id: 'ho-rtt-60j3', axis: 'mixed', value: '60 ms, 3 ms jitter', path: { rttMs: 60, jitterMs: 3 } },
    // Chosen (session 47) after its code and model were final, before this was measured: strangers
    // behind `video` between the trained distances (TCP-CDG backs off on delay, not loss).
    { id: 'ho-video-120j2', axis: 'profile', value: 'video, 120 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 120, jitterMs: 2 }, runs: 1 },
    // Chosen (session 59) after its one-profile signatures were written, before any stranger was read
    // under them: strangers at bottleneck rates no group is trained on, where the groups trained
    // beyond the first conditions judge alone.
    { id: 'ho-r600-80j2', axis: 'bottleneck', value: '600 kbit/s behind both Nebby profiles, 80 ms, 2 ms jitter', path: { rttMs: 80, jitterMs: 2 }, profile: { rateKbit: 600 } },
    { id: 'ho-v1800-60j1', axis: 'bottleneck', value: 'video at 1.8 Mbit/s, 60 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 60, jitterMs: 1 }, profile: { rateKbit: 1800 }, runs: 1 },
    // Chosen (session 60) after the open set above named kernel NV AkamaiCC-like with session 60's
    // added groups, before the fix was measured on strangers: other rates, both kinds of profile.
    { id: 'ho-r1100-45j1', axis: 'bottleneck', value: '1.1 Mbit/s behind both Nebby profiles, 45 ms, 1 ms jitter', path: { rttMs: 45, jitterMs: 1 }, profile: { rateKbit: 1100 } },
    { id: 'ho-v2600-100j2', axis: 'bottleneck', value: 'video at 2.6 Mbit/s, 100 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 100, jitterMs: 2 }, profile: { rateKbit: 2600 }, runs: 1 },
    // Chosen (session 61) at its start, before anything was measured: strangers for round AQ.
    { id: 'ho-r900-120j1', axis: 'bottleneck', value: '900 kbit/s behind both Nebby profiles, 120 ms, 1 ms jitter', path: { rttMs: 120, jitterMs: 1 }, profile: { rateKbit: 900 } },
    { id: 'ho-v1500-70j2', axis: 'bottleneck', value: 'video at 1.5 Mbit/s, 70 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 70, jitterMs: 2 }, profile: { rateKbit: 1500 }, runs: 1 },
  ],
});
