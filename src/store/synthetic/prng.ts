/** The project's seeded PRNG (util/random.ts) with helpers: the same seed gives the same store. */
import { mulberry32 } from '../../util/random.js';

export interface Rng {
  (): number;
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
  weighted<T>(xs: ReadonlyArray<readonly [T, number]>): T;
  chance(p: number): boolean;
}

export function rng(seed: number): Rng {
  const next = mulberry32(seed);
  const r = next as Rng;
  r.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  r.pick = (xs) => xs[Math.floor(next() * xs.length)];
  r.chance = (p) => next() < p;
  r.weighted = (xs) => {
    const total = xs.reduce((s, [, w]) => s + w, 0);
    let x = next() * total;
    for (const [v, w] of xs) if ((x -= w) < 0) return v;
    return xs[xs.length - 1][0];
  };
  return r;
}

/** A child seed for a named sub-stream, so adding a site does not reshuffle the others. */
export function subSeed(seed: number, name: string): number {
  let h = seed ^ 0x9e3779b9;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
