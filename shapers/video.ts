import { defineProfile } from 'ccbrowse';

// For video: Nebby advises > 500 kbit/s so players do not fall to their lowest bitrate
// and pause; 1.5 Mbit/s keeps a 360p-480p stream playing while the sender stays
// network-limited.
export default defineProfile({
  name: 'video',
  description: 'Video streaming: 1.5 Mbit/s, 50 ms one-way, 2 BDP',
  rateKbit: 1500,
  delayMs: 50,
  buffer: { bdp: 2 },
  // Classifiable since session 31 (docs/benchmarks/conditions.md, "The video profile"): the
  // shipped model holds `.video` classes from three quiet-host lab rounds of the 12 TCP lab
  // controllers (server 10 ms away). Each round judged by classes trained on the other two:
  // 88.9-91.7% right (88.9% on v3, the one round no choice was made on), 0 confidently wrong
  // (the Nebby profiles' fresh rounds: 88.9-91.7%). The issue's bar (97%) is not met.
  // Off that path verdicts are Unknown with the reason: a held-out condition (server 40 ms away,
  // 3 ms jitter) read 34 of 34 Unknown, "conditions unlike any the model was trained under"
  // (the capture sees ~70% of the round trip, trained 90%). No QUIC class exists for it.
});
