/** Progress as the contract says: a live line on a terminal, plain lines in a pipe, nothing with --quiet. */
import { describe, expect, it } from 'vitest';
import { createReporter } from '../../../src/cli/output.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  const s = { isTTY, columns: 60, write: (c: string) => { chunks.push(c); return true; } } as unknown as NodeJS.WriteStream;
  return { s, text: () => chunks.join(''), chunks };
}

describe('progress output', () => {
  it('a terminal gets one live line, rewritten in place, and lines above it', () => {
    const t = stream(true);
    const r = createReporter({ stream: t.s });
    r.progress('activity 1 s, 3 flows');
    r.progress('activity 2 s, 4 flows');
    r.info('profile nebby-50 done');
    r.done();
    expect(t.text()).toContain('\r\x1b[Kactivity 2 s, 4 flows');
    // The info line clears the live line, prints, then redraws it.
    expect(t.text()).toContain('\r\x1b[Kprofile nebby-50 done\nactivity 2 s, 4 flows');
    expect(t.text().endsWith('\r\x1b[K')).toBe(true);
  });

  it('a pipe gets plain lines only: no carriage return, the live line at most every 10 s', () => {
    const p = stream(false);
    const r = createReporter({ stream: p.s });
    for (let i = 0; i < 5; i++) r.progress(`activity ${i} s`);
    r.info('done');
    r.done();
    expect(p.text()).not.toMatch(/\r|\x1b/);
    expect(p.text()).toBe('activity 0 s\ndone\n');
  });

  it('--quiet prints nothing; -v adds detail', () => {
    const q = stream(false);
    const quiet = createReporter({ stream: q.s, quiet: true });
    quiet.info('x'); quiet.progress('y'); quiet.detail('z');
    expect(q.text()).toBe('');
    const v = stream(false);
    createReporter({ stream: v.s }).detail('hidden');
    createReporter({ stream: v.s, verbose: true }).detail('shown');
    expect(v.text()).toBe('shown\n');
  });
});
