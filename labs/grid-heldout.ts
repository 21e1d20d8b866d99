import { defineGrid } from 'ccbrowse';

// Held-out conditions (issue 16): values and combinations the training grid (labs/grid.ts) never
// measured, probed after every choice of the classifier was fixed, to test it on paths it was not
// tuned on. One measurement per controller and condition.
const TCP = ['tcp'] as const;
export default defineGrid({
  name: 'h1',
  lab: 'labs/train.ts',
  origins: [
    'tcp-reno', 'tcp-cubic', 'tcp-bbr', 'tcp-vegas', 'tcp-westwood', 'tcp-htcp', 'tcp-bic', 'tcp-illinois', 'tcp-veno',
    'tcp-highspeed', 'tcp-scalable', 'tcp-yeah',
    'quinn-newreno', 'quinn-cubic', 'quinn-bbr', 'aioquic-reno', 'aioquic-cubic',
  ],
  base: { path: { rttMs: 10 }, profiles: ['nebby-50', 'nebby-100'], host: { concurrency: 4 } },
  runs: 1,
  seconds: 30,
  conditions: [
    { id: 'h-base', axis: 'base', value: 'a fresh round of the base condition' },
    { id: 'h-rtt-200', axis: 'server-rtt', value: '200 ms', path: { rttMs: 200 } },
    { id: 'h-rtt-25j', axis: 'mixed', value: '25 ms, 2 ms jitter, 0.2% loss', path: { rttMs: 25, jitterMs: 2, loss: { percent: 0.2 } } },
    { id: 'h-buf-3', axis: 'buffer', value: '3 BDP', profile: { buffer: { bdp: 3 } } },
    { id: 'h-buf-07ns', axis: 'mixed', value: '0.7 BDP, SACK off', profile: { buffer: { bdp: 0.7 }, sack: false }, protocols: [...TCP] },
    { id: 'h-loss-1b', axis: 'server-loss', value: '1% bursty (8 packets), 60 ms', path: { rttMs: 60, loss: { percent: 1, burstLen: 8 } } },
    { id: 'h-reord', axis: 'reorder', value: '5% held 4 ms, 30 ms', path: { rttMs: 30, reorder: { percent: 5, extraMs: 4 } } },
    { id: 'h-video-40', axis: 'profile', value: 'video, 40 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 40, jitterMs: 3 } },
    { id: 'h-bn-300k', axis: 'bottleneck', value: '300 kbit/s, 35 ms, 1.5 BDP', profiles: ['nebby-50'], profile: { rateKbit: 300, delayMs: 35, buffer: { bdp: 1.5 } } },
    { id: 'h-bn-150k-ns', axis: 'bottleneck', value: '150 kbit/s, 30 ms, 1 BDP, SACK off', profiles: ['nebby-50'], profile: { rateKbit: 150, delayMs: 30, buffer: { bdp: 1 }, sack: false }, protocols: [...TCP] },
    { id: 'h-iw-pace', axis: 'mixed', value: 'IW 20, paced, TSO, 80 ms', path: { rttMs: 80, sender: { initcwnd: 20, pacing: true, tso: true } }, protocols: [...TCP] },
    { id: 'h-load', axis: 'host', value: '6 at once + 3 busy processes', host: { concurrency: 6, cpuLoad: 3 } },
    // Chosen (session 32) before any server-distance training was measured, never trained or
    // tuned on: 60 ms with a little jitter lies between trained distances (40, 80 ms); `video`
    // at 110 ms lies beyond its farthest (80 ms).
    { id: 'h-rtt-60j', axis: 'mixed', value: '60 ms, 1 ms jitter', path: { rttMs: 60, jitterMs: 1 } },
    { id: 'h-video-110', axis: 'profile', value: 'video, 110 ms', profiles: ['video'], path: { rttMs: 110 } },
    // Chosen (session 33) before the nearer-class rule (lossBased nearerClassFactor, written after
    // session 32's held-out video wrongs) was measured on them: `video` 25 ms away with 2 ms
    // jitter, and both Nebby profiles 120 ms away.
    { id: 'h-video-25j', axis: 'profile', value: 'video, 25 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 25, jitterMs: 2 } },
    { id: 'h-rtt-120', axis: 'server-rtt', value: '120 ms', path: { rttMs: 120 } },
    // Chosen (session 33) before the nearer-class rule's margin was measured (it was set after
    // h-video-25j and h-rtt-120), and before the model trained at 150 ms and with jitter was built.
    { id: 'h-video-60j', axis: 'profile', value: 'video, 60 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 60, jitterMs: 2 } },
    { id: 'h-rtt-100j', axis: 'mixed', value: '100 ms, 2 ms jitter', path: { rttMs: 100, jitterMs: 2 } },
    // Chosen (session 34) after the lone-answer rule (fusion.ts loneAnswerConfidence) was fixed and
    // before either was measured: a server distance between the trained ones with jitter, and video
    // farther than any video condition trained on.
    { id: 'h-rtt-50j', axis: 'mixed', value: '50 ms, 2 ms jitter', path: { rttMs: 50, jitterMs: 2 } },
    { id: 'h-video-90j', axis: 'profile', value: 'video, 90 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 90, jitterMs: 1 } },
    // Chosen (session 35) after QUIC flows got their reordering measured from packet numbers and
    // before either was measured: reordering on its own at a distance no reordering condition had,
    // and reordering jitter on the `video` profile farther than `video-jit` (10 ms).
    { id: 'h-reord-45', axis: 'reorder', value: '3% held 6 ms, 45 ms', path: { rttMs: 45, reorder: { percent: 3, extraMs: 6 } } },
    { id: 'h-video-jitr', axis: 'profile', value: 'video, 35 ms, 3 ms reordering jitter', profiles: ['video'], path: { rttMs: 35, jitterMs: 3, jitterReorders: true } },
    // Chosen (session 36) after the link-idle bound (lossBased.ts linkIdle) was written, at 0.8 BDP
    // and margin 0.15; it was set to 0.65 BDP and 0.1 while these ran, before their results were
    // read: `video` at a distance between trained ones with jitter, and both Nebby profiles 90 ms
    // away (Westwood leaves the link idler the farther the server).
    { id: 'h-video-50j', axis: 'profile', value: 'video, 50 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 50, jitterMs: 1 } },
    { id: 'h-rtt-90', axis: 'server-rtt', value: '90 ms', path: { rttMs: 90 } },
    // Chosen (session 36) to test a calibrated 0.85 floor for single-profile answers (the
    // calibration's minAnswerSingle; not taken: it withheld 2 right answers here and no wrong one),
    // before either was measured: `video` nearer and farther than any video condition held out so far.
    { id: 'h-video-15j', axis: 'profile', value: 'video, 15 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 15, jitterMs: 1 } },
    { id: 'h-video-70', axis: 'profile', value: 'video, 70 ms', profiles: ['video'], path: { rttMs: 70 } },
    // Chosen (session 42) before the far groups (labs/grid-far.ts: 150 ms with 5 ms jitter, 200 ms
    // with 2 ms jitter) were trained or these measured: a distance between the farthest trained
    // before (80 ms) and the new 150 ms, and one between the two new ones, each with other jitter.
    { id: 'h-rtt-125j3', axis: 'mixed', value: '125 ms, 3 ms jitter', path: { rttMs: 125, jitterMs: 3 } },
    { id: 'h-rtt-175j4', axis: 'mixed', value: '175 ms, 4 ms jitter', path: { rttMs: 175, jitterMs: 4 } },
    // Chosen (session 42) after the far groups were trained and the paused-drain backing of BBRv1
    // (bbr.ts pausedDrainMaxRtts) was written on the conditions above, before this was measured.
    { id: 'h-rtt-110j5', axis: 'mixed', value: '110 ms, 5 ms jitter', path: { rttMs: 110, jitterMs: 5 } },
    // Chosen (session 43) before the HSTCP rule read back-offs on the sender's whole window (the
    // unseen part of the path added back: hstcp.ts) was written, and before these were measured:
    // 140 ms, 95 ms with a 1.5-BDP buffer, and 70 ms with server-side loss.
    { id: 'h-rtt-140j2', axis: 'mixed', value: '140 ms, 2 ms jitter', path: { rttMs: 140, jitterMs: 2 } },
    { id: 'h-rtt-95b15', axis: 'mixed', value: '95 ms, 1 ms jitter, 1.5 BDP', path: { rttMs: 95, jitterMs: 1 }, profile: { buffer: { bdp: 1.5 } } },
    { id: 'h-rtt-70l03', axis: 'mixed', value: '70 ms, 0.3% loss, 2 ms jitter', path: { rttMs: 70, jitterMs: 2, loss: { percent: 0.3 } } },
    // Chosen (session 43) after h-rtt-70l03 was read and before the server-side loss groups
    // (labs/grid-loss.ts) were trained or these measured: a lower loss rate farther away, and
    // bursty loss at a distance and burst length no loss condition had.
    { id: 'h-loss-015-130j4', axis: 'mixed', value: '0.15% loss, 130 ms, 4 ms jitter', path: { rttMs: 130, jitterMs: 4, loss: { percent: 0.15 } } },
    { id: 'h-lossb-06-55', axis: 'mixed', value: '0.6% bursty (3 packets), 55 ms', path: { rttMs: 55, loss: { percent: 0.6, burstLen: 3 } } },
    // Chosen (session 43) after BBRv1's repeated ProbeRTT signature was let stand under loss on the
    // server's side (classifyFlow.ts signatureUnderLoss, written on the two above), before this was measured.
    { id: 'h-loss-04-30j1', axis: 'mixed', value: '0.4% loss, 30 ms, 1 ms jitter', path: { rttMs: 30, jitterMs: 1, loss: { percent: 0.4 } } },
    // Chosen (session 44) before the far groups at 100 and 250 ms (labs/grid-far.ts far-100j3,
    // far-250j4) were trained or these measured: distances between the trained ones (80, 100, 150,
    // 200, 250 ms) with other jitter, one with a 3-BDP buffer.
    { id: 'h-rtt-85j4', axis: 'mixed', value: '85 ms, 4 ms jitter', path: { rttMs: 85, jitterMs: 4 } },
    { id: 'h-rtt-130j1', axis: 'mixed', value: '130 ms, 1 ms jitter', path: { rttMs: 130, jitterMs: 1 } },
    { id: 'h-rtt-225j3b3', axis: 'mixed', value: '225 ms, 3 ms jitter, 3 BDP', path: { rttMs: 225, jitterMs: 3 }, profile: { buffer: { bdp: 3 } } },
    // Chosen (session 44) before the envelope's unit for loss on the server's side was reconsidered
    // (a held-out Veno read Westwood at 0.10% of bytes, the unit's edge) and before these were
    // measured: light random loss, nearer and farther.
    { id: 'h-loss-005-90j2', axis: 'mixed', value: '0.05% loss, 90 ms, 2 ms jitter', path: { rttMs: 90, jitterMs: 2, loss: { percent: 0.05 } } },
    { id: 'h-loss-01-45', axis: 'mixed', value: '0.1% loss, 45 ms', path: { rttMs: 45, loss: { percent: 0.1 } } },
    // Chosen (session 44) after the far groups at 100 and 250 ms were chosen as separate groups
    // and before these were measured: `video` at distances no video condition had.
    { id: 'h-video-45j2', axis: 'profile', value: 'video, 45 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 45, jitterMs: 2 } },
    { id: 'h-video-130j3', axis: 'profile', value: 'video, 130 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 130, jitterMs: 3 } },
    // Chosen (session 44) before the far `video` groups (labs/grid-far.ts far-video-150j3,
    // far-video-250j2) were trained or these measured.
    { id: 'h-video-105j4', axis: 'profile', value: 'video, 105 ms, 4 ms jitter', profiles: ['video'], path: { rttMs: 105, jitterMs: 4 } },
    { id: 'h-video-190j2', axis: 'profile', value: 'video, 190 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 190, jitterMs: 2 } },
    // Chosen (session 44) after the shipped model and code were final, before these were measured:
    // a fresh check of both at distances between the trained ones.
    { id: 'h-rtt-165j2', axis: 'mixed', value: '165 ms, 2 ms jitter', path: { rttMs: 165, jitterMs: 2 } },
    { id: 'h-video-120j2', axis: 'profile', value: 'video, 120 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 120, jitterMs: 2 } },
    // Chosen (session 45) after its code and model were final (the Copa groups, drains.ts, the
    // BBRv1 drain veto), before these were measured.
    { id: 'h-rtt-55j3', axis: 'mixed', value: '55 ms, 3 ms jitter', path: { rttMs: 55, jitterMs: 3 } },
    { id: 'h-video-75j3', axis: 'profile', value: 'video, 75 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 75, jitterMs: 3 } },
    // Chosen (session 46) after its code and model were final (issue 17's far groups, the BBR
    // version's visible-share doubt, Vegas's queue), before these were measured: Vegas and the
    // others behind `video`, where the queue rule reads.
    { id: 'h-video-60j2', axis: 'profile', value: 'video, 60 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 60, jitterMs: 2 } },
    // Chosen (session 47) on a new machine, before anything was measured on it or changed: the
    // shipped model's first look at a host it was never trained on, between trained distances.
    { id: 'h-rtt-70j3', axis: 'mixed', value: '70 ms, 3 ms jitter', path: { rttMs: 70, jitterMs: 3 } },
    { id: 'h-video-100j2', axis: 'profile', value: 'video, 100 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 100, jitterMs: 2 } },
    // Chosen (session 47) with the `video` group at 115 ms (labs/grid-far.ts far-video-115j2),
    // before it was collected or trained: two distances its gap covers.
    { id: 'h-video-105j1', axis: 'profile', value: 'video, 105 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 105, jitterMs: 1 } },
    { id: 'h-video-135j2', axis: 'profile', value: 'video, 135 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 135, jitterMs: 2 } },
    // Chosen (session 47) after its code and model were final (the `video` groups at 115 ms, back-offs
    // without loss), before this was measured.
    { id: 'h-rtt-40j4', axis: 'mixed', value: '40 ms, 4 ms jitter', path: { rttMs: 40, jitterMs: 4 } },
    // Chosen (session 47) after the full suite passed on the final code and model, before these
    // were measured: a last blind look at both kinds of condition.
    { id: 'h-video-85j3', axis: 'profile', value: 'video, 85 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 85, jitterMs: 3 } },
    // Session 48, round E (as labs/grid-heldout-delay.ts): chosen before anything was changed or measured.
    { id: 'h-video-115j3', axis: 'profile', value: 'video, 115 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 115, jitterMs: 3 } },
    // Session 48, round G (as labs/grid-heldout-delay.ts).
    { id: 'h-rtt-55j2', axis: 'mixed', value: '55 ms, 2 ms jitter', path: { rttMs: 55, jitterMs: 2 } },
    // Session 48, round H (as labs/grid-heldout-delay.ts).
    { id: 'h-video-95j1', axis: 'profile', value: 'video, 95 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 95, jitterMs: 1 } },
    // Session 49, round I: chosen before anything was measured or changed this session. The axes the
    // recent rounds left alone (ACK handling, buffer, segments, bottleneck rate, cross traffic), each
    // combined with a distance and jitter no training condition has.
    { id: 'h-ackagg15-70j2', axis: 'mixed', value: 'ACKs aggregated every 15 ms, 70 ms, 2 ms jitter', path: { rttMs: 70, jitterMs: 2 }, profile: { ackAggregationMs: 15 } },
    { id: 'h-buf06-90j1', axis: 'mixed', value: '0.6 BDP, 90 ms, 1 ms jitter', path: { rttMs: 90, jitterMs: 1 }, profile: { buffer: { bdp: 0.6 } } },
    { id: 'h-quickack-110j2', axis: 'mixed', value: 'no delayed ACKs, 110 ms, 2 ms jitter', path: { rttMs: 110, jitterMs: 2 }, profile: { delayedAck: false }, protocols: [...TCP] },
    { id: 'h-video-mss-65j2', axis: 'profile', value: 'video, no MSS clamp, 65 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 65, jitterMs: 2 }, profile: { tcpMss: null }, protocols: [...TCP] },
    { id: 'h-bn-700k-60', axis: 'bottleneck', value: '700 kbit/s, 30 ms, 1.5 BDP, 60 ms away', profiles: ['nebby-50'], path: { rttMs: 60 }, profile: { rateKbit: 700, delayMs: 30, buffer: { bdp: 1.5 } } },
    { id: 'h-cross-45j2', axis: 'mixed', value: 'a CUBIC download in the queue, 45 ms, 2 ms jitter', path: { rttMs: 45, jitterMs: 2 }, crossTraffic: 'tcp-cubic' },
    // Session 49, round J: chosen after the NewReno halving rule (classify/hstcp.ts) and QUIC's
    // server-side round trip from ACK frames (trace/quic/server-rtt.ts) were final, before this was
    // measured: both on other ACK, buffer and distance values.
    { id: 'h-quickack-80j3', axis: 'mixed', value: 'no delayed ACKs, 80 ms, 3 ms jitter', path: { rttMs: 80, jitterMs: 3 }, profile: { delayedAck: false }, protocols: [...TCP] },
    { id: 'h-ackagg10-120j1', axis: 'mixed', value: 'ACKs aggregated every 10 ms, 120 ms, 1 ms jitter', path: { rttMs: 120, jitterMs: 1 }, profile: { ackAggregationMs: 10 } },
    { id: 'h-buf3-60j2', axis: 'mixed', value: '3 BDP, 60 ms, 2 ms jitter', path: { rttMs: 60, jitterMs: 2 }, profile: { buffer: { bdp: 3 } } },
    { id: 'h-vbuf1-90j2', axis: 'profile', value: 'video, 1 BDP, 90 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 90, jitterMs: 2 }, profile: { buffer: { bdp: 1 } } },
    // Session 50, round K: chosen while a check on Veno's back-off (classify/backoffQueue.ts) was being
    // written on rounds A-J, before this was measured; axes so far only measured near (SACK off,
    // a paced sender with a larger IW, reordering, a busy host) moved far away, and `video` with
    // loss on the server's side.
    { id: 'h-ns-75j2', axis: 'mixed', value: 'SACK off, 75 ms, 2 ms jitter', path: { rttMs: 75, jitterMs: 2 }, profile: { sack: false }, protocols: [...TCP] },
    { id: 'h-iwpace-140j2', axis: 'mixed', value: 'IW 20, paced, TSO, 140 ms, 2 ms jitter', path: { rttMs: 140, jitterMs: 2, sender: { initcwnd: 20, pacing: true, tso: true } }, protocols: [...TCP] },
    { id: 'h-reord-95j1', axis: 'mixed', value: '3% held 5 ms, 95 ms, 1 ms jitter', path: { rttMs: 95, jitterMs: 1, reorder: { percent: 3, extraMs: 5 } } },
    { id: 'h-vloss-70j1', axis: 'profile', value: 'video, 0.3% loss, 70 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 70, jitterMs: 1, loss: { percent: 0.3 } } },
    { id: 'h-load-85j2', axis: 'host', value: '6 at once + 3 busy processes, 85 ms, 2 ms jitter', path: { rttMs: 85, jitterMs: 2 }, host: { concurrency: 6, cpuLoad: 3 } },
    // Session 50, round L: chosen before the SACK-off groups (labs/grid-nosack.ts: 20 and 130 ms)
    // were trained or measured: SACK off between, beyond and with a smaller buffer.
    { id: 'h-ns-45j3', axis: 'mixed', value: 'SACK off, 45 ms, 3 ms jitter', path: { rttMs: 45, jitterMs: 3 }, profile: { sack: false }, protocols: [...TCP] },
    { id: 'h-ns-buf1-60j2', axis: 'mixed', value: 'SACK off, 1 BDP, 60 ms, 2 ms jitter', path: { rttMs: 60, jitterMs: 2 }, profile: { sack: false, buffer: { bdp: 1 } }, protocols: [...TCP] },
    { id: 'h-ns-170j2', axis: 'mixed', value: 'SACK off, 170 ms, 2 ms jitter', path: { rttMs: 170, jitterMs: 2 }, profile: { sack: false }, protocols: [...TCP] },
    // Session 51, round M: chosen before the reordering groups (labs/grid-reorder.ts: 2% held 8 ms
    // at 30 ms, 4% held 4 ms at 140 ms) were trained or measured: other shares, hold times and
    // distances, reordering by jitter alone, and reordering behind `video`.
    { id: 'h-rd-65j2', axis: 'mixed', value: '1.5% held 12 ms, 65 ms, 2 ms jitter', path: { rttMs: 65, jitterMs: 2, reorder: { percent: 1.5, extraMs: 12 } } },
    { id: 'h-rd-210j1', axis: 'mixed', value: '5% held 2 ms, 210 ms, 1 ms jitter', path: { rttMs: 210, jitterMs: 1, reorder: { percent: 5, extraMs: 2 } } },
    { id: 'h-jitr-110', axis: 'mixed', value: '4 ms reordering jitter, 110 ms', path: { rttMs: 110, jitterMs: 4, jitterReorders: true } },
    { id: 'h-vrd-80j1', axis: 'profile', value: 'video, 3% held 6 ms, 80 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 80, jitterMs: 1, reorder: { percent: 3, extraMs: 6 } } },
    // Session 51, round N: chosen before the `video` reordering groups (rd-video-30j1, rd-video-140j3)
    // were trained or measured: `video` behind other reordered paths.
    { id: 'h-vrd-115j2', axis: 'profile', value: 'video, 2.5% held 7 ms, 115 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 115, jitterMs: 2, reorder: { percent: 2.5, extraMs: 7 } } },
    { id: 'h-vrd-55j3', axis: 'profile', value: 'video, 1% held 15 ms, 55 ms, 3 ms jitter', profiles: ['video'], path: { rttMs: 55, jitterMs: 3, reorder: { percent: 1, extraMs: 15 } } },
    // Session 51, round O: chosen after round N showed the `video` reordering groups' QUIC flows
    // naming QUIC CUBIC NewReno (kept: their TCP flows only), before that model was measured here.
    { id: 'h-vrd-170j2', axis: 'profile', value: 'video, 3.5% held 3 ms, 170 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 170, jitterMs: 2, reorder: { percent: 3.5, extraMs: 3 } } },
    { id: 'h-vrd-95j1', axis: 'profile', value: 'video, 1.5% held 10 ms, 95 ms, 1 ms jitter', profiles: ['video'], path: { rttMs: 95, jitterMs: 1, reorder: { percent: 1.5, extraMs: 10 } } },
    // Session 52, round P: chosen before the bottleneck-rate groups (labs/grid-rates.ts: 120 kbit/s,
    // 600 kbit/s and 1 Mbit/s behind nebby-50's small segments) were trained or measured: other
    // rates, buffers and distances, one beyond the fastest trained rate.
    { id: 'h-bn-250k-120j3', axis: 'bottleneck', value: '250 kbit/s, 60 ms, 1 BDP, 120 ms away, 3 ms jitter', profiles: ['nebby-50'], path: { rttMs: 120, jitterMs: 3 }, profile: { rateKbit: 250, delayMs: 60, buffer: { bdp: 1 } } },
    { id: 'h-bn-800k-70j2', axis: 'bottleneck', value: '800 kbit/s, 25 ms, 2 BDP, 70 ms away, 2 ms jitter', profiles: ['nebby-50'], path: { rttMs: 70, jitterMs: 2 }, profile: { rateKbit: 800, delayMs: 25, buffer: { bdp: 2 } } },
    { id: 'h-bn-1300k-50', axis: 'bottleneck', value: '1.3 Mbit/s, 40 ms, 1.2 BDP, 50 ms away', profiles: ['nebby-50'], path: { rttMs: 50 }, profile: { rateKbit: 1300, delayMs: 40, buffer: { bdp: 1.2 } } },
    // Session 52, round R: chosen after the final model was fixed and the suite passed on it, before
    // this was measured: another rate behind both Nebby profiles' delays (fused), and `video` at twice
    // its rate.
    { id: 'h-r300-45j2', axis: 'bottleneck', value: '300 kbit/s behind both Nebby profiles, 45 ms away, 2 ms jitter', path: { rttMs: 45, jitterMs: 2 }, profile: { rateKbit: 300 } },
    { id: 'h-rvideo-3m-60j1', axis: 'bottleneck', value: 'video at 3 Mbit/s, 60 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 60, jitterMs: 1 }, profile: { rateKbit: 3000 } },
    // Session 53, round S: chosen before any change of session 53 was measured on it (the conditions
    // envelope's BDP axis was being tried on rounds A-R): other rates behind both Nebby profiles'
    // delays, one near and one far, and `video` below its rate.
    { id: 'h-s450-30j1', axis: 'bottleneck', value: '450 kbit/s behind both Nebby profiles, 30 ms away, 1 ms jitter', path: { rttMs: 30, jitterMs: 1 }, profile: { rateKbit: 450 } },
    { id: 'h-s700-90', axis: 'bottleneck', value: '700 kbit/s behind both Nebby profiles, 90 ms away', path: { rttMs: 90 }, profile: { rateKbit: 700 } },
    { id: 'h-svideo-1m-40j2', axis: 'bottleneck', value: 'video at 1 Mbit/s, 40 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 40, jitterMs: 2 }, profile: { rateKbit: 1000 } },
    // Session 53, round T: chosen after round S was read (the envelope's wider BDP axis named kernel
    // BBR NewReno there and was dropped), before the ProbeBW-cycle backing of BBRv1 (bbr.ts
    // probeBwDrainCycles) is measured on it: far paths where ProbeRTT may show as neither a drain nor a pause.
    { id: 'h-t-video-125j2', axis: 'profile', value: 'video, 125 ms, 2 ms jitter', profiles: ['video'], path: { rttMs: 125, jitterMs: 2 } },
    { id: 'h-t-130j1', axis: 'server-rtt', value: 'nebby-50, 130 ms, 1 ms jitter', profiles: ['nebby-50'], path: { rttMs: 130, jitterMs: 1 } },
    // Session 54, round U: chosen at the start of the session, before any change of it was written
    // (the stored rounds were gone with the machine): another rate behind both Nebby profiles' delays
    // with jitter, a 2.5-BDP buffer far away, and `video` faster than its rate, far away.
    { id: 'h-u-r380-65j2', axis: 'bottleneck', value: '380 kbit/s behind both Nebby profiles, 65 ms away, 2 ms jitter', path: { rttMs: 65, jitterMs: 2 }, profile: { rateKbit: 380 } },
    { id: 'h-u-b25-160j3', axis: 'mixed', value: '2.5 BDP, 160 ms, 3 ms jitter', path: { rttMs: 160, jitterMs: 3 }, profile: { buffer: { bdp: 2.5 } } },
    { id: 'h-u-v2m-100j1', axis: 'bottleneck', value: 'video at 2 Mbit/s, 100 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 100, jitterMs: 1 }, profile: { rateKbit: 2000 } },
    // Session 54, round V: chosen after round U was read (the edge maps were dropped on it) and before
    // the rule written next (few back-offs naming an AIMD controller) was measured: other rates behind
    // both Nebby profiles' delays, near and far, and `video` a little faster than its rate.
    { id: 'h-v-r550-25j1', axis: 'bottleneck', value: '550 kbit/s behind both Nebby profiles, 25 ms away, 1 ms jitter', path: { rttMs: 25, jitterMs: 1 }, profile: { rateKbit: 550 } },
    { id: 'h-v-r320-110j2', axis: 'bottleneck', value: '320 kbit/s behind both Nebby profiles, 110 ms away, 2 ms jitter', path: { rttMs: 110, jitterMs: 2 }, profile: { rateKbit: 320 } },
    { id: 'h-v-v1200-70j2', axis: 'bottleneck', value: 'video at 1.2 Mbit/s, 70 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 70, jitterMs: 2 }, profile: { rateKbit: 1200 } },
    // Session 55, round W: chosen after a first reading of groups trained at other rates (the seen
    // rounds) on rounds U and V, before anything was measured on it: other rates behind both Nebby
    // profiles' delays, far with little jitter and near with more, and `video` faster than its rate, near.
    { id: 'h-w-r480-140j1', axis: 'bottleneck', value: '480 kbit/s behind both Nebby profiles, 140 ms away, 1 ms jitter', path: { rttMs: 140, jitterMs: 1 }, profile: { rateKbit: 480 } },
    { id: 'h-w-r650-50j3', axis: 'bottleneck', value: '650 kbit/s behind both Nebby profiles, 50 ms away, 3 ms jitter', path: { rttMs: 50, jitterMs: 3 }, profile: { rateKbit: 650 } },
    { id: 'h-w-v1800-20j1', axis: 'bottleneck', value: 'video at 1.8 Mbit/s, 20 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 20, jitterMs: 1 }, profile: { rateKbit: 1800 } },
    // Session 55, round X: chosen after round W was read (the other-rate groups named wrong CCAs from
    // one profile there), before the check written next is measured on it: other rates behind both
    // Nebby profiles' delays, near with jitter and far, and `video` faster than its rate.
    { id: 'h-x-r280-30j2', axis: 'bottleneck', value: '280 kbit/s behind both Nebby profiles, 30 ms away, 2 ms jitter', path: { rttMs: 30, jitterMs: 2 }, profile: { rateKbit: 280 } },
    { id: 'h-x-r900-100j1', axis: 'bottleneck', value: '900 kbit/s behind both Nebby profiles, 100 ms away, 1 ms jitter', path: { rttMs: 100, jitterMs: 1 }, profile: { rateKbit: 900 } },
    { id: 'h-x-v2500-60j2', axis: 'bottleneck', value: 'video at 2.5 Mbit/s, 60 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 60, jitterMs: 2 }, profile: { rateKbit: 2500 } },
    // Session 56, rounds Y and Z: both chosen at the start of the session, before any change of it was
    // written. Y is read first (the groups of rounds W and X are measured on it); Z stays unread until
    // the session's last change is fixed. Other rates behind both Nebby profiles' delays and `video`
    // at other rates, near and far.
    { id: 'h-y-r420-85j2', axis: 'bottleneck', value: '420 kbit/s behind both Nebby profiles, 85 ms away, 2 ms jitter', path: { rttMs: 85, jitterMs: 2 }, profile: { rateKbit: 420 } },
    { id: 'h-y-r1100-35j1', axis: 'bottleneck', value: '1.1 Mbit/s behind both Nebby profiles, 35 ms away, 1 ms jitter', path: { rttMs: 35, jitterMs: 1 }, profile: { rateKbit: 1100 } },
    { id: 'h-y-v2200-150j1', axis: 'bottleneck', value: 'video at 2.2 Mbit/s, 150 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 150, jitterMs: 1 }, profile: { rateKbit: 2200 } },
    { id: 'h-z-r350-20j1', axis: 'bottleneck', value: '350 kbit/s behind both Nebby profiles, 20 ms away, 1 ms jitter', path: { rttMs: 20, jitterMs: 1 }, profile: { rateKbit: 350 } },
    { id: 'h-z-r750-120j2', axis: 'bottleneck', value: '750 kbit/s behind both Nebby profiles, 120 ms away, 2 ms jitter', path: { rttMs: 120, jitterMs: 2 }, profile: { rateKbit: 750 } },
    { id: 'h-z-v1400-40j3', axis: 'bottleneck', value: 'video at 1.4 Mbit/s, 40 ms away, 3 ms jitter', profiles: ['video'], path: { rttMs: 40, jitterMs: 3 }, profile: { rateKbit: 1400 } },
    // Session 56, round AA: chosen after round Z was read (the groups of rounds W, X and Y lost answers
    // there and kept the shipped model's confident wrongs: Illinois and Veno taken for each other,
    // YeAH for NewReno, HSTCP for Veno through `video`), before any rule written on Z is measured on it.
    { id: 'h-aa-r400-40j1', axis: 'bottleneck', value: '400 kbit/s behind both Nebby profiles, 40 ms away, 1 ms jitter', path: { rttMs: 40, jitterMs: 1 }, profile: { rateKbit: 400 } },
    { id: 'h-aa-r600-160j2', axis: 'bottleneck', value: '600 kbit/s behind both Nebby profiles, 160 ms away, 2 ms jitter', path: { rttMs: 160, jitterMs: 2 }, profile: { rateKbit: 600 } },
    { id: 'h-aa-v2800-30j1', axis: 'bottleneck', value: 'video at 2.8 Mbit/s, 30 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 30, jitterMs: 1 }, profile: { rateKbit: 2800 } },
    // Session 56, round AB: chosen after round AA was read (a rule for Veno and Illinois written on Z
    // failed there; kernel YeAH read NewReno from one profile in Z and AA), before any rule written on
    // Z and AA is measured on it.
    { id: 'h-ab-r500-70j2', axis: 'bottleneck', value: '500 kbit/s behind both Nebby profiles, 70 ms away, 2 ms jitter', path: { rttMs: 70, jitterMs: 2 }, profile: { rateKbit: 500 } },
    { id: 'h-ab-r240-55j1', axis: 'bottleneck', value: '240 kbit/s behind both Nebby profiles, 55 ms away, 1 ms jitter', path: { rttMs: 55, jitterMs: 1 }, profile: { rateKbit: 240 } },
    { id: 'h-ab-v1600-100j2', axis: 'bottleneck', value: 'video at 1.6 Mbit/s, 100 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 100, jitterMs: 2 }, profile: { rateKbit: 1600 } },
    // Session 57, round AC: chosen at the start of the session, before any change of it was written.
    // Other rates again, now with the other axes real paths vary on: a small buffer without SACK,
    // server-side loss far away, and `video` faster than its rate behind one BDP.
    { id: 'h-ac-r450-50b1ns', axis: 'mixed', value: '450 kbit/s behind both Nebby profiles, 50 ms away, 1 BDP, SACK off', path: { rttMs: 50 }, profile: { rateKbit: 450, buffer: { bdp: 1 }, sack: false }, protocols: [...TCP] },
    { id: 'h-ac-r650-90l', axis: 'mixed', value: '650 kbit/s behind both Nebby profiles, 90 ms away, 1 ms jitter, 0.3% server-side loss', path: { rttMs: 90, jitterMs: 1, loss: { percent: 0.3 } }, profile: { rateKbit: 650 } },
    { id: 'h-ac-v2000-70b1', axis: 'mixed', value: 'video at 2 Mbit/s, 70 ms away, 1 ms jitter, 1 BDP', profiles: ['video'], path: { rttMs: 70, jitterMs: 1 }, profile: { rateKbit: 2000, buffer: { bdp: 1 } } },
    // Session 57, round AD: chosen after AC was read (the drains-and-pauses BBRv1 claim passed there,
    // one flow named; AC's loss and SACK-off conditions read almost all Unknown), before anything else
    // of the session is judged: other rates and distances as rounds Y-AB, where that claim was designed.
    { id: 'h-ad-r380-95j1', axis: 'bottleneck', value: '380 kbit/s behind both Nebby profiles, 95 ms away, 1 ms jitter', path: { rttMs: 95, jitterMs: 1 }, profile: { rateKbit: 380 } },
    { id: 'h-ad-r850-45j2', axis: 'bottleneck', value: '850 kbit/s behind both Nebby profiles, 45 ms away, 2 ms jitter', path: { rttMs: 45, jitterMs: 2 }, profile: { rateKbit: 850 } },
    { id: 'h-ad-v1900-120j1', axis: 'bottleneck', value: 'video at 1.9 Mbit/s, 120 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 120, jitterMs: 1 }, profile: { rateKbit: 1900 } },
    // Session 58, round AE: chosen at the start of the session, before any change of it was written.
    // Larger windows than most rounds (1 Mbit/s behind nebby-100 holds ~2x the largest trained BDP),
    // a far server at a middle rate, and `video` faster than trained with jitter.
    { id: 'h-ae-r1000-60j1', axis: 'bottleneck', value: '1 Mbit/s behind both Nebby profiles, 60 ms away, 1 ms jitter', path: { rttMs: 60, jitterMs: 1 }, profile: { rateKbit: 1000 } },
    { id: 'h-ae-r550-130j2', axis: 'bottleneck', value: '550 kbit/s behind both Nebby profiles, 130 ms away, 2 ms jitter', path: { rttMs: 130, jitterMs: 2 }, profile: { rateKbit: 550 } },
    { id: 'h-ae-v2400-55j2', axis: 'bottleneck', value: 'video at 2.4 Mbit/s, 55 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 55, jitterMs: 2 }, profile: { rateKbit: 2400 } },
    // Session 58, round AF: chosen after AE was read (the wider BDP tolerance passed there), before
    // one-profile answers of the growth-told controllers from groups trained beyond are measured.
    { id: 'h-af-r700-35j1', axis: 'bottleneck', value: '700 kbit/s behind both Nebby profiles, 35 ms away, 1 ms jitter', path: { rttMs: 35, jitterMs: 1 }, profile: { rateKbit: 700 } },
    { id: 'h-af-r300-150j2', axis: 'bottleneck', value: '300 kbit/s behind both Nebby profiles, 150 ms away, 2 ms jitter', path: { rttMs: 150, jitterMs: 2 }, profile: { rateKbit: 300 } },
    { id: 'h-af-v1200-85j2', axis: 'bottleneck', value: 'video at 1.2 Mbit/s, 85 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 85, jitterMs: 2 }, profile: { rateKbit: 1200 } },
    // Session 58, round AG: chosen after AF was read, with every change of the session final, to
    // measure them together on conditions none of them saw: other rates and distances, and `video`
    // at its own rate behind a 2-BDP buffer.
    { id: 'h-ag-r800-110j2', axis: 'bottleneck', value: '800 kbit/s behind both Nebby profiles, 110 ms away, 2 ms jitter', path: { rttMs: 110, jitterMs: 2 }, profile: { rateKbit: 800 } },
    { id: 'h-ag-r450-25j1', axis: 'bottleneck', value: '450 kbit/s behind both Nebby profiles, 25 ms away, 1 ms jitter', path: { rttMs: 25, jitterMs: 1 }, profile: { rateKbit: 450 } },
    { id: 'h-ag-v-60b2', axis: 'mixed', value: 'video, 60 ms away, 1 ms jitter, 2 BDP', profiles: ['video'], path: { rttMs: 60, jitterMs: 1 }, profile: { buffer: { bdp: 2 } } },
    // Session 58, round AH: chosen after AG was read and every change of the session was final
    // (nothing is judged on it but the session's code as shipped).
    { id: 'h-ah-r600-75j1', axis: 'bottleneck', value: '600 kbit/s behind both Nebby profiles, 75 ms away, 1 ms jitter', path: { rttMs: 75, jitterMs: 1 }, profile: { rateKbit: 600 } },
    { id: 'h-ah-r350-45b15', axis: 'mixed', value: '350 kbit/s behind both Nebby profiles, 45 ms away, 1.5 BDP', path: { rttMs: 45 }, profile: { rateKbit: 350, buffer: { bdp: 1.5 } } },
    { id: 'h-ah-v1800-160j2', axis: 'bottleneck', value: 'video at 1.8 Mbit/s, 160 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 160, jitterMs: 2 }, profile: { rateKbit: 1800 } },
    // Session 59, round AI: chosen before any change of session 59, read only once its code is final.
    { id: 'h-ai-r900-90j2', axis: 'bottleneck', value: '900 kbit/s behind both Nebby profiles, 90 ms away, 2 ms jitter', path: { rttMs: 90, jitterMs: 2 }, profile: { rateKbit: 900 } },
    { id: 'h-ai-r400-190j1', axis: 'bottleneck', value: '400 kbit/s behind both Nebby profiles, 190 ms away, 1 ms jitter', path: { rttMs: 190, jitterMs: 1 }, profile: { rateKbit: 400 } },
    { id: 'h-ai-v2000-30b3', axis: 'mixed', value: 'video at 2 Mbit/s, 30 ms away, 1 ms jitter, 3 BDP', profiles: ['video'], path: { rttMs: 30, jitterMs: 1 }, profile: { rateKbit: 2000, buffer: { bdp: 3 } } },
    // Session 59, round AJ: chosen with AI, before any change of session 59; read after AI, on the
    // session's code as shipped.
    { id: 'h-aj-r750-50j2', axis: 'bottleneck', value: '750 kbit/s behind both Nebby profiles, 50 ms away, 2 ms jitter', path: { rttMs: 50, jitterMs: 2 }, profile: { rateKbit: 750 } },
    { id: 'h-aj-r250-100j1', axis: 'bottleneck', value: '250 kbit/s behind both Nebby profiles, 100 ms away, 1 ms jitter', path: { rttMs: 100, jitterMs: 1 }, profile: { rateKbit: 250 } },
    { id: 'h-aj-v-120j1', axis: 'server-rtt', value: 'video, 120 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 120, jitterMs: 1 } },
    // Session 59, round AK: chosen before AJ was read and before any change made after AI was read;
    // it judges those changes.
    { id: 'h-ak-r1200-70j1', axis: 'bottleneck', value: '1.2 Mbit/s behind both Nebby profiles, 70 ms away, 1 ms jitter', path: { rttMs: 70, jitterMs: 1 }, profile: { rateKbit: 1200 } },
    { id: 'h-ak-r320-60b3', axis: 'mixed', value: '320 kbit/s behind both Nebby profiles, 60 ms away, 3 BDP', path: { rttMs: 60 }, profile: { rateKbit: 320, buffer: { bdp: 3 } } },
    { id: 'h-ak-v2800-100j2', axis: 'bottleneck', value: 'video at 2.8 Mbit/s, 100 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 100, jitterMs: 2 }, profile: { rateKbit: 2800 } },
    // Session 59, round AL: chosen after AK was read, before any change judged on it was written.
    { id: 'h-al-r1500-40j1', axis: 'bottleneck', value: '1.5 Mbit/s behind both Nebby profiles, 40 ms away, 1 ms jitter', path: { rttMs: 40, jitterMs: 1 }, profile: { rateKbit: 1500 } },
    { id: 'h-al-r200-70j2', axis: 'bottleneck', value: '200 kbit/s behind both Nebby profiles, 70 ms away, 2 ms jitter', path: { rttMs: 70, jitterMs: 2 }, profile: { rateKbit: 200 } },
    { id: 'h-al-v1000-200j1', axis: 'bottleneck', value: 'video at 1 Mbit/s, 200 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 200, jitterMs: 1 }, profile: { rateKbit: 1000 } },
    // Session 60, rounds AM and AN: chosen at the session's start, before any change of session 60;
    // AM judges changes made before it is read, AN those made after AM is read.
    { id: 'h-am-r1000-130j1', axis: 'bottleneck', value: '1 Mbit/s behind both Nebby profiles, 130 ms away, 1 ms jitter', path: { rttMs: 130, jitterMs: 1 }, profile: { rateKbit: 1000 } },
    { id: 'h-am-r300-30j2', axis: 'bottleneck', value: '300 kbit/s behind both Nebby profiles, 30 ms away, 2 ms jitter', path: { rttMs: 30, jitterMs: 2 }, profile: { rateKbit: 300 } },
    { id: 'h-am-v2400-70j1', axis: 'bottleneck', value: 'video at 2.4 Mbit/s, 70 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 70, jitterMs: 1 }, profile: { rateKbit: 2400 } },
    { id: 'h-an-r2000-60j2', axis: 'bottleneck', value: '2 Mbit/s behind both Nebby profiles, 60 ms away, 2 ms jitter', path: { rttMs: 60, jitterMs: 2 }, profile: { rateKbit: 2000 } },
    { id: 'h-an-r450-140j1', axis: 'bottleneck', value: '450 kbit/s behind both Nebby profiles, 140 ms away, 1 ms jitter', path: { rttMs: 140, jitterMs: 1 }, profile: { rateKbit: 450 } },
    { id: 'h-an-v3000-50j1', axis: 'bottleneck', value: 'video at 3 Mbit/s, 50 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 50, jitterMs: 1 }, profile: { rateKbit: 3000 } },
    // Session 60, round AO: chosen after AM and AN were read, before any change judged on it.
    { id: 'h-ao-r1600-90j2', axis: 'bottleneck', value: '1.6 Mbit/s behind both Nebby profiles, 90 ms away, 2 ms jitter', path: { rttMs: 90, jitterMs: 2 }, profile: { rateKbit: 1600 } },
    { id: 'h-ao-r350-110j1', axis: 'bottleneck', value: '350 kbit/s behind both Nebby profiles, 110 ms away, 1 ms jitter', path: { rttMs: 110, jitterMs: 1 }, profile: { rateKbit: 350 } },
    { id: 'h-ao-v2000-140j1', axis: 'bottleneck', value: 'video at 2 Mbit/s, 140 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 140, jitterMs: 1 }, profile: { rateKbit: 2000 } },
    // Session 61, rounds AP and AQ: chosen at the session's start, before anything was measured.
    // AP judges the shipped model blind and is then trained as gated groups; AQ judges that.
    { id: 'h-ap-r800-75j2', axis: 'bottleneck', value: '800 kbit/s behind both Nebby profiles, 75 ms away, 2 ms jitter', path: { rttMs: 75, jitterMs: 2 }, profile: { rateKbit: 800 } },
    { id: 'h-ap-r1300-160j1', axis: 'bottleneck', value: '1.3 Mbit/s behind both Nebby profiles, 160 ms away, 1 ms jitter', path: { rttMs: 160, jitterMs: 1 }, profile: { rateKbit: 1300 } },
    { id: 'h-ap-v1700-35j2', axis: 'bottleneck', value: 'video at 1.7 Mbit/s, 35 ms away, 2 ms jitter', profiles: ['video'], path: { rttMs: 35, jitterMs: 2 }, profile: { rateKbit: 1700 } },
    { id: 'h-aq-r1800-120j1', axis: 'bottleneck', value: '1.8 Mbit/s behind both Nebby profiles, 120 ms away, 1 ms jitter', path: { rttMs: 120, jitterMs: 1 }, profile: { rateKbit: 1800 } },
    { id: 'h-aq-r550-45j2', axis: 'bottleneck', value: '550 kbit/s behind both Nebby profiles, 45 ms away, 2 ms jitter', path: { rttMs: 45, jitterMs: 2 }, profile: { rateKbit: 550 } },
    { id: 'h-aq-v2800-110j1', axis: 'bottleneck', value: 'video at 2.8 Mbit/s, 110 ms away, 1 ms jitter', profiles: ['video'], path: { rttMs: 110, jitterMs: 1 }, profile: { rateKbit: 2800 } },
  ],
});
