/**
 * `lab up` / `lab down` through the supervisor, and a supervisor killed outright: the
 * reaper at the next start removes everything the lab made, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { labDown, labUp } from '../../src/lab/control.js';
import { readRunningLab } from '../../src/lab/state.js';
import { reap } from '../../src/net/reaper.js';
import { isRoot, listNamespaces, pidAlive } from '../helpers/system.js';

const CONFIG = 'tests/fixtures/labs/tiny.ts';

describe.skipIf(!isRoot)('lab lifecycle', () => {
  it('lab down removes namespaces and processes', async () => {
    const lab = await labUp({ config: CONFIG });
    expect(readRunningLab('test-tiny')?.labId).toBe(lab.labId);
    const pids = lab.origins.map((o) => o.pid);
    expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${lab.labId}`))).toHaveLength(2);
    expect(await labDown('test-tiny')).toBe(true);
    expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${lab.labId}`))).toEqual([]);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(readRunningLab('test-tiny')).toBeUndefined();
  }, 180_000);

  it('a killed supervisor leaves a lab the reaper removes at the next start', async () => {
    const lab = await labUp({ config: CONFIG });
    const pids = lab.origins.map((o) => o.pid);
    process.kill(lab.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${lab.labId}`))).toHaveLength(2);
    const report = await reap();
    expect(report.ownersReaped).toContain(`lab-${lab.labId}`);
    expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${lab.labId}`))).toEqual([]);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(readRunningLab('test-tiny')).toBeUndefined();
  }, 180_000);
});
