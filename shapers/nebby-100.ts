import { defineProfile } from '../src/shaper/profile.js';

// Nebby's second profile: same rate and buffer, 100 ms one-way (200 ms added RTT).
export default defineProfile({
  name: 'nebby-100',
  description: "Nebby's low-rate profile, 100 ms one-way delay",
  rateKbit: 200,
  delayMs: 100,
  buffer: { bdp: 2 },
});
