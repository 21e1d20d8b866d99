import { defineProfile } from 'ccbrowse';

// A GEO satellite link: ~300 ms one-way (real Viasat RTT median 597 ms), 20 Mbit/s,
// 1 BDP of buffer (measured links use 0.25-2 BDP).
export default defineProfile({
  name: 'geo-satellite',
  description: 'GEO satellite: 20 Mbit/s, 300 ms one-way, 1 BDP',
  rateKbit: 20_000,
  delayMs: 300,
  buffer: { bdp: 1 },
  forClassification: false,
  classificationNote: 'no lab controller has been measured through a 600 ms, 20 Mbit/s path (the conditions grid stops at 300 ms of server-side RTT and 1.5 Mbit/s): verdicts under it would be guesses',
});
