/**
 * The option table every command takes its options from (docs/cli.md is the contract;
 * tests/unit/cli/contract.test.ts walks every command to hold it): one flag per concept,
 * values parsed and checked by commander's own argParser hooks, so a bad number or an
 * unknown name exits 2 with the allowed range before anything is created.
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { repoRoot } from '../util/paths.js';

/** A whole number in [min, max]; "2.5", "abc", "" and "1e3" are refused. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/** A decimal number in [min, max]. */
export function decimalNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/** "a,b" and repeated flags both give [a, b]; the default is replaced, not added to. */
function listOf<T>(parse: (item: string) => T, dflt: T[] | undefined): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => {
    const items = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new InvalidArgumentError('expected at least one name');
    return [...(previous === undefined || previous === dflt ? [] : previous), ...items.map(parse)];
  };
}

const LAB_NAME = /^[a-z0-9-]{1,16}$/;
const REGION_NAME = /^[a-z0-9][a-z0-9-]{0,15}$/;

function labName(value: string): string {
  if (!LAB_NAME.test(value)) throw new InvalidArgumentError(`a lab name is 1-16 lower-case letters, digits or "-", got "${value}"`);
  return value;
}

function regionName(value: string): string {
  if (!REGION_NAME.test(value)) throw new InvalidArgumentError(`a region name is 1-16 lower-case letters, digits or "-", got "${value}"`);
  return value;
}

/** The shipped network profiles (shapers/NAME.ts). */
export function shippedProfiles(): string[] {
  try {
    return readdirSync(resolve(repoRoot(), 'shapers')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
  } catch {
    return [];
  }
}

/** A shipped profile name or an existing profile file; its content is validated when loaded. */
export function profileName(value: string): string {
  const isPath = /[/\\]|\.(ts|mts|js|mjs|json)$/.test(value);
  if (isPath ? existsSync(resolve(value)) : shippedProfiles().includes(value)) return value;
  throw new InvalidArgumentError(isPath ? `no profile file ${value}` : `unknown profile "${value}": one of ${shippedProfiles().join(', ')}, or a path to a profile file`);
}

/**
 * The options, by concept. Each function makes a fresh commander Option (an Option belongs to
 * one command); the contract test checks every command's options against these.
 */
export const opt = {
  /** Which running lab (the `name` of its config). */
  lab: (dflt = 'default') => new Option('--lab <name>', 'which running lab (the name in its config)').argParser(labName).default(dflt),
  /** Network profiles: repeat the flag or separate with commas; never swallows an argument. */
  profiles: (dflt: string[]) => new Option('--profile <name>', 'network profile (shapers/NAME.ts or a file); repeat or comma-separate for several')
    .argParser(listOf(profileName, dflt)).default(dflt, dflt.join(',')),
  /** One network profile. */
  profile: (description = 'network profile (shapers/NAME.ts or a file)', dflt?: string) => {
    const o = new Option('--profile <name>', description).argParser(profileName);
    return dflt === undefined ? o : o.default(dflt);
  },
  /** One lab region. */
  region: (dflt = 'local', description = 'lab region (in lab mode) and region tag of the results') =>
    new Option('--region <name>', description).argParser(regionName).default(dflt),
  /** Several lab regions: repeat the flag or separate with commas. */
  regions: (dflt: string[]) => new Option('--region <name>', 'lab region; repeat or comma-separate for several')
    .argParser(listOf(regionName, dflt)).default(dflt, dflt.join(',')),
  /** How many times to do the whole measurement. */
  repeat: (dflt: number, description: string, max = 1000) => new Option('--repeat <n>', `${description} (1-${max})`).argParser(wholeNumber(1, max)).default(dflt),
  /** Where results go (a directory or a file, as the command says). Without a default the flag is
   *  required; `null` means optional with a default the command works out itself. */
  out: (description: string, dflt?: string | null) => {
    const o = new Option('--out <path>', description);
    if (dflt === null) return o;
    return dflt === undefined ? o.makeOptionMandatory() : o.default(dflt);
  },
  /** Machine-readable output on stdout (every command has it). */
  json: () => new Option('--json', 'print the result as JSON on stdout'),
  /** A whole-number option in a range. */
  count: (flags: string, description: string, min: number, max: number, dflt?: number) => {
    const o = new Option(flags, `${description} (${min}-${max})`).argParser(wholeNumber(min, max));
    return dflt === undefined ? o : o.default(dflt);
  },
  /** A decimal option in a range. */
  amount: (flags: string, description: string, min: number, max: number, dflt?: number) => {
    const o = new Option(flags, `${description} (${min}-${max})`).argParser(decimalNumber(min, max));
    return dflt === undefined ? o : o.default(dflt);
  },
} as const;

/**
 * Flags that name the same concept as a table option and must not come back (the contract
 * test refuses them): one flag per concept.
 */
export const RETIRED_FLAGS: Record<string, string> = {
  '--name': '--lab',
  '--profiles': '--profile',
  '--regions': '--region',
  '--runs': '--repeat',
  '--output': '--out',
};

/** Options whose values are numbers: each must have a parser with a range. */
export const NUMERIC_VALUE = /<(n|s|seconds|ms|bytes|count)>/;
