/**
 * The kill harness's short form (bench/kill-harness.ts; the long form and its figures are in
 * docs/benchmarks/kill-harness.md): run, probe and lab up, each stopped once by SIGINT to its
 * process group, once by SIGTERM and once by SIGKILL followed by the next start, at seeded
 * moments inside the work. Nothing they made may be left, and every run directory must stay
 * readable by `analyze` (probe directories by `classify`).
 */
import { describe, expect, it } from 'vitest';
import { runKillHarness, table, total } from '../../bench/kill-harness.js';
import { isRoot } from '../helpers/system.js';

describe.skipIf(!isRoot)('interrupts leave nothing behind', () => {
  it('SIGINT, SIGTERM and SIGKILL + next start on run, probe and lab up', async () => {
    const lines: string[] = [];
    const results = await runKillHarness({
      interrupts: 9, seed: 21, commands: ['probe', 'lab-up', 'run'], kinds: ['sigint', 'sigterm', 'sigkill'],
      // After the CLI is up (a few seconds under tsx), while it works.
      windows: { probe: [4, 10], 'lab-up': [4, 9], run: [5, 18] },
      log: (m) => lines.push(m),
    });
    const report = `${lines.join('\n')}\n${table(results)}`;
    expect(results, report).toHaveLength(9);
    for (const r of results) {
      expect(total(r.left), `${r.command} ${r.kind} at ${r.atSeconds} s left something\n${report}`).toBe(0);
      expect(r.unreadableDirs, report).toEqual([]);
      if (r.finishedBefore || r.kind === 'sigkill') continue;
      // Interrupted mid-work: the documented exit code, and only after cleaning up.
      if (r.exitCode !== null) expect(r.exitCode, report).toBe(r.kind === 'sigint' ? 130 : 143);
    }
  }, 900_000);
});
