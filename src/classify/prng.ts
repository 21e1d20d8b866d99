/** The seeded generator lives in util/random.ts (one for the whole project). */
export { createRng, mulberry32, type Rng } from '../util/random.js';
