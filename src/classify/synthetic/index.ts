/**
 * Seeded synthetic BiF series of known CCA shapes. They train the provisional model and
 * feed the unit tests; they are NOT ground truth (the lab's control servers are).
 */
export { defaultPath, buildSeries, piecewise, withPath, ackTimes } from './common.js';
export type { PathOptions } from './common.js';
export { renoSeries, cubicSeries } from './fluid.js';
export type { FluidOptions } from './fluid.js';
export { bbrV1Series, bbrV2Series, akamaiSeries, copaSeries } from './rateShapes.js';
