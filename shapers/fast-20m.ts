import { defineProfile } from 'ccbrowse';

// A broadband profile used by the shaper's own tests: 20 Mbit/s, 10 ms one-way.
export default defineProfile({
  name: 'fast-20m',
  description: 'Broadband: 20 Mbit/s, 10 ms one-way, 1 BDP',
  rateKbit: 20_000,
  delayMs: 10,
  buffer: { bdp: 1 },
  forClassification: false,
  classificationNote: '20 Mbit/s is 100x the Nebby profiles rate and no lab controller has been measured through it: use it to test the shaper, not to name controllers',
});
