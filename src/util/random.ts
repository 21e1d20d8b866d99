/**
 * The project's one seeded pseudo-random generator. WHY seeded: the classifier, its synthetic
 * data, the lab's generated pages, the synthetic store and the kill harness's random moments
 * must be reproducible bit for bit, so Math.random is never used for them.
 */

/** mulberry32: a tiny 32-bit generator, good enough for test data and content (not for crypto). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
}

/** Uniform, normal and ranged numbers from one mulberry32 stream. */
export function createRng(seed: number): Rng {
  let spare: number | undefined;
  const next = mulberry32(seed);
  return {
    next,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    normal: () => {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      const u = Math.max(next(), 1e-12);
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
  };
}
