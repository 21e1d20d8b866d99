import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, beforeAll } from 'vitest';

beforeAll(() => { process.env.CCB_STATE_DIR = mkdtempSync(join(tmpdir(), 'ccb-state-')); });

describe('cleanup stack', () => {
  it('unwinds in reverse, survives an undo that forgets its own entry, and shares one unwind', async () => {
    const { CleanupStack, ownersDir } = await import('../../../src/net/cleanup.js');
    const stack = new CleanupStack('unit-test');
    const order: string[] = [];
    const a = { kind: 'file' as const, path: '/nonexistent/a' };
    const b = { kind: 'file' as const, path: '/nonexistent/b' };
    const c = { kind: 'file' as const, path: '/nonexistent/c' };
    stack.push(a, async () => { order.push('a'); });
    stack.push(b, async () => { order.push('b'); stack.forget(b); });
    stack.push(c, async () => { order.push('c'); });
    expect(existsSync(join(ownersDir(), 'unit-test.json'))).toBe(true);
    const [first, second] = await Promise.all([stack.unwind(), stack.unwind()]);
    expect(order).toEqual(['c', 'b', 'a']);
    expect(first).toEqual([]);
    expect(second).toBe(first);
    expect(existsSync(join(ownersDir(), 'unit-test.json'))).toBe(false);
  });
});
