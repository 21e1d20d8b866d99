/** The least-squares fit lives in util/polyfit.ts (one copy for the whole project). */
export { evalPoly, polyfit, solveLinear, type PolyFit } from '../util/polyfit.js';
