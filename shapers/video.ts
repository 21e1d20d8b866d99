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
});
