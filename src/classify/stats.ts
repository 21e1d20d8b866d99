/** The statistics live in util/stats.ts (one copy for the whole project). */
export { mean, median, pick, quantile, variance } from '../util/stats.js';
