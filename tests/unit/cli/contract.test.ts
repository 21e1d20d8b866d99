/**
 * The CLI contract (docs/cli.md), held by walking every command commander knows: one flag
 * per concept, spelt the same everywhere, numbers and names parsed by commander's own
 * argParser hooks with their allowed range, --json on every command, no option that can
 * swallow a positional argument, -q/-v for everything, and every command in docs/cli.md.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { NUMERIC_VALUE, RETIRED_FLAGS, wholeNumber } from '../../../src/cli/options.js';

const program = buildProgram();

function leaves(cmd: Command, path: string[] = []): { path: string; cmd: Command }[] {
  const subs = cmd.commands as Command[];
  if (subs.length === 0) return [{ path: path.join(' '), cmd }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

const commands = leaves(program);
const options = (c: Command) => c.options as readonly Option[];

/** The one spelling of each concept's flag. */
const CANONICAL: Record<string, string> = {
  '--lab': '--lab <name>',
  '--profile': '--profile <name>',
  '--region': '--region <name>',
  '--repeat': '--repeat <n>',
  '--out': '--out <path>',
  '--json': '--json',
};

describe('the CLI contract', () => {
  it('finds the commands', () => {
    expect(commands.map((c) => c.path)).toEqual(expect.arrayContaining([
      'doctor', 'shaper check', 'lab up', 'lab down', 'lab status', 'lab train', 'lab bench', 'probe', 'run', 'analyze', 'trace', 'classify', 'report', 'check', 'reap',
    ]));
  });

  it('every command has --json and a description', () => {
    for (const { path, cmd } of commands) {
      expect(options(cmd).some((o) => o.long === '--json'), `${path} has no --json`).toBe(true);
      expect(cmd.description().length, `${path} has no description`).toBeGreaterThan(10);
    }
  });

  it('one flag per concept: retired synonyms are gone, the table flags are spelt one way', () => {
    for (const { path, cmd } of commands) {
      for (const o of options(cmd)) {
        expect(RETIRED_FLAGS[o.long ?? ''], `${path} ${o.flags}: use ${RETIRED_FLAGS[o.long ?? '']}`).toBeUndefined();
        const canonical = CANONICAL[o.long ?? ''];
        if (canonical) expect(o.flags, `${path}`).toBe(canonical);
      }
    }
  });

  it('no option is variadic (none can swallow a positional argument)', () => {
    for (const { path, cmd } of commands) {
      for (const o of options(cmd)) expect(o.variadic, `${path} ${o.flags}`).toBe(false);
    }
  });

  it('names and numbers are parsed by commander hooks that refuse bad values with the allowed range', () => {
    for (const { path, cmd } of commands) {
      for (const o of options(cmd)) {
        const named = ['--lab', '--profile', '--region'].includes(o.long ?? '');
        const numeric = NUMERIC_VALUE.test(o.flags);
        if (!named && !numeric) continue;
        expect(o.parseArg, `${path} ${o.flags} has no argParser`).toBeTypeOf('function');
        const bad = numeric ? 'abc' : 'No Such Name!';
        let err: unknown;
        try { o.parseArg!(bad, undefined); } catch (e) { err = e; }
        expect(err, `${path} ${o.flags} accepted "${bad}"`).toBeInstanceOf(InvalidArgumentError);
        if (numeric) expect((err as Error).message, `${path} ${o.flags}`).toMatch(/from -?[\d.]+ to [\d.]+/);
      }
    }
  });

  it('repeatable lists: --profile and --region take commas and repeats, and replace their default', () => {
    const probe = commands.find((c) => c.path === 'probe')!.cmd;
    const profile = options(probe).find((o) => o.long === '--profile')!;
    const dflt = profile.defaultValue as string[];
    const once = profile.parseArg!('nebby-50,video', dflt) as string[];
    expect(once).toEqual(['nebby-50', 'video']);
    expect(profile.parseArg!('geo-satellite', once)).toEqual(['nebby-50', 'video', 'geo-satellite']);
    const train = commands.find((c) => c.path === 'lab train')!.cmd;
    const region = options(train).find((o) => o.long === '--region')!;
    expect(region.parseArg!('near,far', region.defaultValue)).toEqual(['near', 'far']);
  });

  it('whole numbers: no fractions, no exponents, no blanks, inside the range', () => {
    const p = wholeNumber(1, 100);
    expect(p('7')).toBe(7);
    for (const bad of ['0', '101', '2.5', '1e2', '', 'abc', '3 apples']) expect(() => p(bad), bad).toThrow(InvalidArgumentError);
  });

  it('-q/--quiet and -v/--verbose apply to every command', () => {
    expect(program.options.map((o) => o.flags)).toEqual(expect.arrayContaining(['-q, --quiet', '-v, --verbose']));
  });

  it('docs/cli.md lists every command and every flag', () => {
    const doc = readFileSync('docs/cli.md', 'utf8');
    for (const { path, cmd } of commands) {
      expect(doc, `docs/cli.md misses "ccbrowse ${path}"`).toContain(`ccbrowse ${path}`);
      for (const o of options(cmd)) expect(doc, `docs/cli.md misses ${o.long} (${path})`).toContain(o.long!);
    }
  });
});
