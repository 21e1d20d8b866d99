import { defineProfile } from 'ccbrowse';

// Nebby's second profile: same rate and buffer, 100 ms one-way (200 ms added RTT).
export default defineProfile({
  name: 'nebby-100',
  description: "Nebby's low-rate profile, 100 ms one-way delay",
  rateKbit: 200,
  delayMs: 100,
  buffer: { bdp: 2 },
  // As Nebby's scripts: small TCP segments (tens of packets in flight at 200 kbit/s instead
  // of 3-7). Unlike them we keep SACK: without it a lost retransmission holds the sender in
  // Recovery for seconds with cwnd frozen, hiding the growth curve the classifier reads
  // (docs/classifier.md, "Why SACK stays on").
  tcpMss: 100,
  sack: true,
});
