/**
 * The delay line's pure C parts (native/delayline/selftest.c): the release-time heap against a
 * brute-force model, the loss models' rate and burst length, release-time arithmetic. Needs
 * only a C compiler (no root, no queue); make is incremental.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

it('ccb-delayline-selftest passes (heap order and reordering counters, loss models, release times)', () => {
  execFileSync('make', ['-s', '-C', join(repo, 'native', 'delayline'), join(repo, 'build', 'native', 'ccb-delayline-selftest')], { stdio: 'pipe' });
  let out: string;
  try {
    out = execFileSync(join(repo, 'build', 'native', 'ccb-delayline-selftest'), { encoding: 'utf8' });
  } catch (err) {
    throw new Error(`ccb-delayline-selftest failed:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  expect(out.trim()).toBe('ok');
});
