/**
 * A helper with no cleanup stack (a test's own server) must never outlive this process: launch
 * kills it on exit. Many at once (a lab runs dozens) share one exit hook, so Node prints no
 * MaxListenersExceededWarning. Run in a child Node so its exit is real; the helpers are `sleep`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const launchModule = new URL('../../../src/net/launch.ts', import.meta.url).href;

/** Running: its /proc entry is there and not a zombie (a killed orphan waits for init to reap it). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('helpers without a stack', () => {
  it('are killed when the process exits, with no listener-leak warning however many', async () => {
    const script = `
      const { startProcess } = await import(${JSON.stringify(launchModule)});
      const pids = [];
      for (let i = 0; i < 15; i++) pids.push(startProcess('sleep', ['60'], { what: 'sleeper', stack: null }).pid);
      console.log(JSON.stringify(pids));
      // Node prints its warnings on a later tick: give it one before exiting.
      await new Promise((res) => setTimeout(res, 100));
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/MaxListenersExceeded/);
    const pids = JSON.parse(r.stdout.trim().split('\n').pop()!) as number[];
    expect(pids).toHaveLength(15);
    for (let i = 0; i < 50 && pids.some(running); i++) await new Promise((res) => setTimeout(res, 100));
    expect(pids.filter(running)).toEqual([]);
  });
});
