/** JSON-safe values: what evidence, claims and model files are made of. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Finite numbers only in JSON (NaN/Infinity would become null anyway): make it explicit. */
export function jsonNumber(x: number, digits = 4): number | null {
  if (!Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
