import { defineGrid } from 'ccbrowse';

// SACK off, trained (session 50): Nebby's own scripts capture with SACK off, and so may a foreign
// capture, but the model was trained with SACK on only, so every SACK-off flow was Unknown
// ("conditions unlike any the model was trained under: SACK off"; held-out h-ns-75j2: 0 of 12).
// One near and one far distance, two runs each (one-run groups let strangers in: session 33),
// TCP only (QUIC always acknowledges ranges). Held out for it: h-ns-75j2 and the SACK-off lines
// after it in labs/grid-heldout.ts. Spliced as .ns20 and .ns130 groups, they were not kept: the
// held-out SACK-off flows mostly still matched no class, the aggressive senders' SACK-off shapes
// took each other (Scalable read YeAH at 1.00), and SACK-on answers were lost
// (docs/benchmarks/conditions.md, "Session 50").
const TCP = ['tcp'] as const;
export default defineGrid({
  name: 'gnosack',
  lab: 'labs/train.ts',
  origins: [
    'tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-westwood', 'tcp-htcp', 'tcp-bic', 'tcp-illinois', 'tcp-veno',
    'tcp-highspeed', 'tcp-scalable', 'tcp-yeah',
  ],
  base: { path: { rttMs: 20 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 2,
  seconds: 30,
  conditions: [
    { id: 'ns-20j1', axis: 'mixed', value: 'SACK off, 20 ms, 1 ms jitter', path: { rttMs: 20, jitterMs: 1 }, profile: { sack: false }, protocols: [...TCP] },
    { id: 'ns-130j3', axis: 'mixed', value: 'SACK off, 130 ms, 3 ms jitter', path: { rttMs: 130, jitterMs: 3 }, profile: { sack: false }, protocols: [...TCP] },
  ],
});
