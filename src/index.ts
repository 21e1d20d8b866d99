/** The public API for users' own files (profiles, scenarios). */
export { defineProfile, type ProfileInput, type Profile } from './shaper/profile.js';
