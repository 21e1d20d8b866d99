import { defineProfile } from 'ccbrowse';

// A broadband profile used by the shaper's own tests: 20 Mbit/s, 10 ms one-way.
export default defineProfile({
  name: 'fast-20m',
  description: 'Broadband: 20 Mbit/s, 10 ms one-way, 1 BDP',
  rateKbit: 20_000,
  delayMs: 10,
  buffer: { bdp: 1 },
});
