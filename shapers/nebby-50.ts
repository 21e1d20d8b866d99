import { defineProfile } from 'ccbrowse';

// Nebby's first profile: 200 kbit/s, 50 ms one-way (100 ms added RTT), 2 BDP of buffer.
export default defineProfile({
  name: 'nebby-50',
  description: "Nebby's low-rate profile, 50 ms one-way delay",
  rateKbit: 200,
  delayMs: 50,
  buffer: { bdp: 2 },
  // As Nebby's scripts: small TCP segments (tens of packets in flight at 200 kbit/s instead
  // of 3-7). Unlike them we keep SACK: without it a lost retransmission holds the sender in
  // Recovery for seconds with cwnd frozen, hiding the growth curve the classifier reads
  // (docs/classifier.md, "Why SACK stays on").
  tcpMss: 100,
  sack: true,
});
