/**
 * Bad input is refused before anything is created: a bad number, an unknown profile, an
 * unknown lab, a broken profile file. Each command runs with a private state directory, so
 * "nothing created" is checked where every resource of a run is recorded before it exists
 * (no owner record was ever written: CleanupStack writes one first), plus no run or probe
 * directory and no namespace carrying a run id.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeModuleCommand } from '../../src/util/node-script.js';
import { isRoot, listNamespaces } from '../helpers/system.js';

function ccb(args: string[], stateDir: string) {
  const [node, ...pre] = nodeModuleCommand('cli/main.ts');
  const r = spawnSync(node, [...pre, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, CCB_STATE_DIR: stateDir } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs a command that must be refused; returns what it said, after checking it made nothing. */
function refused(args: (out: string) => string[], code: number): string {
  const work = mkdtempSync(join(tmpdir(), 'ccb-validate-'));
  const out = join(work, 'out');
  const state = join(work, 'state');
  const nsBefore = new Set(listNamespaces());
  const r = ccb(args(out), state);
  expect(r.code, `${args(out).join(' ')}: ${r.err}`).toBe(code);
  expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  expect(existsSync(out), 'an output directory was created').toBe(false);
  const owners = join(state, 'owners');
  expect(existsSync(owners) ? readdirSync(owners) : [], 'an owner record was written').toEqual([]);
  // Namespaces are global (other runs share the machine): none of ours means none named after a run of this command.
  expect(listNamespaces().filter((n) => !nsBefore.has(n) && /^ccb-[0-9a-f]{6}-/.test(n) && existsSync(owners))).toEqual([]);
  return r.err;
}

const URL = 'https://cubic.tcp.lab.ccb.test/bytes/100000';

describe('input is validated before anything is created', () => {
  it('a bad number: exit 2 with the allowed range', () => {
    expect(refused((out) => ['probe', URL, '--repeat', 'abc', '--out', out], 2)).toMatch(/--repeat <n>.*whole number from 1 to 1000/);
    expect(refused((out) => ['run', 'scenarios/lab/static.ts', '--repeat', '0', '--out', out], 2)).toMatch(/whole number from 1 to 100/);
    expect(refused((out) => ['lab', 'train', '--concurrency', '2.5', '--dataset', join(out, 'd.json')], 2)).toMatch(/from 1 to 16/);
    expect(refused(() => ['shaper', 'check', '--seconds', 'many'], 2)).toMatch(/from 4 to 600/);
  });

  it('an unknown profile: exit 2 naming the shipped ones', () => {
    const err = refused((out) => ['run', 'scenarios/lab/static.ts', '--profile', 'nebby-5O', '--out', out], 2);
    expect(err).toMatch(/unknown profile "nebby-5O".*nebby-50/);
    expect(refused((out) => ['probe', URL, '--profile', 'nebby-50,nosuch', '--out', out], 2)).toMatch(/unknown profile "nosuch"/);
  });

  it('a profile that does not validate: exit 2 with the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccb-profile-'));
    const file = join(dir, 'oops.ts');
    writeFileSync(file, "export default { name: 'oops', rateKbit: 'fast', delayMs: 10, buffer: { bdp: 2 } };\n");
    const err = refused((out) => ['run', 'scenarios/lab/static.ts', '--profile', file, '--out', out], 2);
    expect(err).toMatch(/oops\.ts:1: rateKbit/);
  });

  it.skipIf(!isRoot)('an unknown lab: exit 3, and no run directory', () => {
    expect(refused((out) => ['run', 'scenarios/lab/static.ts', '--lab', 'nosuch', '--out', out], 3)).toMatch(/lab nosuch is not running/);
    expect(refused((out) => ['probe', URL, '--lab', 'nosuch', '--out', out], 3)).toMatch(/lab nosuch is not running/);
    expect(refused((out) => ['run', 'scenarios/lab/static.ts', '--lab', 'Not A Name', '--out', out], 2)).toMatch(/lab name/);
  });

  it('lab bench --stop-when-stable goes with fresh probes only: exit 2', () => {
    expect(refused((out) => ['lab', 'bench', '--stop-when-stable', '--from-dataset', '--dataset', join(out, 'd.json'), '--out', join(out, 'b.json')], 2)).toMatch(/--stop-when-stable goes with fresh probes/);
    expect(refused((out) => ['lab', 'bench', '--stop-when-stable', '--cross-validate', '--out', join(out, 'b.json')], 2)).toMatch(/not --from-dataset, --cross-validate or --hold-out/);
  });

  it('--profile never swallows the positional argument', () => {
    // Parsed as a URL (then refused for the unknown lab), not as a second profile.
    const r = ccb(['probe', '--profile', 'nebby-50', URL, '--lab', 'nosuch'], mkdtempSync(join(tmpdir(), 'ccb-state-')));
    expect(r.err).not.toMatch(/unknown profile/);
    expect(r.err).not.toMatch(/missing required argument/);
  });
});
